package poll

import (
	"context"
	"fmt"

	"catalogd/wpdb"
)

// termSums reads a digest of the terms of the taxonomies (through
// term_taxonomy's taxonomy index, joined to terms by primary key and to
// their 'order' term meta by termmeta's term_id index) and one of the whole
// attribute table (woocommerce_attribute_taxonomies: a handful of rows).
// The term digest covers what the catalog shows of a term (name, slug,
// parent, order), never term_taxonomy.count: WordPress recounts a
// product's terms at every publish and trash (wp_update_term_count), and
// WooCommerce relates a product to the outofstock term when an order sells
// its last one: product changes, which the post reads see, and would
// otherwise reload the whole shop. It also covers the member taxonomies'
// relationships (Polylang's term_language: a category's language), through
// term_relationships' term_taxonomy_id index: a row per category.
func termSums(ctx context.Context, tx *wpdb.Tx, taxonomies []string, like string, members []string) (terms, attributes string, err error) {
	if len(taxonomies) == 0 {
		taxonomies = []string{""}
	}
	if len(members) == 0 {
		members = []string{""}
	}
	var r struct {
		Terms      string `db:"terms"`
		Members    string `db:"members"`
		Attributes string `db:"attributes"`
	}
	err = tx.Get(ctx, &r, `
		SELECT
		  (SELECT CONCAT(COUNT(*), '/', COALESCE(SUM(CRC32(CONCAT_WS('|', tt.term_taxonomy_id, tt.taxonomy, t.name, t.slug, tt.parent,
		          tm.meta_value))), 0))
		   FROM {term_taxonomy} tt JOIN {terms} t ON t.term_id = tt.term_id
		   LEFT JOIN {termmeta} tm ON tm.term_id = t.term_id AND tm.meta_key = 'order'
		   WHERE tt.taxonomy IN (?) OR (? <> '' AND tt.taxonomy LIKE ?)) AS terms,
		  (SELECT CONCAT(COUNT(*), '/', COALESCE(SUM(CRC32(CONCAT_WS('|', tr.object_id, tr.term_taxonomy_id))), 0))
		   FROM {term_taxonomy} tt JOIN {term_relationships} tr ON tr.term_taxonomy_id = tt.term_taxonomy_id
		   WHERE tt.taxonomy IN (?)) AS members,
		  (SELECT CONCAT(COUNT(*), '/', COALESCE(SUM(CRC32(CONCAT_WS('|', attribute_id, attribute_name, attribute_label,
		          attribute_type, attribute_orderby, attribute_public))), 0))
		   FROM {woocommerce_attribute_taxonomies}) AS attributes`, taxonomies, like, like, members)
	if err != nil {
		return "", "", fmt.Errorf("wpdb: read term digests: %w", err)
	}
	return r.Terms + " " + r.Members, r.Attributes, nil
}
