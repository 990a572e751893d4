package wpdb

import (
	"context"
	"strings"
	"testing"

	"catalogd/internal/wpdbtest"
)

func TestReady(t *testing.T) {
	t.Parallel()
	db, raw := openShop(t, wpdbtest.NewShop("wp_"))
	if err := db.Ready(context.Background()); err != nil {
		t.Fatalf("Ready on a whole shop: %v", err)
	}
	// A shop without WooCommerce's attribute table (WooCommerce never
	// installed, or a table left out of a dump): not ready, and the
	// table is named.
	if _, err := raw.ExecContext(context.Background(), `DROP TABLE wp_woocommerce_attribute_taxonomies`); err != nil {
		t.Fatal(err)
	}
	err := db.Ready(context.Background())
	if err == nil || !strings.Contains(err.Error(), "wp_woocommerce_attribute_taxonomies") {
		t.Errorf("Ready without the attribute table: %v, want an error naming it", err)
	}
}
