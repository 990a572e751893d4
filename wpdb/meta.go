package wpdb

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jmoiron/sqlx"

	"catalogd/catalog"
)

// Meta reads the keys of the posts in one query, whatever the number of posts.
func (tx *Tx) Meta(ctx context.Context, ids []int64, keys []string) (catalog.Meta, error) {
	m := make(catalog.Meta, len(ids))
	if len(ids) == 0 || len(keys) == 0 {
		return m, nil
	}
	var rows []struct {
		PostID int64  `db:"post_id"`
		Key    string `db:"meta_key"`
		Value  string `db:"meta_value"`
	}
	// The post_id index narrows the rows; meta_id keeps insertion order.
	if err := tx.selectx(ctx, &rows, `
		SELECT post_id, meta_key, COALESCE(meta_value, '') AS meta_value FROM {postmeta}
		WHERE post_id IN (?) AND meta_key IN (?)
		ORDER BY meta_id`, ids, keys); err != nil {
		return nil, fmt.Errorf("wpdb: read post meta: %w", err)
	}
	for _, r := range rows {
		m[r.PostID] = append(m[r.PostID], catalog.MetaRow{Key: r.Key, Value: r.Value})
	}
	return m, nil
}

// MetaByKey reads every row of the meta keys, in meta_id order, and keeps
// those want accepts: one pass over the meta_key index, streamed, so that
// rows not wanted (orders', drafts', unused images') are never held.
func (tx *Tx) MetaByKey(ctx context.Context, keys []string, want func(id int64, key string) bool) (catalog.Meta, error) {
	m := catalog.Meta{}
	if len(keys) == 0 {
		return m, nil
	}
	// A million rows at 100 000 products: the keys are the asked ones,
	// and short values repeat ("instock", "", a few prices), so both are
	// shared rather than allocated per row.
	values := map[string]string{}
	var (
		id        int64
		key, val  sql.RawBytes
		canonical string
	)
	err := tx.each(ctx, `SELECT post_id, meta_key, COALESCE(meta_value, '') FROM {postmeta}
		WHERE meta_key IN (?) ORDER BY meta_id`, []any{keys}, func(rows *sqlx.Rows) error {
		if err := rows.Scan(&id, &key, &val); err != nil {
			return err
		}
		canonical = ""
		for _, k := range keys {
			if string(key) == k {
				canonical = k
				break
			}
		}
		if canonical == "" || !want(id, canonical) {
			return nil // a key in another case (the collation matches it), or a row not wanted
		}
		v, ok := values[string(val)]
		if !ok {
			v = string(val)
			if len(v) <= 32 {
				values[v] = v
			}
		}
		m[id] = append(m[id], catalog.MetaRow{Key: canonical, Value: v})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("wpdb: read post meta: %w", err)
	}
	return m, nil
}
