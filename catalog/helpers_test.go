package catalog_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"catalogd/api"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/wpdb"
	"catalogd/wpdb/wpfixture"
)

// now is the instant sales are evaluated at in these tests.
var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// newShop returns an empty shop saved at now.
func newShop() *wpfixture.Shop {
	s := wpfixture.New("wp_", "https://shop.example")
	s.Now = now
	return s
}

// fixture is a shop loaded into a throwaway database, and its catalog.
type fixture struct {
	shop *wpfixture.Shop
	raw  *sql.DB
	db   *wpdb.DB
	cat  *catalog.Catalog
}

func load(t *testing.T, shop *wpfixture.Shop) *fixture {
	t.Helper()
	dsn, raw := testdb.Load(t, shop)
	db, err := wpdb.Open(dsn, wpdb.Options{Prefix: shop.Prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &fixture{shop: shop, raw: raw, db: db,
		cat: catalog.New(db, catalog.Config{Now: func() time.Time { return now }})}
}

func (f *fixture) product(t *testing.T, slug string) *catalog.Product {
	t.Helper()
	p, err := f.cat.Product(context.Background(), slug)
	if err != nil {
		t.Fatalf("Product(%q): %v", slug, err)
	}
	return p
}

func (f *fixture) list(t *testing.T, q api.ListQuery) *catalog.ProductList {
	t.Helper()
	l, err := f.cat.Products(context.Background(), q)
	if err != nil {
		t.Fatalf("Products(%+v): %v", q, err)
	}
	return l
}

func slugs(ps []api.Product) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Slug)
	}
	return out
}

func ptr(s string) *string { return &s }

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}
