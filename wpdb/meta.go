package wpdb

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"slices"
	"strings"

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
	if err := tx.Select(ctx, &rows, `
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
// scan of the primary key (the meta_key index's lookups take several
// times as long: docs/performance.md#a-whole-load-start-up-and-the-safety-re-read).
func (tx *Tx) MetaByKey(ctx context.Context, keys []string, want func(id int64, key string) bool) (catalog.Meta, error) {
	return tx.metaByKey(ctx, keys, metaRange{}, want)
}

// metaRange is a range of meta_id, from (inclusive) to to (exclusive); a
// zero bound is open.
type metaRange struct{ from, to int64 }

// metaByKey is MetaByKey over the meta_id range, which it reads on the
// primary key.
func (tx *Tx) metaByKey(ctx context.Context, keys []string, span metaRange, want func(id int64, key string) bool) (catalog.Meta, error) {
	posts, err := tx.metaPosts(ctx, keys, span, want)
	if err != nil {
		return nil, err
	}
	m := make(catalog.Meta, posts.len())
	for p := range posts.all() {
		putMeta(m, p.id, p.rows)
	}
	return m, nil
}

// postMeta is rows of a post read one after the other, in meta_id order.
type postMeta struct {
	id   int64
	rows []catalog.MetaRow
}

// metaList is posts' rows as they came, in blocks of metaBlock: grown as
// one slice, the copies left behind would be several times its size in
// garbage: append grows a large slice by a quarter at a time.
type metaList [][]postMeta

const metaBlock = 1024

func (l *metaList) add(p postMeta) {
	if n := len(*l); n == 0 || len((*l)[n-1]) == metaBlock {
		*l = append(*l, make([]postMeta, 0, metaBlock))
	}
	last := &(*l)[len(*l)-1]
	*last = append(*last, p)
}

// len is the number of postMeta in l.
func (l metaList) len() int {
	n := 0
	for _, b := range l {
		n += len(b)
	}
	return n
}

// all yields the postMeta of l in order.
func (l metaList) all() iter.Seq[postMeta] {
	return func(yield func(postMeta) bool) {
		for _, b := range l {
			for _, p := range b {
				if !yield(p) {
					return
				}
			}
		}
	}
}

// putMeta puts a post's rows into m, after those m holds of it (read
// earlier: in meta_id order).
func putMeta(m catalog.Meta, id int64, rows []catalog.MetaRow) {
	if prev, ok := m[id]; ok {
		rows = append(prev, rows...)
	}
	m[id] = rows
}

// metaPosts reads the keys' rows in the meta_id range that want accepts,
// each post's as it came (most posts' rows come together, in one
// postMeta): a whole load's ranges are put into one map, of the size
// of them all, rather than each into its own, grown as it was read, then
// merged.
func (tx *Tx) metaPosts(ctx context.Context, keys []string, span metaRange, want func(id int64, key string) bool) (metaList, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	var posts metaList
	// Millions of rows on a large shop: the keys are the asked ones, and
	// short values of some keys repeat ("instock", "", a few thousand
	// prices), so both are shared rather than allocated per row.
	values := newValueShare(len(keys))
	var (
		id       rowID
		key, val sql.RawBytes
	)
	// The rows of the last few posts are gathered in runs, and each
	// post's are copied out at once when it falls out of them:
	// one allocation of their size, where appending row by row left each
	// post's slice up to twice as large (room for 8 rows holding 6). A
	// post's rows follow each other in meta_id order but for a few
	// others' between them (WordPress saves a product's image, its file
	// a row of the attachment's, before the product's _thumbnail_id).
	var open runs
	// The keys are compared as bytes (binaryIn): the table's collation
	// (utf8mb4_unicode_520_ci, say) costs the server more on the scan of
	// millions of rows than a byte comparison, and matches keys
	// in another case, which are dropped below anyway (WordPress's meta
	// cache is a PHP array: its keys are exact). A NULL value is scanned
	// as nil, read as "" (no COALESCE for the server to evaluate).
	stmt := `SELECT post_id, meta_key, meta_value FROM {postmeta}
		WHERE meta_key IN (` + binaryIn(len(keys)) + `)`
	args := make([]any, 0, len(keys)+2)
	for _, k := range keys {
		args = append(args, k)
	}
	if span.from > 0 {
		stmt += ` AND meta_id >= ?`
		args = append(args, span.from)
	}
	if span.to > 0 {
		stmt += ` AND meta_id < ?`
		args = append(args, span.to)
	}
	err := tx.Each(ctx, stmt+` ORDER BY meta_id`, args, func(rows *sqlx.Rows) error {
		if err := rows.Scan(&id, &key, &val); err != nil {
			return err
		}
		k := slices.Index(keys, string(key))
		if k < 0 || !want(int64(id), keys[k]) {
			return nil // a key in another case (a server that matched it), or a row not wanted
		}
		open.add(&posts, int64(id), catalog.MetaRow{Key: keys[k], Value: values.share(k, val)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("wpdb: read post meta: %w", err)
	}
	open.flush(&posts, len(open.runs))
	return posts, nil
}

// binaryIn is n placeholders, each cast to a binary string: compared with
// a column of any character set and collation (utf8, utf8mb4, latin1),
// the comparison is of bytes, on MariaDB and MySQL alike (CAST, not the
// BINARY operator, which MySQL 8.0.27 deprecates; not COLLATE x_bin,
// whose name depends on the column's character set). The keys are ASCII:
// the same bytes in every one of those.
func binaryIn(n int) string {
	return strings.TrimSuffix(strings.Repeat(`CAST(? AS BINARY), `, n), `, `)
}

// valueShare shares the short values of a load's meta: prices repeat a
// few thousand strings over hundreds of thousands of rows (and _price
// repeats _regular_price's), but thumbnails' IDs and files' paths are
// each their post's own. A key whose values do not repeat stops being
// looked up once that shows: at shareProbe distinct values, fewer than
// one hit for every 16 of them (8 000 prices drawn at random have two
// for every five by then). Kept in the map, the unique values would make
// it hold a string per post, its lookups a large part of the read.
type valueShare struct {
	m            map[string]string
	hits, misses []int // per key
}

// shareProbe is how many distinct values of a key are shared before its
// hits decide whether it still is.
const shareProbe = 4096

// maxShared is the longest value shared: a long value (a file's path)
// seldom repeats.
const maxShared = 32

func newValueShare(keys int) *valueShare {
	return &valueShare{m: map[string]string{}, hits: make([]int, keys), misses: make([]int, keys)}
}

// share is the string of b, a value of the k-th key.
func (v *valueShare) share(k int, b []byte) string {
	if len(b) == 0 || len(b) > maxShared || (v.misses[k] >= shareProbe && v.hits[k]*16 < v.misses[k]) {
		return string(b)
	}
	if s, ok := v.m[string(b)]; ok {
		v.hits[k]++
		return s
	}
	v.misses[k]++
	s := string(b)
	v.m[s] = s
	return s
}

// openRuns is how many posts' rows runs gathers at once.
const openRuns = 4

// runs gathers the rows of the posts last read, oldest first.
type runs struct {
	runs  [openRuns]run
	count int
}

type run struct {
	id   int64
	rows []catalog.MetaRow // reused: out gets a copy
}

// add adds a row of post id, flushing the oldest run into out when id has
// none and every run is taken.
func (o *runs) add(out *metaList, id int64, r catalog.MetaRow) {
	for i := o.count - 1; i >= 0; i-- {
		if o.runs[i].id == id {
			o.runs[i].rows = append(o.runs[i].rows, r)
			return
		}
	}
	if o.count == openRuns {
		o.flush(out, 1)
	}
	o.runs[o.count].id = id
	o.runs[o.count].rows = append(o.runs[o.count].rows[:0], r)
	o.count++
}

// flush copies the n oldest runs to out, each at its size.
func (o *runs) flush(out *metaList, n int) {
	n = min(n, o.count)
	for i := range n {
		r := &o.runs[i]
		out.add(postMeta{r.id, slices.Clone(r.rows)})
	}
	// The buffers move to the back for reuse rather than being dropped.
	var freed [openRuns]run
	copy(freed[:], o.runs[:n])
	copy(o.runs[:], o.runs[n:o.count])
	copy(o.runs[o.count-n:], freed[:n])
	o.count -= n
}

// dropBare leaves out of m the rows that are as good as none (an empty
// value, the post's only row of a key not in lists: First reads "" either
// way), each post's rows copied anew at their size where it had some. A
// post keeps its entry, empty or not. Each row is judged once (a row with
// a value at a glance), into a mask reused from post to post.
func dropBare(m catalog.Meta, lists []string) {
	var drop []bool
	for id, rows := range m {
		drop = slices.Grow(drop[:0], len(rows))[:len(rows)]
		n := 0
		for i := range rows {
			drop[i] = rows[i].Value == "" && bare(rows, i, lists)
			if drop[i] {
				n++
			}
		}
		if n == 0 {
			continue
		}
		kept := make([]catalog.MetaRow, 0, len(rows)-n)
		for i, r := range rows {
			if !drop[i] {
				kept = append(kept, r)
			}
		}
		m[id] = kept
	}
}

// bare reports whether rows[i] is as good as none: empty, of a key not in
// lists, and its post's only row of that key.
func bare(rows []catalog.MetaRow, i int, lists []string) bool {
	r := rows[i]
	if r.Value != "" || slices.Contains(lists, r.Key) {
		return false
	}
	for j, o := range rows {
		if j != i && o.Key == r.Key {
			return false
		}
	}
	return true
}

// shared is m's copy of b's string, b's made and kept when m has none: a
// whole load's rows repeat a few strings (types, statuses, stock states,
// prices) a hundred thousand times over.
func shared(m map[string]string, b []byte) string {
	if s, ok := m[string(b)]; ok {
		return s
	}
	s := string(b)
	m[s] = s
	return s
}
