package wpdb

import (
	"context"
	"fmt"
)

// Member is one term relationship: a post carrying a term.
type Member struct {
	TTID     int64 `db:"term_taxonomy_id"`
	ObjectID int64 `db:"object_id"`
}

// TermMembers returns every relationship of the terms, read through the
// term_taxonomy_id index alone (it holds the primary key's object_id), in
// one statement whatever the number of products.
func (tx *Tx) TermMembers(ctx context.Context, ttids []int64) ([]Member, error) {
	if len(ttids) == 0 {
		return nil, nil
	}
	var ms []Member
	if err := tx.selectx(ctx, &ms, `SELECT term_taxonomy_id, object_id FROM {term_relationships}
		WHERE term_taxonomy_id IN (?)`, ttids); err != nil {
		return nil, fmt.Errorf("wpdb: read term members: %w", err)
	}
	return ms, nil
}

// AllProductIDs returns the IDs of the published products passing the
// filter, ascending, through the type_status_date index.
func (tx *Tx) AllProductIDs(ctx context.Context, f Filter) ([]int64, error) {
	where, args := f.where()
	var ids []int64
	if err := tx.selectx(ctx, &ids, `SELECT p.ID FROM {posts} p WHERE `+where+` ORDER BY p.ID`, args...); err != nil {
		return nil, fmt.Errorf("wpdb: list product IDs: %w", err)
	}
	return ids, nil
}
