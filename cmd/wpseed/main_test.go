package main

import (
	"context"
	"testing"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/wpdb"
)

// A small generated shop loads and is a shop catalogd reads: the products,
// the noise, and a catalog-visible population short of the published one.
func TestSeed(t *testing.T) {
	dsn := testdb.New(t)
	raw := testdb.Open(t, dsn)
	ctx := context.Background()
	if err := seed(ctx, raw, 2500); err != nil {
		t.Fatal(err)
	}
	count := func(q string) int {
		t.Helper()
		var n int
		if err := raw.QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(`SELECT COUNT(*) FROM wp_posts WHERE post_type = 'product'`); n != 2500 {
		t.Errorf("products = %d", n)
	}
	if n := count(`SELECT COUNT(*) FROM wp_posts WHERE post_type IN ('revision', 'shop_order')`); n != 5000 {
		t.Errorf("noise posts = %d", n)
	}
	if perProduct := count(`SELECT COUNT(*) FROM wp_postmeta`) / 2500; perProduct < 25 {
		t.Errorf("%d meta rows per product, want about 30", perProduct)
	}
	db, err := wpdb.Open(dsn, wpdb.Options{Prefix: "wp_"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	idx, err := catalog.New(db, catalog.Config{}).Index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if idx.PublishedProductCount < 2200 || idx.ProductCount >= idx.PublishedProductCount || idx.CategoryCount < 100 {
		t.Errorf("index: %+v", idx)
	}
}
