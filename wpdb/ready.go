package wpdb

import (
	"context"
	"fmt"
)

// ReadTables are WordPress's and WooCommerce's tables catalogd reads
// (unprefixed): Ready checks that each is there, and the binary log feed
// watches each (wpdb/binlog says what a row event of each means). The
// translation plugins' optional tables are catalog.Reads.Tables.
var ReadTables = []string{"posts", "postmeta", "terms", "term_taxonomy", "term_relationships", "termmeta", "options",
	"woocommerce_attribute_taxonomies"}

// Ready checks that the database answers and holds every table catalogd
// reads under the configured prefix (a wrong prefix is a common mistake).
// A refused connection is said in the words of what to fix (Refusal).
func (db *DB) Ready(ctx context.Context) error {
	err := db.View(ctx, func(ctx context.Context, tx *Tx) error {
		for _, t := range ReadTables {
			var n []int
			if err := tx.Select(ctx, &n, `SELECT 1 FROM {`+t+`} LIMIT 0`); err != nil {
				return fmt.Errorf("wpdb: table %s%s: %w", tx.prefix, t, err)
			}
		}
		return nil
	})
	if words := Refusal(err); words != "" {
		return fmt.Errorf("%s: %w", words, err)
	}
	return err
}
