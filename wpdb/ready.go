package wpdb

import (
	"context"
	"fmt"
)

// readTables are WordPress's and WooCommerce's tables catalogd reads
// (unprefixed), each with what a row event of it means to the binary log
// feed: Ready checks that each is there, the feed watches each. The
// translation plugins' optional tables are catalog.Reads.Tables.
var readTables = []struct {
	name string
	role tableRole
}{
	{"posts", rolePosts}, {"postmeta", rolePostmeta}, {"terms", roleTerms}, {"term_taxonomy", roleTermTaxonomy},
	{"term_relationships", roleRelationships}, {"termmeta", roleTermmeta}, {"options", roleOptions},
	{"woocommerce_attribute_taxonomies", roleTable},
}

// Ready checks that the database answers and holds every table catalogd
// reads under the configured prefix (a wrong prefix is a common mistake).
// A refused connection is said in the words of what to fix (Refusal).
func (db *DB) Ready(ctx context.Context) error {
	err := db.View(ctx, func(ctx context.Context, tx *Tx) error {
		for _, t := range readTables {
			var n []int
			if err := tx.selectx(ctx, &n, `SELECT 1 FROM {`+t.name+`} LIMIT 0`); err != nil {
				return fmt.Errorf("wpdb: table %s%s: %w", tx.prefix, t.name, err)
			}
		}
		return nil
	})
	if words := Refusal(err); words != "" {
		return fmt.Errorf("%s: %w", words, err)
	}
	return err
}
