package wpdb

import (
	"context"
	"fmt"
)

// Signature is a cheap fingerprint of everything the catalog shows. It
// changes when a product, variation or attachment is saved (post_modified_gmt,
// counts), when WooCommerce bumps its product transient version (every
// product save, stock change by an order, sale start or end by its cron),
// when a product category, framework term, its order or a relationship
// changes, and when an option the mapping reads changes. It does not see a
// raw SQL edit of post meta that touches neither the post nor the transient
// version; such an edit shows when cached copies expire.
func (db *DB) Signature(ctx context.Context) (string, error) {
	var sig string
	err := db.View(ctx, func(ctx context.Context, tx *Tx) error {
		var r struct {
			Posts   string `db:"posts"`
			Terms   string `db:"terms"`
			Options string `db:"options"`
		}
		// One statement: the product posts through type_status_date (every
		// save, status change and trashing moves post_modified_gmt), the
		// small taxonomies through their index, the options by name.
		err := tx.getx(ctx, &r, `
			SELECT
			  (SELECT CONCAT(COUNT(*), '/', COALESCE(MAX(post_modified_gmt), ''), '/', COALESCE(MAX(ID), 0))
			   FROM {posts} WHERE post_type IN ('product', 'product_variation')) AS posts,
			  (SELECT CONCAT(COUNT(*), '/', COALESCE(SUM(CRC32(CONCAT(t.name, '|', t.slug, '|', tt.parent, '|', tt.count,
			                 '|', COALESCE((SELECT GROUP_CONCAT(tm.meta_value) FROM {termmeta} tm
			                                WHERE tm.term_id = t.term_id AND tm.meta_key = 'order'), '')))), 0))
			   FROM {term_taxonomy} tt JOIN {terms} t ON t.term_id = tt.term_id
			   WHERE tt.taxonomy IN ('product_cat', 'pa_framework', 'product_visibility', 'product_type')) AS terms,
			  (SELECT COALESCE(SUM(CRC32(CONCAT(option_name, '=', option_value))), 0) FROM {options}
			   WHERE option_name IN (?)) AS options`, signatureOptions)
		sig = r.Posts + "|" + r.Terms + "|" + r.Options
		return err
	})
	if err != nil {
		return "", fmt.Errorf("wpdb: read change signature: %w", err)
	}
	return sig, nil
}

// signatureOptions are the options whose change clears cached responses.
var signatureOptions = []string{
	"_transient_product-transient-version", "_transient_product_cat-transient-version",
	"home", "siteurl", "blogname", "blogdescription", "permalink_structure", "upload_url_path",
	"upload_path", "woocommerce_currency", "woocommerce_price_num_decimals",
	"woocommerce_hide_out_of_stock_items", "woocommerce_permalinks",
	// A translation plugin switched on or off, or its settings changed.
	"active_plugins", OptionWPML, OptionPolylang, OptionTranslatePress,
}
