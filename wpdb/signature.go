package wpdb

import (
	"context"
	"fmt"
	"strings"

	"catalogd/catalog"
)

// Signature is a cheap fingerprint of everything the catalog shows. It
// changes when a product or variation is saved, published, scheduled or
// trashed (a checksum of every such post's ID, status and
// post_modified_gmt, and their count), when WooCommerce bumps its product
// transient version (every product save, stock change by an order, sale
// start or end by its cron), when a term's count moves (a relationship
// added or removed, and WordPress's recount at every publish or trash),
// when a product category, framework term or its order changes, and when
// an option the mapping reads or the framework attribute's order changes.
// What it watches is what the catalog reads (catalog.Reads). It does not see a raw SQL edit of
// post meta that touches neither the post nor the transient version; such
// an edit shows when cached copies expire.
func (db *DB) Signature(ctx context.Context, reads catalog.Reads) (catalog.Signature, error) {
	var sig catalog.Signature
	err := db.View(ctx, func(ctx context.Context, tx *Tx) error {
		var err error
		sig, err = tx.signature(ctx, reads)
		return err
	})
	if err != nil {
		return catalog.Signature{}, err
	}
	return sig, nil
}

// signature reads the signature in the transaction: a snapshot load reads
// it with the rows, so that the two agree exactly.
func (tx *Tx) signature(ctx context.Context, reads catalog.Reads) (catalog.Signature, error) {
	var sig catalog.Signature
	err := func() error {
		var r struct {
			Posts string `db:"posts"`
			// The term counts are the products' part, not the settings':
			// WordPress recounts a product's terms at every publish and
			// trash (wp_update_term_count), and WooCommerce relates an
			// out-of-stock product to the outofstock visibility term.
			Counts string `db:"counts"`
			// WooCommerce's transient versions, apart from the settings:
			// they move at every product save and stock change.
			Versions   string `db:"versions"`
			Terms      string `db:"terms"`
			Options    string `db:"options"`
			Attributes string `db:"attributes"`
		}
		// One statement: the product posts, the small taxonomies through
		// their index, the options by name. The posts are summed per row,
		// not by their newest post_modified_gmt: a product scheduled for
		// the future carries a future modified time (wp_insert_post sets
		// it to the post date), which would hide every later edit, and a
		// scheduled product going live (wp_publish_post) changes only its
		// status. The scan reads those rows either way; the checksum adds
		// a few milliseconds (10 000 products: 16.5 → 23.2 ms, best runs).
		err := tx.getx(ctx, &r, `
			SELECT
			  (SELECT CONCAT(COUNT(*), '/', COALESCE(SUM(CRC32(CONCAT_WS('|', ID, post_status, post_modified_gmt))), 0),
			                 '/', COALESCE(MAX(ID), 0))
			   FROM {posts} WHERE post_type IN ('product', 'product_variation')) AS posts,
			  (SELECT COALESCE(SUM(CRC32(CONCAT(tt.term_taxonomy_id, '=', tt.count))), 0)
			   FROM {term_taxonomy} tt
			   WHERE tt.taxonomy IN (?)) AS counts,
			  (SELECT COALESCE(SUM(CRC32(CONCAT(option_name, '=', option_value))), 0) FROM {options}
			   WHERE option_name IN (?)) AS versions,
			  (SELECT CONCAT(COUNT(*), '/', COALESCE(SUM(CRC32(CONCAT(t.name, '|', t.slug, '|', tt.parent,
			                 '|', COALESCE((SELECT GROUP_CONCAT(tm.meta_value) FROM {termmeta} tm
			                                WHERE tm.term_id = t.term_id AND tm.meta_key = 'order'), '')))), 0))
			   FROM {term_taxonomy} tt JOIN {terms} t ON t.term_id = tt.term_id
			   WHERE tt.taxonomy IN (?)) AS terms,
			  (SELECT COALESCE(SUM(CRC32(CONCAT(option_name, '=', option_value))), 0) FROM {options}
			   WHERE option_name IN (?)) AS options,
			  (SELECT COALESCE(SUM(CRC32(CONCAT(attribute_id, '|', attribute_name, '|', attribute_orderby))), 0)
			   FROM {woocommerce_attribute_taxonomies} WHERE attribute_name IN (?)) AS attributes`,
			reads.Taxonomies, versionOptions, reads.Taxonomies, reads.Options, reads.Attributes)
		sig = catalog.Signature{Products: strings.Join([]string{r.Posts, r.Counts, r.Versions}, "|"),
			Settings: strings.Join([]string{r.Terms, r.Options, r.Attributes}, "|")}
		return err
	}()
	if err != nil {
		return catalog.Signature{}, fmt.Errorf("wpdb: read change signature: %w", err)
	}
	return sig, nil
}

// versionOptions are WooCommerce's cache versions: bumped by every product
// save, stock change and sale start or end, not by a setting.
var versionOptions = []string{"_transient_product-transient-version", "_transient_product_cat-transient-version"}
