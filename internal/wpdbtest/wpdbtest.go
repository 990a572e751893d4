// Package wpdbtest is what the tests of the wpdb room (wpdb, wpdb/binlog,
// wpdb/poll) share: a small shop with products in every status, the
// clock its rows are saved at, and reads and writes through a raw pool,
// as WordPress makes them.
package wpdbtest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
)

// Now is when the fixture shops are "saved".
var Now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// NewShop returns a fresh-install shop with the prefix, saved at Now.
func NewShop(prefix string) *wpfixture.Shop {
	s := wpfixture.New(prefix, "https://shop.example")
	s.Now = Now
	return s
}

// RawPost adds a posts row of any type, as WordPress core stores pages and
// blog posts, with an explicit ID (far above the fixture's own).
func RawPost(shop *wpfixture.Shop, id int64, typ, status, slug string) {
	d := Now.Format("2006-01-02 15:04:05")
	shop.Row("posts", []string{"ID", "post_author", "post_date", "post_date_gmt", "post_content", "post_title",
		"post_excerpt", "post_status", "comment_status", "ping_status", "post_password", "post_name",
		"to_ping", "pinged", "post_modified", "post_modified_gmt", "post_content_filtered", "post_parent",
		"guid", "menu_order", "post_type", "post_mime_type", "comment_count"},
		id, 1, d, d, "", slug, "", status, "open", "closed", "", slug,
		"", "", d, d, "", 0, fmt.Sprintf("https://shop.example/?p=%d", id), 0, typ, "", 0)
}

// Products is a small shop with products in every status.
type Products struct {
	Shop                             *wpfixture.Shop
	Alpha, Beta, Gamma               int64 // category term_taxonomy_ids
	ESX, QBCore, VariableType        int64 // attribute and product_type term_taxonomy_ids
	Radar, Cuffs, Badge, Bundle      int64 // published products
	Draft, Private, Pending, Trashed int64
	Future                           int64
	VarESX, VarQBCore, VarStandalone int64 // variations of Bundle
	Other, OtherVar                  int64 // a second variable product and its variation
	Page                             int64
}

// NewProducts builds the Products shop (prefix wp_).
func NewProducts() *Products {
	s := NewShop("wp_")
	p := &Products{Shop: s}
	p.Alpha = s.Category("Alpha", "alpha", "", 0).TTID
	p.Beta = s.Category("Beta", "beta", "", 0).TTID
	p.Gamma = s.Category("Gamma", "gamma", "", 0).TTID
	p.ESX = s.TermRef("pa_framework", "esx").TTID
	p.QBCore = s.TermRef("pa_framework", "qbcore").TTID
	p.VariableType = s.TermRef("product_type", "variable").TTID

	// Menu order and dates run against the IDs: pages go by ID regardless.
	p.Radar = s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "10", Categories: []string{"alpha"},
		Frameworks: []string{"esx"}, MenuOrder: 9, Content: "<p>Radar content</p>", Excerpt: "<p>Short radar</p>"})
	p.Cuffs = s.Add(wpfixture.Product{Title: "Cuffs", RegularPrice: "5", Categories: []string{"beta"},
		Frameworks: []string{"qbcore"}, MenuOrder: 8, Password: "secret"})
	p.Badge = s.Add(wpfixture.Product{Title: "Badge", RegularPrice: "3", Categories: []string{"alpha", "beta"}, MenuOrder: 7})
	p.Draft = s.Add(wpfixture.Product{Title: "Draft Thing", Slug: "draft-thing", Status: "draft", RegularPrice: "1", Categories: []string{"alpha"}})
	p.Private = s.Add(wpfixture.Product{Title: "Private Thing", Status: "private", RegularPrice: "1", Categories: []string{"alpha"}})
	p.Pending = s.Add(wpfixture.Product{Title: "Pending Thing", Slug: "pending-thing", Status: "pending", RegularPrice: "1", Categories: []string{"alpha"}})
	p.Trashed = s.Add(wpfixture.Product{Title: "Trashed Thing", Status: "trash", RegularPrice: "1", Categories: []string{"alpha"}})
	p.Future = s.Add(wpfixture.Product{Title: "Future Thing", Status: "future", RegularPrice: "1", Categories: []string{"alpha"}})
	p.Bundle = s.Add(wpfixture.Product{Title: "Bundle", Type: "variable", Categories: []string{"gamma"}, MenuOrder: 1,
		Image: "2026/11/bundle.jpg",
		Variations: []wpfixture.Variation{
			{Framework: "esx", RegularPrice: "10"},
			{Framework: "qbcore", RegularPrice: "12", Disabled: true},
			{Framework: "standalone", RegularPrice: "8"},
		}})
	p.VarESX, p.VarQBCore, p.VarStandalone = p.Bundle+1, p.Bundle+2, p.Bundle+3
	p.Other = s.Add(wpfixture.Product{Title: "Other", Type: "variable", Categories: []string{"gamma"},
		Variations: []wpfixture.Variation{{Framework: "qbox", RegularPrice: "4"}}})
	p.OtherVar = p.Other + 1
	p.Page = 9001
	RawPost(s, p.Page, "page", "publish", "about-us")
	RawPost(s, 9002, "post", "publish", "radar-news")
	return p
}

