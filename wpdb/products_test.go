package wpdb

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"catalogd/wpdb/wpfixture"
)

// rawPost adds a posts row of any type, as WordPress core stores pages and
// blog posts, with an explicit ID (far above the fixture's own).
func rawPost(shop *wpfixture.Shop, id int64, typ, status, slug string) {
	d := testNow.Format("2006-01-02 15:04:05")
	shop.Row("posts", []string{"ID", "post_author", "post_date", "post_date_gmt", "post_content", "post_title",
		"post_excerpt", "post_status", "comment_status", "ping_status", "post_password", "post_name",
		"to_ping", "pinged", "post_modified", "post_modified_gmt", "post_content_filtered", "post_parent",
		"guid", "menu_order", "post_type", "post_mime_type", "comment_count"},
		id, 1, d, d, "", slug, "", status, "open", "closed", "", slug,
		"", "", d, d, "", 0, fmt.Sprintf("https://shop.example/?p=%d", id), 0, typ, "", 0)
}

// productShop is a small shop with products in every status.
type productShop struct {
	shop                             *wpfixture.Shop
	alpha, beta, gamma               int64 // category term_taxonomy_ids
	esx, qbcore, variableType        int64 // attribute and product_type term_taxonomy_ids
	radar, cuffs, badge, bundle      int64 // published products
	draft, private, pending, trashed int64
	future                           int64
	varESX, varQBCore, varStandalone int64 // variations of bundle
	other, otherVar                  int64 // a second variable product and its variation
	page                             int64
}

func newProductShop() *productShop {
	s := newTestShop("wp_")
	p := &productShop{shop: s}
	p.alpha = s.Category("Alpha", "alpha", "", 0).TTID
	p.beta = s.Category("Beta", "beta", "", 0).TTID
	p.gamma = s.Category("Gamma", "gamma", "", 0).TTID
	p.esx = s.TermRef("pa_framework", "esx").TTID
	p.qbcore = s.TermRef("pa_framework", "qbcore").TTID
	p.variableType = s.TermRef("product_type", "variable").TTID

	// Menu order and dates run against the IDs: pages go by ID regardless.
	p.radar = s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "10", Categories: []string{"alpha"},
		Frameworks: []string{"esx"}, MenuOrder: 9, Content: "<p>Radar content</p>", Excerpt: "<p>Short radar</p>"})
	p.cuffs = s.Add(wpfixture.Product{Title: "Cuffs", RegularPrice: "5", Categories: []string{"beta"},
		Frameworks: []string{"qbcore"}, MenuOrder: 8, Password: "secret"})
	p.badge = s.Add(wpfixture.Product{Title: "Badge", RegularPrice: "3", Categories: []string{"alpha", "beta"}, MenuOrder: 7})
	p.draft = s.Add(wpfixture.Product{Title: "Draft Thing", Slug: "draft-thing", Status: "draft", RegularPrice: "1", Categories: []string{"alpha"}})
	p.private = s.Add(wpfixture.Product{Title: "Private Thing", Status: "private", RegularPrice: "1", Categories: []string{"alpha"}})
	p.pending = s.Add(wpfixture.Product{Title: "Pending Thing", Slug: "pending-thing", Status: "pending", RegularPrice: "1", Categories: []string{"alpha"}})
	p.trashed = s.Add(wpfixture.Product{Title: "Trashed Thing", Status: "trash", RegularPrice: "1", Categories: []string{"alpha"}})
	p.future = s.Add(wpfixture.Product{Title: "Future Thing", Status: "future", RegularPrice: "1", Categories: []string{"alpha"}})
	p.bundle = s.Add(wpfixture.Product{Title: "Bundle", Type: "variable", Categories: []string{"gamma"}, MenuOrder: 1,
		Image: "2026/11/bundle.jpg",
		Variations: []wpfixture.Variation{
			{Framework: "esx", RegularPrice: "10"},
			{Framework: "qbcore", RegularPrice: "12", Disabled: true},
			{Framework: "standalone", RegularPrice: "8"},
		}})
	p.varESX, p.varQBCore, p.varStandalone = p.bundle+1, p.bundle+2, p.bundle+3
	p.other = s.Add(wpfixture.Product{Title: "Other", Type: "variable", Categories: []string{"gamma"},
		Variations: []wpfixture.Variation{{Framework: "qbox", RegularPrice: "4"}}})
	p.otherVar = p.other + 1
	p.page = 9001
	rawPost(s, p.page, "page", "publish", "about-us")
	rawPost(s, 9002, "post", "publish", "radar-news")
	return p
}

