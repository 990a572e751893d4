package poll

import (
	"context"
	"database/sql"
	"testing"

	"catalogd/internal/wpdbtest"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
)

// openShop loads the shop into a throwaway database and opens it with
// wpdb, using the shop's prefix; it returns the DB and a raw pool on the
// database.
func openShop(t *testing.T, shop *wpfixture.Shop) (*wpdb.DB, *sql.DB) {
	t.Helper()
	return openShopWith(t, shop, wpdb.Options{Prefix: shop.Prefix})
}

// openShopWith is openShop with explicit options.
func openShopWith(t *testing.T, shop *wpfixture.Shop, o wpdb.Options) (*wpdb.DB, *sql.DB) {
	t.Helper()
	return wpdbtest.Load(t, shop, func(dsn string) (*wpdb.DB, error) { return wpdb.Open(dsn, o) })
}

// view runs fn in a View and fails the test on an error.
func view(t *testing.T, db *wpdb.DB, fn func(ctx context.Context, tx *wpdb.Tx) error) {
	t.Helper()
	if err := db.View(context.Background(), fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}
