package catalog_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"catalogd/api"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
	"catalogd/wpdb/poll"
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

// follow keeps f's catalog in step with its database through the poll
// source until the test ends; see follow.
func (f *fixture) follow(t *testing.T, every time.Duration) <-chan catalog.Applied {
	t.Helper()
	return follow(t, f.cat, f.db, every)
}

// follow keeps cat in step with db through the poll source until the test
// ends, and returns once the first whole read is in: a change made after
// is one the poller reports. Each change applied that moved something is
// sent on the channel returned.
func follow(t *testing.T, cat *catalog.Catalog, db *wpdb.DB, every time.Duration) <-chan catalog.Applied {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	feed := poll.New(db, catalog.ShopReads, poll.Options{Interval: every,
		// Tests poll every few tens of milliseconds: the cheap rounds
		// alone would spend the default budget, and the product scan
		// would come seconds apart. Here it may use a whole core.
		Budget: 1})
	if err := feed.Start(ctx); err != nil {
		t.Fatal(err)
	}
	first := make(chan struct{})
	applied := make(chan catalog.Applied, 100)
	go cat.Follow(ctx, feed, catalog.AppliedFunc(func(a catalog.Applied) {
		select {
		case <-first:
			if !a.Nothing() {
				applied <- a
			}
		default:
			close(first)
		}
	}))
	select {
	case <-first:
	case <-time.After(10 * time.Second):
		t.Fatal("no first whole read within 10s")
	}
	return applied
}