// Published is every published product of Products, by ID.
func (p *Products) Published() []int64 {
	return []int64{p.Radar, p.Cuffs, p.Badge, p.Bundle, p.Other}
}

// Stray are the statements that add the variations a whole load does not
// read: of a draft, of a pending product, a trashed one of a published
// product, and, unless noOrphans, those whose parent is no product (of no
// parent, of a deleted one, of a page).
func (p *Products) Stray(noOrphans bool) []string {
	stmts := []string{
		InsertPost("product_variation", "publish", "of-a-draft", p.Draft),
		InsertPost("product_variation", "private", "of-a-pending", p.Pending),
		InsertPost("product_variation", "trash", "trashed-of-radar", p.Radar),
	}
	if !noOrphans {
		stmts = append(stmts,
			InsertPost("product_variation", "publish", "no-parent", 0),
			InsertPost("product_variation", "publish", "parent-deleted", 987654),
			InsertPost("product_variation", "private", "parent-a-page", p.Page))
	}
	return stmts
}

// SortedIDs returns a sorted copy.
func SortedIDs(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// AssertIDs fails when got and want differ (nil and empty are equal).
func AssertIDs(t *testing.T, what string, got, want []int64) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// Polylang is a Polylang shop in English and German: two products
// translated, one not, and a translated category.
type Polylang struct {
	Shop                           *wpfixture.Shop
	Radar, RadarDE, Cuffs, CuffsDE int64
	Lonely                         int64
}

// NewPolylang builds the Polylang shop (prefix wp_).
func NewPolylang() *Polylang {
	s := NewShop("wp_")
	s.EnablePolylang("en", "de")
	p := &Polylang{Shop: s}
	s.Category("Alpha", "alpha", "", 0)
	s.TranslateCategory("alpha", "de", "Alpha DE", "alpha-de", "")
	p.Radar = s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "1", Categories: []string{"alpha"}})
	p.RadarDE = s.Translate(p.Radar, "de", wpfixture.Product{Title: "Radar DE", RegularPrice: "1", Categories: []string{"alpha-de"}})
	p.Cuffs = s.Add(wpfixture.Product{Title: "Cuffs", RegularPrice: "1"})
	p.CuffsDE = s.Translate(p.Cuffs, "de", wpfixture.Product{Title: "Cuffs DE", RegularPrice: "1"})
	p.Lonely = s.Add(wpfixture.Product{Title: "Lonely", RegularPrice: "1"})
	return p
}

// MoveCategoryToGerman is what Polylang writes when the term form sets a
// category's language: the category's term_language relationship (whose
// object_id is the category's term_id) moves to the German term.
func (p *Polylang) MoveCategoryToGerman() string {
	cat := p.Shop.TermRef("product_cat", "alpha")
	en, de := p.Shop.TermRef("term_language", "pll_en").TTID, p.Shop.TermRef("term_language", "pll_de").TTID
	return fmt.Sprintf("UPDATE wp_term_relationships SET term_taxonomy_id = %d WHERE object_id = %d AND term_taxonomy_id = %d",
		de, cat.TermID, en)
}

// Statuses are the post statuses Products holds a product of.
var Statuses = []string{"publish", "draft", "private", "pending", "trash", "future"}

// SamePosts fails for each post whose state in got (what gotIs names)
// differs from want's (wantIs), or that only one of them holds.
func SamePosts[V comparable](t *testing.T, got, want map[int64]V, gotIs, wantIs string) {
	t.Helper()
	for id, s := range want {
		if g, ok := got[id]; !ok || g != s {
			t.Errorf("post %d: %s %+v (present %v), %s %+v", id, gotIs, g, ok, wantIs, s)
		}
	}
	for id, s := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("post %d: %s %+v, not in the %s", id, gotIs, s, wantIs)
		}
	}
}

// InsertPost is the posts row wp_insert_post writes (a new ID).
func InsertPost(typ, status, slug string, parent int64) string {
	return fmt.Sprintf(`INSERT INTO wp_posts (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status,
		post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_parent, post_type)
		VALUES (1, NOW(), UTC_TIMESTAMP(), '', '%s', '', '%s', '%s', '', '', NOW(), UTC_TIMESTAMP(), '', %d, '%s')`,
		slug, status, slug, parent, typ)
}

// Exec runs the statements through the raw pool, as WordPress would.
func Exec(t *testing.T, raw *sql.DB, what string, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %s: %v", what, q, err)
		}
	}
}

// Load loads the shop into a throwaway database (testdb.Load) and opens
// it with open, to be closed when the test ends; it returns what open
// returned and a raw pool on the database.
func Load[DB io.Closer](t *testing.T, shop *wpfixture.Shop, open func(dsn string) (DB, error)) (DB, *sql.DB) {
	t.Helper()
	dsn, raw := testdb.Load(t, shop)
	db, err := open(dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db, raw
}

// RawScalar reads one value through the raw pool, outside wpdb.
func RawScalar(t *testing.T, raw *sql.DB, dest any, query string, args ...any) {
	t.Helper()
	if err := raw.QueryRowContext(context.Background(), query, args...).Scan(dest); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}
