package wpdb

import (
	"context"
	"slices"
	"sort"
	"testing"
	"time"

	"catalogd/catalog"
)

func TestPosts(t *testing.T) {
	t.Parallel()
	p := newProductShop()
	db, raw := openShop(t, p.shop)

	radar := catalog.Post{ID: p.radar, Type: "product", Status: "publish", Slug: "radar", Title: "Radar",
		Excerpt: "<p>Short radar</p>", Content: "<p>Radar content</p>"}
	cuffs := catalog.Post{ID: p.cuffs, Type: "product", Status: "publish", Slug: "cuffs", Title: "Cuffs", Password: "secret"}
	draft := catalog.Post{ID: p.draft, Type: "product", Status: "draft", Slug: "draft-thing", Title: "Draft Thing"}
	variation := catalog.Post{ID: p.varQBCore, Parent: p.bundle, Type: "product_variation", Status: "private",
		Slug: "bundle-qbcore", Title: "Bundle - QBCore"}
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
		{"with content", []int64{p.radar, p.cuffs}, true, []catalog.Post{radar, cuffs}},
		{"without content", []int64{p.radar, p.cuffs}, false, noContent(radar, cuffs)},
		{"any status and type", []int64{p.draft, p.varQBCore}, false, []catalog.Post{draft, variation}},
		{"unknown IDs are absent", []int64{p.radar, 99999}, true, []catalog.Post{radar}},
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
				got = withoutModified(got) // checked below
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
		for _, id := range []int64{p.radar, p.varQBCore} {
			if _, err := raw.ExecContext(context.Background(),
				`UPDATE wp_posts SET post_modified_gmt = ? WHERE ID = ?`, saved.Format(time.DateTime), id); err != nil {
				t.Fatal(err)
			}
		}
		view(t, db, func(ctx context.Context, tx *Tx) error {
			posts, err := tx.Posts(ctx, []int64{p.radar, p.draft}, false)
			if err != nil {
				return err
			}
			vars, err := tx.Variations(ctx, []int64{p.bundle})
			if err != nil {
				return err
			}
			got := map[int64]time.Time{}
			for _, post := range append(posts, vars...) {
				got[post.ID] = post.ModifiedTime()
			}
			if !got[p.radar].Equal(saved) || !got[p.varQBCore].Equal(saved) || !got[p.draft].IsZero() {
				t.Errorf("modified times: radar %v, variation %v, draft %v; want %v, %v, zero",
					got[p.radar], got[p.varQBCore], got[p.draft], saved, saved)
			}
			return nil
		})
	})
}

func TestPublishedProducts(t *testing.T) {
	t.Parallel()
	p := newProductShop()
	// A revision and an order beside radar, as real shops carry.
	p.shop.AddNoise(p.radar, "Radar")
	db, _ := openShop(t, p.shop)
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
	assertIDs(t, "published products' IDs", ids, p.published())

	got = withoutModified(got)
	byID := map[int64]catalog.Post{}
	for _, post := range got {
		byID[post.ID] = post
	}
	// The whole row, content included: the snapshot is built from it.
	for _, want := range []catalog.Post{
		{ID: p.radar, Type: "product", Status: "publish", Slug: "radar", Title: "Radar",
			Excerpt: "<p>Short radar</p>", Content: "<p>Radar content</p>"},
		{ID: p.cuffs, Type: "product", Status: "publish", Slug: "cuffs", Title: "Cuffs", Password: "secret"},
		{ID: p.bundle, Type: "product", Status: "publish", Slug: "bundle", Title: "Bundle"},
	} {
		if byID[want.ID] != want {
			t.Errorf("published product row %d:\n got %+v\nwant %+v", want.ID, byID[want.ID], want)
		}
	}
}
