package wpdb

import (
	"context"
	"sync"

	"catalogd/catalog"
)

// A whole load's part in a change feed's baseline (catalog.Baseliner):
// the feed that asked (AskBaseline) is asked by every whole load about to
// open its snapshot, and what it wants is read in that snapshot: the
// database's clock as the load's first statement, and the product and
// variation posts the load does not hand over, which productPosts reads
// in its one pass with the others. No feed asking, or one that has its
// baseline: no statement more.

var _ catalog.BaselineSource = (*DB)(nil)

// baseliner is the feed the whole loads ask, if any.
type baseliner struct {
	mu sync.Mutex
	b  catalog.Baseliner
}

// AskBaseline implements catalog.BaselineSource.
func (db *DB) AskBaseline(b catalog.Baseliner) (withdraw func()) {
	s := &db.baseliner
	s.mu.Lock()
	s.b = b
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.b == b {
			s.b = nil
		}
	}
}

// baselineRead is a load's part of a feed's baseline.
type baselineRead struct {
	b catalog.Baseline
	// rest are the product and variation posts the load reads besides
	// the published products and their variations (productPosts): the
	// products not published, their variations, and variations of no
	// product.
	rest []catalog.Post
}

// beginBaseline asks the feed, if any, what the load about to open its
// snapshot takes for it; nil (and no read) when nothing.
func (db *DB) beginBaseline(ctx context.Context) (*baselineRead, error) {
	db.baseliner.mu.Lock()
	f := db.baseliner.b
	db.baseliner.mu.Unlock()
	if f == nil {
		return nil, nil
	}
	b, err := f.Baseline(ctx)
	if err != nil || b == nil {
		return nil, err
	}
	return &baselineRead{b: b}, nil
}

// clock reads the database's UTC clock in the load's transaction; its
// first read of a table, so in a transaction that takes its snapshot at
// its first read (the one-transaction load) that read is now, and after
// it the snapshot stands.
func (br *baselineRead) clock(ctx context.Context, tx *Tx) error {
	if br == nil {
		return nil
	}
	var now string
	if _, err := tx.MaxPostID(ctx, &now); err != nil {
		return err
	}
	br.b.Clock(now)
	return nil
}

// finish gives the feed the posts the load read: its published products
// and their variations (rows.Posts and rows.Related, before grouped
// children join Related) and the other product and variation posts
// productPosts put in rest.
func (br *baselineRead) finish(rows *catalog.ProductRows) {
	if br == nil {
		return
	}
	br.b.Posts(rows.Posts, rows.Related, br.rest)
	br.rest = nil
}

// deliver hands the baseline over once the load succeeded.
func (br *baselineRead) deliver() {
	if br != nil {
		br.b.Done()
	}
}