// published is every published product of newProductShop, by ID.
func (p *productShop) published() []int64 {
	return []int64{p.radar, p.cuffs, p.badge, p.bundle, p.other}
}

// sortedIDs returns a sorted copy.
func sortedIDs(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// assertIDs fails when got and want differ (nil and empty are equal).
func assertIDs(t *testing.T, what string, got, want []int64) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestAllProductIDs(t *testing.T) {
	t.Parallel()
	p := newProductShop()
	db, _ := openShop(t, p.shop)

	tests := []struct {
		name   string
		filter Filter
		want   []int64
	}{
		{"no filter: published products only", Filter{}, p.published()},
		{"one group", Filter{Require: [][]int64{{p.alpha}}}, []int64{p.radar, p.badge}},
		{"within a group OR", Filter{Require: [][]int64{{p.alpha, p.beta}}}, []int64{p.radar, p.cuffs, p.badge}},
		{"groups AND", Filter{Require: [][]int64{{p.alpha}, {p.beta}}}, []int64{p.badge}},
		{"category AND attribute", Filter{Require: [][]int64{{p.alpha, p.beta}, {p.esx}}}, []int64{p.radar}},
		{"attribute from a variation", Filter{Require: [][]int64{{p.esx}}}, []int64{p.radar, p.bundle}},
		{"product type", Filter{Require: [][]int64{{p.variableType}}}, []int64{p.bundle, p.other}},
		{"empty group matches nothing", Filter{Require: [][]int64{{}}}, nil},
		{"empty group among others", Filter{Require: [][]int64{{p.alpha}, {}}}, nil},
		{"require unknown term", Filter{Require: [][]int64{{424242}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view(t, db, func(ctx context.Context, tx *Tx) error {
				ids, err := tx.AllProductIDs(ctx, tt.filter)
				if err != nil {
					return err
				}
				assertIDs(t, fmt.Sprintf("AllProductIDs(%+v)", tt.filter), ids, tt.want)
				return nil
			})
		})
	}
}

func TestProductIDBySlug(t *testing.T) {
	t.Parallel()
	p := newProductShop()
	db, _ := openShop(t, p.shop)

	tests := []struct {
		name      string
		slug      string
		wantID    int64
		wantFound bool
	}{
		{"published simple", "radar", p.radar, true},
		{"published with password", "cuffs", p.cuffs, true},
		{"published variable", "bundle", p.bundle, true},
		{"draft", "draft-thing", 0, false},
		{"pending", "pending-thing", 0, false},
		{"private", "private-thing", 0, false},
		{"future", "future-thing", 0, false},
		{"trashed, moved-aside slug", "trashed-thing__trashed", 0, false},
		{"trashed, original slug", "trashed-thing", 0, false},
		{"published variation", "bundle-esx", 0, false},
		{"disabled variation", "bundle-qbcore", 0, false},
		{"published page", "about-us", 0, false},
		{"published blog post", "radar-news", 0, false},
		{"unknown", "no-such-product", 0, false},
		{"empty", "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view(t, db, func(ctx context.Context, tx *Tx) error {
				id, found, err := tx.ProductIDBySlug(ctx, tt.slug, Filter{})
				if err != nil {
					return err
				}
				if id != tt.wantID || found != tt.wantFound {
					t.Errorf("ProductIDBySlug(%q) = %d, %v; want %d, %v", tt.slug, id, found, tt.wantID, tt.wantFound)
				}
				return nil
			})
		})
	}
}

