package httpapi_test

import (
	"context"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/httpapi"
)

// TestChangeDropsOnlyWhatShowsTheProduct: after a change to one product,
// its single-product response and the list pages showing it are answered
// anew, while every other product's response and the list pages without it
// stay cached (X-Cache: HIT), but for the index, which names the snapshot.
// When a product leaves the catalog, the lists,
// counts and index go too, and the 404 for a slug it frees is not kept.
func TestChangeDropsOnlyWhatShowsTheProduct(t *testing.T) {
	c := serveCached(t, newShop(), time.Now)
	ctx := context.Background()
	id := func(slug string) int64 {
		t.Helper()
		var id int64
		if err := c.raw.QueryRow(`SELECT ID FROM wp_posts WHERE post_name = ?`, slug).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	radar := id("police-radar")
	paths := map[string]string{
		"radar":       base + "/catalog/products/police-radar",
		"dealer":      base + "/catalog/products/car-dealer",
		"all":         base + "/catalog/products",
		"jobs":        base + "/catalog/products?category=jobs",
		"vehicles":    base + "/catalog/products?category=vehicles",
		"categories":  base + "/catalog/categories",
		"index":       base + "/catalog",
		"unknown-404": base + "/catalog/products/no-such-thing",
	}
	warm := func() {
		t.Helper()
		for _, p := range paths {
			get(t, c.srv, p)
			if r := get(t, c.srv, p); r.header.Get("X-Cache") != "HIT" {
				t.Fatalf("%s not cached: %s", p, r.header.Get("X-Cache"))
			}
		}
	}
	apply := func(ch catalog.Change) {
		t.Helper()
		a, err := c.cat.Apply(ctx, ch)
		if err != nil {
			t.Fatal(err)
		}
		c.cache.Apply(a)
	}
	expect := func(what string, want map[string]string) {
		t.Helper()
		for name, p := range paths {
			if got := get(t, c.srv, p).header.Get("X-Cache"); got != want[name] {
				t.Errorf("%s: %s answered %s, want %s", what, name, got, want[name])
			}
		}
	}

	warm()
	before := get(t, c.srv, paths["index"]).header.Get(httpapi.SnapshotHeader)
	if _, err := c.raw.Exec(`UPDATE wp_postmeta SET meta_value = '17' WHERE post_id = ? AND meta_key IN ('_price', '_regular_price')`, radar); err != nil {
		t.Fatal(err)
	}
	apply(catalog.Change{Posts: []int64{radar}, Kind: catalog.KindProduct})
	// The index goes with every change: it names the snapshot, which a
	// starting replica compares with the edge's copy.
	expect("a price edited", map[string]string{"radar": "MISS", "dealer": "HIT", "all": "MISS", "jobs": "MISS",
		"vehicles": "HIT", "categories": "HIT", "index": "MISS", "unknown-404": "HIT"})
	if after := get(t, c.srv, paths["index"]).header.Get(httpapi.SnapshotHeader); after == before || after == "" {
		t.Errorf("the index names snapshot %q after a price edit, %q before: want another", after, before)
	}
	if r := get(t, c.srv, paths["radar"]); price(t, r) != "17.00 on_sale=false" {
		t.Errorf("after the change: %s", price(t, r))
	}

	warm()
	if _, err := c.raw.Exec(`UPDATE wp_posts SET post_status = 'draft' WHERE ID = ?`, radar); err != nil {
		t.Fatal(err)
	}
	apply(catalog.Change{Products: []int64{radar}, Kind: catalog.KindProduct})
	expect("a product unpublished", map[string]string{"radar": "MISS", "dealer": "HIT", "all": "MISS", "jobs": "MISS",
		"vehicles": "MISS", "categories": "MISS", "index": "MISS", "unknown-404": "MISS"})
	if r := get(t, c.srv, paths["radar"]); r.status != 404 {
		t.Errorf("the unpublished product answers %d, want 404", r.status)
	}

	warm()
	apply(catalog.Change{Posts: []int64{999999}, Kind: catalog.KindProduct})
	expect("an order's meta", map[string]string{"radar": "HIT", "dealer": "HIT", "all": "HIT", "jobs": "HIT",
		"vehicles": "HIT", "categories": "HIT", "index": "HIT", "unknown-404": "HIT"})
}
