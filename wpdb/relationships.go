package wpdb

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// The term_taxonomy_ids products carry: categories, type, visibility,
// attributes, translation groups.

// Relationships returns, per post, the term_taxonomy_ids it is related to.
func (tx *Tx) Relationships(ctx context.Context, ids []int64) (map[int64][]int64, error) {
	rel := make(map[int64][]int64, len(ids))
	if len(ids) == 0 {
		return rel, nil
	}
	var rows []struct {
		ObjectID int64 `db:"object_id"`
		TTID     int64 `db:"term_taxonomy_id"`
	}
	if err := tx.Select(ctx, &rows,
		`SELECT object_id, term_taxonomy_id FROM {term_relationships} WHERE object_id IN (?)`, ids); err != nil {
		return nil, fmt.Errorf("wpdb: read term relationships: %w", err)
	}
	for _, r := range rows {
		rel[r.ObjectID] = append(rel[r.ObjectID], r.TTID)
	}
	return rel, nil
}

// PublishedRelationships returns the term_taxonomy_ids of every published
// product.
func (tx *Tx) PublishedRelationships(ctx context.Context) (map[int64][]int64, error) {
	rel := map[int64][]int64{}
	// The join walks the products and each one's relationships in turn,
	// so a product's rows come together: they are gathered and put in the
	// map once, at their size, where appending row by row would cost two
	// map operations a row and grow each product's slice through the sizes
	// below it. A product whose rows came apart (another plan) has them
	// appended to what it holds.
	var (
		run     []int64
		runObj  int64
		obj, tt rowID
	)
	flush := func() {
		if len(run) > 0 {
			rel[runObj] = append(rel[runObj], run...)
			run = run[:0]
		}
	}
	err := tx.Each(ctx, `SELECT tr.object_id, tr.term_taxonomy_id FROM {term_relationships} tr
		JOIN {posts} p ON p.ID = tr.object_id WHERE p.post_type = 'product' AND p.post_status = 'publish'`, nil,
		func(rows *sqlx.Rows) error {
			if err := rows.Scan(&obj, &tt); err != nil {
				return err
			}
			if int64(obj) != runObj {
				flush()
				runObj = int64(obj)
			}
			run = append(run, int64(tt))
			return nil
		})
	flush()
	if err != nil {
		return nil, fmt.Errorf("wpdb: read term relationships: %w", err)
	}
	return rel, nil
}
