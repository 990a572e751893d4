package wpdb

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/internal/wpdbtest"
	"catalogd/internal/wpfixture"
)

// withoutSortKeys clears what TestTitleKeys checks.
func withoutSortKeys(ps []catalog.Post) []catalog.Post {
	for i := range ps {
		ps[i].Date, ps[i].TitleKey = "", ""
	}
	return ps
}

// TestTitleKeys: the products sorted by their title keys, then ID, come in
// the order the database's ORDER BY post_title, ID gives them, under the
// column's collation (accents and case equal, ß the same as ss, a trailing
// space nothing, a tab before the end, past the server's sort length
// nothing), from the whole load's read and from the read by ID alike; and
// each product's post_date and menu_order are read as stored.
func TestTitleKeys(t *testing.T) {
	t.Parallel()
	s := wpdbtest.NewShop("wp_")
	long := strings.Repeat("a", 600)
	titles := []string{"Pêche", "peche", "PECHE", "Straße", "Strasse", "strasse ", "Strassen", "abc", "abc\t",
		"abc ", "abc!", "Äpfel", "apfel", "Zebra", "éclair", "eclair", "Œuvre", "oeuvre", "😀 smile", "ﬁne", "fine",
		" leading", "Ǆ", "DŽ", "10 Scripts", "9 Scripts", long + "z", long + "b", "Grosses", "Großes"}
	date := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	var ids []int64
	for i, title := range titles {
		// The slug is the title's position: titles alike would collide.
		ids = append(ids, s.Add(wpfixture.Product{Title: title, Slug: "p" + string(rune('a'+i%26)) + strings.Repeat("x", i/26),
			RegularPrice: "1", MenuOrder: 100 - i, Date: date.Add(time.Duration(i) * time.Hour)}))
	}
	s.Add(wpfixture.Product{Title: "A draft", Status: "draft", RegularPrice: "1"})
	db, raw := openShop(t, s)

	var want []int64
	rows, err := raw.QueryContext(context.Background(), `SELECT ID FROM wp_posts
		WHERE post_type = 'product' AND post_status = 'publish' ORDER BY post_title, ID`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}

	reads := []struct {
		name string
		read func(ctx context.Context, tx *Tx) ([]catalog.Post, error)
	}{
		{"whole load", func(ctx context.Context, tx *Tx) ([]catalog.Post, error) {
			r := newPublishedRows()
			err := tx.productPosts(ctx, r, nil)
			return r.Posts, err
		}},
		{"by ID", func(ctx context.Context, tx *Tx) ([]catalog.Post, error) { return tx.Posts(ctx, ids, false) }},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			var posts []catalog.Post
			view(t, db, func(ctx context.Context, tx *Tx) (err error) {
				posts, err = r.read(ctx, tx)
				return err
			})
			slices.SortFunc(posts, func(a, b catalog.Post) int {
				return cmp.Or(strings.Compare(a.TitleKey, b.TitleKey), cmp.Compare(a.ID, b.ID))
			})
			var got []int64
			for _, p := range posts {
				got = append(got, p.ID)
				i := slices.Index(ids, p.ID)
				wantDate := date.Add(time.Duration(i) * time.Hour).Format(time.DateTime)
				if p.Date != wantDate || p.MenuOrder != int64(100-i) {
					t.Errorf("product %d (%q): date %q, menu_order %d; want %q, %d", p.ID, p.Title, p.Date, p.MenuOrder, wantDate, 100-i)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("by title key:\n got %v\nwant %v (ORDER BY post_title, ID)", titlesOf(posts, got), titlesOf(posts, want))
			}
		})
	}
}

func titlesOf(posts []catalog.Post, ids []int64) []string {
	var out []string
	for _, id := range ids {
		i := slices.IndexFunc(posts, func(p catalog.Post) bool { return p.ID == id })
		if i < 0 {
			out = append(out, "?")
			continue
		}
		title := posts[i].Title
		if len(title) > 12 {
			title = title[:4] + "…" + title[len(title)-4:]
		}
		out = append(out, title)
	}
	return out
}
