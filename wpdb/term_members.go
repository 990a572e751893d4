package wpdb

import (
	"context"
	"fmt"

	"catalogd/catalog"
)

// TermMembers returns every relationship of the terms, read through the
// term_taxonomy_id index alone (it holds the primary key's object_id), in
// one statement whatever the number of products.
func (tx *Tx) TermMembers(ctx context.Context, ttids []int64) ([]catalog.Member, error) {
	if len(ttids) == 0 {
		return nil, nil
	}
	var ms []catalog.Member
	if err := tx.Select(ctx, &ms, `SELECT term_taxonomy_id, object_id FROM {term_relationships}
		WHERE term_taxonomy_id IN (?)`, ttids); err != nil {
		return nil, fmt.Errorf("wpdb: read term members: %w", err)
	}
	return ms, nil
}
