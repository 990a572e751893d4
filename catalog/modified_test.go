package catalog_test

import (
	"context"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/wpdb/wpfixture"
)

// A resource's Modified is the newest change of what it shows: the
// product's save, a variation's, a sale date passed; never in the future
// (a scheduled product's post_modified_gmt is its publication date); and,
// for terms and settings WordPress keeps no time for, when catalogd first
// loaded the shop.
func TestModified(t *testing.T) {
	s := newShop()
	s.Add(wpfixture.Product{Title: "Untouched", RegularPrice: "1"})
	s.Add(wpfixture.Product{Title: "Saved", RegularPrice: "1"})
	s.Add(wpfixture.Product{Title: "Options", Type: "variable", Variations: []wpfixture.Variation{
		{Framework: "esx", RegularPrice: "5"}, {Framework: "qbox", RegularPrice: "6"}}})
	s.Add(wpfixture.Product{Title: "Post Dated", RegularPrice: "1"})
	s.Add(wpfixture.Product{Title: "Flash Sale", RegularPrice: "10", SalePrice: "5", SaleFrom: now.Add(-10 * time.Minute)})
	f := load(t, s)

	loaded := now.Add(-2 * time.Hour)
	clock := loaded
	cat := catalog.New(f.db, catalog.Config{Now: func() time.Time { return clock }})
	if _, err := cat.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	clock = now
	for _, q := range []string{
		`UPDATE wp_posts SET post_modified_gmt = ? - INTERVAL 30 MINUTE WHERE post_name = 'saved'`,
		`UPDATE wp_posts SET post_modified_gmt = ? - INTERVAL 20 MINUTE WHERE post_name = 'options-qbox'`,
		`UPDATE wp_posts SET post_modified_gmt = ? + INTERVAL 10 DAY WHERE post_name = 'post-dated'`,
	} {
		if _, err := f.raw.Exec(q, now.Format(time.DateTime)); err != nil {
			t.Fatal(err)
		}
	}

	tests := []struct {
		slug string
		want time.Time
	}{
		{"untouched", loaded},
		{"saved", now.Add(-30 * time.Minute)},
		{"options", now.Add(-20 * time.Minute)},
		{"post-dated", now},
		{"flash-sale", now.Add(-10 * time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			p, err := cat.Product(context.Background(), tt.slug)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Modified.Equal(tt.want) {
				t.Errorf("Modified = %v, want %v", p.Modified.UTC(), tt.want)
			}
		})
	}
	l, err := cat.Products(context.Background(), catalog.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if !l.Modified.Equal(now) {
		t.Errorf("list Modified = %v, want %v (its post-dated product's, clamped)", l.Modified.UTC(), now)
	}
	for _, p := range l.Products {
		if p.Slug == "saved" && !p.Modified.Equal(now.Add(-30*time.Minute)) {
			t.Errorf("listed saved product: Modified = %v", p.Modified.UTC())
		}
	}
	cats, err := cat.Categories(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !cats.Modified.Equal(loaded) {
		t.Errorf("categories Modified = %v, want the load time %v", cats.Modified.UTC(), loaded)
	}
}