func TestPosts(t *testing.T) {
	t.Parallel()
	p := newProductShop()
	db, raw := openShop(t, p.shop)

	radar := Post{ID: p.radar, Type: "product", Status: "publish", Slug: "radar", Title: "Radar",
		Excerpt: "<p>Short radar</p>", Content: "<p>Radar content</p>"}
	cuffs := Post{ID: p.cuffs, Type: "product", Status: "publish", Slug: "cuffs", Title: "Cuffs", Password: "secret"}
	draft := Post{ID: p.draft, Type: "product", Status: "draft", Slug: "draft-thing", Title: "Draft Thing"}
	variation := Post{ID: p.varQBCore, Parent: p.bundle, Type: "product_variation", Status: "private",
		Slug: "bundle-qbcore", Title: "Bundle - QBCore"}
	noContent := func(ps ...Post) []Post {
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
		want        []Post
	}{
		{"with content", []int64{p.radar, p.cuffs}, true, []Post{radar, cuffs}},
		{"without content", []int64{p.radar, p.cuffs}, false, noContent(radar, cuffs)},
		{"any status and type", []int64{p.draft, p.varQBCore}, false, []Post{draft, variation}},
		{"unknown IDs are absent", []int64{p.radar, 99999}, true, []Post{radar}},
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

// withoutModified clears the modified times, which the fixture derives
// from its clock, so posts compare on the rest.
func withoutModified(ps []Post) []Post {
	for i := range ps {
		ps[i].Modified = ""
	}
	return ps
}

func TestVariations(t *testing.T) {
	t.Parallel()
	p := newProductShop()
	db, raw := openShop(t, p.shop)

	v := func(id, parent int64, status, slug, title string) Post {
		return Post{ID: id, Parent: parent, Type: "product_variation", Status: status, Slug: slug, Title: title}
	}
	esx := v(p.varESX, p.bundle, "publish", "bundle-esx", "Bundle - ESX")
	qbcore := v(p.varQBCore, p.bundle, "private", "bundle-qbcore", "Bundle - QBCore")
	standalone := v(p.varStandalone, p.bundle, "publish", "bundle-standalone", "Bundle - Standalone")
	qbox := v(p.otherVar, p.other, "publish", "other-qbox", "Other - Qbox")

	read := func(t *testing.T, parents []int64) []Post {
		t.Helper()
		var got []Post
		view(t, db, func(ctx context.Context, tx *Tx) error {
			var err error
			got, err = tx.Variations(ctx, parents)
			return err
		})
		return withoutModified(got)
	}
	tests := []struct {
		name    string
		parents []int64
		want    []Post
	}{
		{"publish and private, in menu order", []int64{p.bundle}, []Post{esx, qbcore, standalone}},
		{"several parents", []int64{p.bundle, p.other}, []Post{esx, qbox, qbcore, standalone}},
		{"simple product has none", []int64{p.radar}, nil},
		{"none asked", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := read(t, tt.parents)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Variations(%v):\n got %+v\nwant %+v", tt.parents, got, tt.want)
			}
		})
	}

	// The shop manager drags the variations around: menu_order decides,
	// then the ID breaks ties.
	t.Run("reordered", func(t *testing.T) {
		for id, order := range map[int64]int{p.varESX: 5, p.varQBCore: 1, p.varStandalone: 1} {
			if _, err := raw.ExecContext(context.Background(),
				`UPDATE wp_posts SET menu_order = ? WHERE ID = ?`, order, id); err != nil {
				t.Fatal(err)
			}
		}
		got := read(t, []int64{p.bundle})
		want := []Post{qbcore, standalone, esx}
		if !slices.Equal(got, want) {
			t.Errorf("Variations after reordering:\n got %+v\nwant %+v", got, want)
		}
	})
}
