package wpdb

import (
	"context"
	"fmt"
)

// Meta holds the post meta read for some posts: post ID → key → values, in
// the order they were stored (a variable product has several _price rows).
type Meta map[int64]map[string][]string

// First returns the first value of a post's key, "" when there is none.
func (m Meta) First(id int64, key string) string {
	if v := m[id][key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Has reports whether the post has a row for the key.
func (m Meta) Has(id int64, key string) bool { return len(m[id][key]) > 0 }

// Meta reads the keys of the posts in one query, whatever the number of posts.
func (tx *Tx) Meta(ctx context.Context, ids []int64, keys []string) (Meta, error) {
	m := make(Meta, len(ids))
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
		pm := m[r.PostID]
		if pm == nil {
			pm = map[string][]string{}
			m[r.PostID] = pm
		}
		pm[r.Key] = append(pm[r.Key], r.Value)
	}
	return m, nil
}

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
	if err := tx.selectx(ctx, &rows,
		`SELECT object_id, term_taxonomy_id FROM {term_relationships} WHERE object_id IN (?)`, ids); err != nil {
		return nil, fmt.Errorf("wpdb: read term relationships: %w", err)
	}
	for _, r := range rows {
		rel[r.ObjectID] = append(rel[r.ObjectID], r.TTID)
	}
	return rel, nil
}
