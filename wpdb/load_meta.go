package wpdb

import (
	"context"
	"fmt"
	"sync"

	"catalogd/catalog"
)

// metaStreams is how many connections a whole load reads the post meta on,
// beside the one reading everything else: the meta pass is a scan of the
// whole postmeta table's primary key (a million wanted rows among four
// million at 100 000 products, the meta_key index's lookups being four
// times slower), the longest statement of a load; split into ranges of
// meta_id read at once, and alongside the posts, it no longer adds up.
const metaStreams = 2

// streams is how many meta streams a load may open within the pool's cap,
// leaving the load's main connection its own: none (the meta read in the
// main transaction, as one consistent read) when the pool has no room.
func (db *DB) streams() int {
	return min(metaStreams, db.maxOpen-1)
}

// metaRanges splits the post meta table's meta_id span into n ranges of
// about equal width, the first and last open-ended, so that a row added
// after the bounds were read is in the last.
func (db *DB) metaRanges(ctx context.Context, n int) ([]metaRange, error) {
	var lo, hi int64
	err := db.view(ctx, db.load, func(ctx context.Context, tx *Tx) error {
		tx.stmt = db.load // the load's deadline, as every statement of a load
		var b struct {
			Lo int64 `db:"lo"`
			Hi int64 `db:"hi"`
		}
		if err := tx.getx(ctx, &b, `SELECT COALESCE(MIN(meta_id), 0) AS lo, COALESCE(MAX(meta_id), 0) AS hi FROM {postmeta}`); err != nil {
			return fmt.Errorf("wpdb: read post meta bounds: %w", err)
		}
		lo, hi = b.Lo, b.Hi
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n < 2 || hi-lo < int64(n) {
		return []metaRange{{}}, nil
	}
	out := make([]metaRange, n)
	width := (hi - lo + 1) / int64(n)
	for i := range out {
		if i > 0 {
			out[i].from = lo + int64(i)*width
			out[i-1].to = out[i].from
		}
	}
	return out, nil
}

// streamMeta reads every row of the keys, whoever's, over the ranges at
// once, each range in its own read-only transaction under the load's
// deadline, and joins them in meta_id order.
func (db *DB) streamMeta(ctx context.Context, keys []string, ranges []metaRange) (catalog.Meta, error) {
	parts := make([]catalog.Meta, len(ranges))
	errs := make([]error, len(ranges))
	all := func(int64, string) bool { return true }
	var wg sync.WaitGroup
	for i, span := range ranges {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.view(ctx, db.load, func(ctx context.Context, tx *Tx) error {
				tx.stmt = db.load
				var err error
				parts[i], err = tx.metaByKey(ctx, keys, span, all)
				return err
			})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	// The ranges are in meta_id order, and so is each range's every post:
	// a post's rows in a later range come after its rows in an earlier.
	m := parts[0]
	for _, p := range parts[1:] {
		for id, rows := range p {
			m[id] = append(m[id], rows...)
		}
	}
	return m, nil
}

// metaResult is the meta streams' answer.
type metaResult struct {
	meta catalog.Meta
	err  error
}
