package wpdb

import (
	"context"
	"fmt"
)

// readTables are the tables catalogd reads.
var readTables = []string{"posts", "postmeta", "terms", "term_taxonomy", "term_relationships",
	"termmeta", "options", "woocommerce_attribute_taxonomies"}

// Ready checks that the database answers and holds every table catalogd
// reads under the configured prefix (a wrong prefix is a common mistake).
func (db *DB) Ready(ctx context.Context) error {
	return db.View(ctx, func(ctx context.Context, tx *Tx) error {
		for _, t := range readTables {
			var n []int
			if err := tx.selectx(ctx, &n, `SELECT 1 FROM {`+t+`} LIMIT 0`); err != nil {
				return fmt.Errorf("wpdb: table %s%s: %w", tx.prefix, t, err)
			}
		}
		return nil
	})
}
