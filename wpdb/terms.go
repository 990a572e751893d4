package wpdb

import (
	"context"
	"fmt"

	"catalogd/catalog"
)

// Terms returns every term of the taxonomies and of those whose name is
// LIKE the pattern (none when ""), ordered by name as the database
// collates it (the storefront's tie-breaker), then by term ID.
func (tx *Tx) Terms(ctx context.Context, taxonomies []string, like string) ([]catalog.Term, error) {
	var terms []catalog.Term
	// MIN() folds a duplicated "order" meta row (WordPress allows several)
	// into one; CAST mirrors the storefront's meta_value+0.
	err := tx.Select(ctx, &terms, `
		SELECT tt.term_taxonomy_id, t.term_id, tt.taxonomy, t.slug, t.name, tt.parent,
		       COALESCE((SELECT MIN(CAST(tm.meta_value AS SIGNED)) FROM {termmeta} tm
		                 WHERE tm.term_id = t.term_id AND tm.meta_key = 'order'), 0) AS term_order
		FROM {term_taxonomy} tt
		JOIN {terms} t ON t.term_id = tt.term_id
		WHERE tt.taxonomy IN (?) OR (? <> '' AND tt.taxonomy LIKE ?)
		ORDER BY t.name, t.term_id`, taxonomies, like, like)
	if err != nil {
		return nil, fmt.Errorf("wpdb: read terms: %w", err)
	}
	return terms, nil
}
