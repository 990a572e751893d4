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
// those want accepts: one pass, streamed, so that rows not wanted
// (orders', drafts', unused images') are never held. MySQL runs it as a
// scan of the primary key (the meta_key index's lookups of a million rows
// take four times as long).
func (tx *Tx) MetaByKey(ctx context.Context, keys []string, want func(id int64, key string) bool) (catalog.Meta, error) {
	return tx.metaByKey(ctx, keys, metaRange{}, want)
}

// metaRange is a range of meta_id, from (inclusive) to to (exclusive); a
// zero bound is open.
type metaRange struct{ from, to int64 }

// metaByKey is MetaByKey over the meta_id range, which it reads on the
// primary key.
func (tx *Tx) metaByKey(ctx context.Context, keys []string, span metaRange, want func(id int64, key string) bool) (catalog.Meta, error) {
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
	stmt := `SELECT post_id, meta_key, COALESCE(meta_value, '') FROM {postmeta}
		WHERE meta_key IN (?)`
	args := []any{keys}
	if span.from > 0 {
		stmt += ` AND meta_id >= ?`
		args = append(args, span.from)
	}
	if span.to > 0 {
		stmt += ` AND meta_id < ?`
		args = append(args, span.to)
	}
	err := tx.each(ctx, stmt+` ORDER BY meta_id`, args, func(rows *sqlx.Rows) error {
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
