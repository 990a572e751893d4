package wpdb

import (
	"fmt"
	"slices"
	"testing"

	"catalogd/catalog"
	"catalogd/internal/wpfixture"
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

// withoutModified clears the modified times, which the fixture derives
// from its clock, so posts compare on the rest.
func withoutModified(ps []catalog.Post) []catalog.Post {
	for i := range ps {
		ps[i].Modified = ""
	}
	return ps
}
