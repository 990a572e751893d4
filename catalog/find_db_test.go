package catalog_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/api"
	"catalogd/internal/wpfixture"
)

// TestFindOnMariaDB: read from a real database, the title and menu_order
// sorts order as its ORDER BY does under the shop's collation (accents,
// case, ß, trailing spaces), and a search finds what its LIKE finds.
func TestFindOnMariaDB(t *testing.T) {
	t.Parallel()
	shop := newShop()
	titles := []string{"Pêche", "peche", "PECHE", "Straße", "Strasse", "strasse ", "Äpfel", "apfel", "Zebra",
		"éclair", "eclair", "Œuvre", "oeuvre", "abc", "abc\t", "abc!", "10 Scripts", "9 Scripts"}
	for i, title := range titles {
		shop.Add(wpfixture.Product{Title: title, Slug: "p-" + strings.Repeat("x", i+1), RegularPrice: "1",
			MenuOrder: i % 3, Date: now.Add(-time.Duration(i) * time.Hour),
			Content: "<p>" + title + " <strong>bold</strong></p>"})
	}
	// Sales and ratings as WooCommerce stores them: total_sales updated in
	// place, the rating meta added when a review is approved.
	ratings := map[string][3]string{ // slug: total_sales, _wc_average_rating, _wc_rating_count
		"p-x": {"7", "4.50", `a:2:{i:4;i:1;i:5;i:1;}`}, "p-xx": {"7", "4.50", `a:1:{i:5;i:3;}`}, "p-xxx": {"12", "3", `a:1:{i:3;i:1;}`},
	}
	f := load(t, shop)
	ctx := context.Background()
	for slug, r := range ratings {
		for i, stmt := range []string{
			`UPDATE wp_postmeta SET meta_value = ? WHERE meta_key = 'total_sales' AND post_id = (SELECT ID FROM wp_posts WHERE post_name = ?)`,
			`UPDATE wp_postmeta SET meta_value = ? WHERE meta_key = '_wc_average_rating' AND post_id = (SELECT ID FROM wp_posts WHERE post_name = ?)`,
			`INSERT INTO wp_postmeta (post_id, meta_key, meta_value) SELECT ID, '_wc_rating_count', ? FROM wp_posts WHERE post_name = ?`,
		} {
			if _, err := f.raw.ExecContext(ctx, stmt, r[i], slug); err != nil {
				t.Fatal(err)
			}
		}
	}

	sqlOrder := func(orderBy string) []string {
		t.Helper()
		rows, err := f.raw.QueryContext(ctx, `SELECT post_name FROM wp_posts
			WHERE post_type = 'product' AND post_status = 'publish' ORDER BY `+orderBy)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return out
	}
	sqlLike := func(term string) []string {
		t.Helper()
		rows, err := f.raw.QueryContext(ctx, `SELECT post_name FROM wp_posts
			WHERE post_type = 'product' AND post_status = 'publish'
			AND (post_title LIKE ? OR post_excerpt LIKE ? OR post_content LIKE ?) ORDER BY ID`,
			"%"+term+"%", "%"+term+"%", "%"+term+"%")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := []string{}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return out
	}
	tests := []struct {
		name string
		q    api.ListQuery
		want []string
	}{
		{"title", api.ListQuery{OrderBy: "title", PerPage: 50}, sqlOrder("post_title, ID")},
		{"menu_order", api.ListQuery{OrderBy: "menu_order", PerPage: 50}, sqlOrder("menu_order, post_title, ID")},
		{"date", api.ListQuery{OrderBy: "date", PerPage: 50}, sqlOrder("post_date DESC, ID DESC")},
		// The lookup's values read from the meta: 12 sales, then 7 and 7
		// by ID descending, then the rest (0) likewise; 4.50 with 3
		// ratings, 4.50 with 2, 3, then the rest.
		{"popularity", api.ListQuery{OrderBy: "popularity", PerPage: 3}, []string{"p-xxx", "p-xx", "p-x"}},
		{"rating", api.ListQuery{OrderBy: "rating", PerPage: 3}, []string{"p-xx", "p-x", "p-xxx"}},
		{"search peche", api.ListQuery{Search: "peche", PerPage: 50}, sqlLike("peche")},
		{"search strasse", api.ListQuery{Search: "strasse", PerPage: 50}, sqlLike("strasse")},
		{"search œ", api.ListQuery{Search: "œ", PerPage: 50}, sqlLike("œ")},
		{"search html", api.ListQuery{Search: "<strong>", PerPage: 50}, sqlLike("<strong>")},
	}
	for _, tt := range tests {
		if got := slugs(f.list(t, tt.q).Products); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v\nthe database: %v", tt.name, got, tt.want)
		}
	}
}
