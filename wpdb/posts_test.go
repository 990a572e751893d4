package wpdb

import (
	"context"
	"slices"
	"sort"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/internal/wpdbtest"
)

func TestPosts(t *testing.T) {
	t.Parallel()
	p := wpdbtest.NewProducts()
	db, raw := openShop(t, p.Shop)

	radar := catalog.Post{ID: p.Radar, Type: "product", Status: "publish", Slug: "radar", Title: "Radar",
		Excerpt: "<p>Short radar</p>", Content: "<p>Radar content</p>", MenuOrder: 9}
	cuffs := catalog.Post{ID: p.Cuffs, Type: "product", Status: "publish", Slug: "cuffs", Title: "Cuffs", Password: "secret",
		MenuOrder: 8}
	draft := catalog.Post{ID: p.Draft, Type: "product", Status: "draft", Slug: "draft-thing", Title: "Draft Thing"}
	variation := catalog.Post{ID: p.VarQBCore, Parent: p.Bundle, Type: "product_variation", Status: "private",
		Slug: "bundle-qbcore", Title: "Bundle - QBCore", MenuOrder: 2}
	noContent := func(ps ...catalog.Post) []catalog.Post {
		out := slices.Clone(ps)
		for i := range out {
			out[i].Content = ""
		}
		return out
	}

	tests := []struct {
		name        string
		ids         []int64
		withContent bool
		want        []catalog.Post
	}{
		{"with content", []int64{p.Radar, p.Cuffs}, true, []catalog.Post{radar, cuffs}},
		{"without content", []int64{p.Radar, p.Cuffs}, false, noContent(radar, cuffs)},
		{"any status and type", []int64{p.Draft, p.VarQBCore}, false, []catalog.Post{draft, variation}},
		{"unknown IDs are absent", []int64{p.Radar, 99999}, true, []catalog.Post{radar}},
		{"none", nil, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view(t, db, func(ctx context.Context, tx *Tx) error {
				got, err := tx.Posts(ctx, tt.ids, tt.withContent)
				if err != nil {
					return err
				}
				sort.Slice(got, func(i, j int) bool { return got[i].ID < got[j].ID })
				got = withoutSortKeys(withoutModified(got)) // checked below and in TestTitleKeys
				if !slices.Equal(got, tt.want) {
					t.Errorf("Posts(%v, %v):\n got %+v\nwant %+v", tt.ids, tt.withContent, got, tt.want)
				}
				return nil
			})
		})
	}

	// post_modified_gmt is read as WordPress stores it, in UTC; a draft's
	// all-zero value is no time at all.
	t.Run("modified", func(t *testing.T) {
		saved := time.Date(2026, 3, 1, 12, 30, 45, 0, time.UTC)
		for _, id := range []int64{p.Radar, p.VarQBCore} {
			if _, err := raw.ExecContext(context.Background(),
				`UPDATE wp_posts SET post_modified_gmt = ? WHERE ID = ?`, saved.Format(time.DateTime), id); err != nil {
				t.Fatal(err)
			}
		}
		view(t, db, func(ctx context.Context, tx *Tx) error {
			posts, err := tx.Posts(ctx, []int64{p.Radar, p.Draft}, false)
			if err != nil {
				return err
			}
			vars, err := tx.Variations(ctx, []int64{p.Bundle})
			if err != nil {
				return err
			}
			got := map[int64]time.Time{}
			for _, post := range append(posts, vars...) {
				got[post.ID] = post.ModifiedTime()
			}
			if !got[p.Radar].Equal(saved) || !got[p.VarQBCore].Equal(saved) || !got[p.Draft].IsZero() {
				t.Errorf("modified times: radar %v, variation %v, draft %v; want %v, %v, zero",
					got[p.Radar], got[p.VarQBCore], got[p.Draft], saved, saved)
			}
			return nil
		})
	})
}

func TestPublishedProducts(t *testing.T) {
	t.Parallel()
	p := wpdbtest.NewProducts()
	// A revision and an order beside radar, as real shops carry.
	p.Shop.AddNoise(p.Radar, "Radar")
	db, _ := openShop(t, p.Shop)
	var got []catalog.Post
	view(t, db, func(ctx context.Context, tx *Tx) error {
		rows := newPublishedRows()
		err := tx.productPosts(ctx, rows, nil)
		got = rows.Posts
		return err
	})
	// Not drafts, pending, private, scheduled or trashed products, nor
	// variations, pages, blog posts, revisions or orders; by ID, whatever
	// the menu order.
	var ids []int64
	for _, post := range got {
		ids = append(ids, post.ID)
	}
	wpdbtest.AssertIDs(t, "published products' IDs", ids, p.Published())

	got = withoutSortKeys(withoutModified(got)) // the keys: TestTitleKeys
	byID := map[int64]catalog.Post{}
	for _, post := range got {
		byID[post.ID] = post
	}
	// The whole row, content and the product's own menu_order included:
	// the snapshot is built from it.
	for _, want := range []catalog.Post{
		{ID: p.Radar, Type: "product", Status: "publish", Slug: "radar", Title: "Radar",
			Excerpt: "<p>Short radar</p>", Content: "<p>Radar content</p>", MenuOrder: 9},
		{ID: p.Cuffs, Type: "product", Status: "publish", Slug: "cuffs", Title: "Cuffs", Password: "secret", MenuOrder: 8},
		{ID: p.Bundle, Type: "product", Status: "publish", Slug: "bundle", Title: "Bundle", MenuOrder: 1},
	} {
		if byID[want.ID] != want {
			t.Errorf("published product row %d:\n got %+v\nwant %+v", want.ID, byID[want.ID], want)
		}
	}
}
