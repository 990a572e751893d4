package wpdb

import (
	"context"
	"fmt"
	"sync"

	"catalogd/catalog"
)

// The poll feed's scan baseline, taken by the first whole load after Start.
//
// The scan reports every product and variation post whose parent,
// modified time, status or type differs from its baseline. A baseline
// read at the instant of a whole load is exactly right: a change
// committed after that instant differs from it and is reported; one
// committed before is in the load. So Start no longer scans (at 100 000
// products 0.25 to 0.6 s before the first load could begin): it asks
// (askBaseline), and the next whole load that begins after the request
// builds the baseline from the rows it reads anyway (the published
// products, every variation of a published product), plus one small read
// in the same snapshot of the product posts it does not read (products
// not published, the variations of those), and hands it over
// (deliverBaseline) when it succeeds. The poller adopts it at its next
// round or gate read; until then its cheap rounds run and the scan waits.
// No request, no extra read: the binary log feed, and every load after
// the one that delivered, pay nothing.
//
// The gate (wp_posts' UPDATE_TIME, which is not versioned) is read before
// the load's snapshot is opened, on a connection outside it, as the scan
// reads it before its rows: a commit after the reading moves it, so a
// commit that falls between the reading and the snapshot makes the next
// scan run (and find nothing, or what the load also read), never the
// other way round.

// baselineSlot is the request of a poller on this DB and the baseline a
// load delivered for it.
type baselineSlot struct {
	mu    sync.Mutex
	asked uint64 // the latest request's generation; 0: none yet
	open  bool   // the latest request is not delivered yet
	got   *scanBaseline
}

// scanBaseline is what a scan would have read at a load's instant.
type scanBaseline struct {
	gen  uint64
	rows map[int64]scanState
	// The gate's reading before the snapshot (updated, the server's local
	// clock then, whether the server shows one), and the database's UTC
	// clock within it.
	updated, localNow, dbNow string
	gate                     bool
}

// askBaseline asks the next whole load for a scan baseline, dropping any
// delivered for an earlier request, and returns the request's generation.
func (db *DB) askBaseline() uint64 {
	s := &db.baseline
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	s.open, s.got = true, nil
	return s.asked
}

// baselineWanted returns the generation of an undelivered request, or 0:
// a load checks it before it opens its snapshot.
func (db *DB) baselineWanted() uint64 {
	s := &db.baseline
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.open {
		return 0
	}
	return s.asked
}

// deliverBaseline hands over a load's baseline, unless a newer request
// came meanwhile (it asks for a load that begins after it) or a load
// already delivered.
func (db *DB) deliverBaseline(b *scanBaseline) {
	s := &db.baseline
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open && b.gen == s.asked {
		s.open, s.got = false, b
	}
}

// takeBaseline returns the baseline delivered for the request gen (or a
// later one: its load began after gen's request too), once; nil while
// there is none.
func (db *DB) takeBaseline(gen uint64) *scanBaseline {
	s := &db.baseline
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.got
	if b == nil || b.gen < gen {
		return nil
	}
	s.got = nil
	return b
}

// dropBaseline withdraws the request gen, if it is the latest, and the
// baseline delivered for it: the poller that asked stopped (its Run
// ended; the follower may follow the binary log now), and a baseline left
// in the slot would hold a map of every product post for good.
func (db *DB) dropBaseline(gen uint64) {
	s := &db.baseline
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != 0 && s.asked == gen {
		s.open, s.got = false, nil
	}
}

// baselineRead is a load's part of a requested baseline: begin reads the
// gate before the snapshot, clock the clock within it, rest the posts
// the load does not read, and finish assembles it from the load's rows.
type baselineRead struct {
	b *scanBaseline
	// What rest read: the posts, and how many variations there are and
	// how many of them are in rest (readRest: those of products not
	// published; productPosts, the streams' one pass: every variation of
	// no published product, orphans included).
	rest                []productRow
	variations, ofDraft int
}

// beginBaseline reads the gate for a load about to open its snapshot; nil
// (and no read) when no poller asked.
func (db *DB) beginBaseline(ctx context.Context) (*baselineRead, error) {
	gen := db.baselineWanted()
	if gen == 0 {
		return nil, nil
	}
	b := &scanBaseline{gen: gen}
	err := db.View(ctx, func(ctx context.Context, tx *Tx) error {
		var err error
		b.updated, b.localNow, b.gate, err = tx.postsUpdated(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &baselineRead{b: b}, nil
}

// clock reads the database's UTC clock in the load's transaction; its
// first read of a table, so in a transaction that takes its snapshot at
// its first read (the one-transaction load) that read is now, and after
// it the snapshot stands (where afterSnapshot, in tests, commits).
func (br *baselineRead) clock(ctx context.Context, tx *Tx) error {
	if br == nil {
		return nil
	}
	if _, err := tx.maxPostID(ctx, &br.b.dbNow); err != nil {
		return err
	}
	if tx.db.afterSnapshot != nil {
		tx.db.afterSnapshot()
	}
	return nil
}

// readRest reads what the load does not: the count of every variation,
// and the products not published with their variations (through the
// type_status_date and post_parent indexes: a few rows on most shops).
func (br *baselineRead) readRest(ctx context.Context, tx *Tx) error {
	if err := tx.getx(ctx, &br.variations, `SELECT COUNT(*) FROM {posts} WHERE post_type = 'product_variation'`); err != nil {
		return fmt.Errorf("wpdb: count variations: %w", err)
	}
	err := tx.eachProductRow(ctx, `
		SELECT ID, post_parent, post_type, post_status, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt
		FROM {posts} WHERE post_type = 'product' AND post_status <> 'publish'
		UNION ALL
		SELECT v.ID, v.post_parent, v.post_type, v.post_status, CAST(v.post_modified_gmt AS CHAR)
		FROM {posts} p JOIN {posts} v ON v.post_parent = p.ID
		WHERE p.post_type = 'product' AND p.post_status <> 'publish' AND v.post_type = 'product_variation'`, nil,
		func(r productRow) {
			if r.Type == "product_variation" {
				br.ofDraft++
			}
			br.rest = append(br.rest, r)
		})
	if err != nil {
		return fmt.Errorf("wpdb: read the products not published: %w", err)
	}
	return nil
}

// finish builds the baseline from the load's published products and
// their variations (rows.Posts and rows.Related as the load read them,
// before grouped children join Related) and what readRest read. The
// variations whose parent is no product at all (deleted, or not a
// product) are in neither: when the count says there are some, they are
// read here, in the same snapshot, by a pass over the variations (a shop
// whose products were deleted without their variations pays it, on one
// transaction; a load on streams read them with the rest).
func (br *baselineRead) finish(ctx context.Context, tx *Tx, rows *catalog.ProductRows) error {
	if br == nil {
		return nil
	}
	m := make(map[int64]scanState, len(rows.Posts)+len(rows.Related)+len(br.rest))
	for _, ps := range [][]catalog.Post{rows.Posts, rows.Related} {
		for _, p := range ps {
			m[p.ID] = stateOf(p.Parent, p.Modified, p.Status, p.Type)
		}
	}
	add := func(r productRow) { m[r.ID] = stateOf(r.Parent, r.Modified, r.Status, r.Type) }
	for _, r := range br.rest {
		add(r)
	}
	if len(rows.Related)+br.ofDraft < br.variations {
		err := tx.eachProductRow(ctx, `
			SELECT v.ID, v.post_parent, v.post_type, v.post_status, CAST(v.post_modified_gmt AS CHAR)
			FROM {posts} v LEFT JOIN {posts} p ON p.ID = v.post_parent AND p.post_type = 'product'
			WHERE v.post_type = 'product_variation' AND p.ID IS NULL`, nil, add)
		if err != nil {
			return fmt.Errorf("wpdb: read the variations of no product: %w", err)
		}
	}
	br.rest = nil
	br.b.rows = m
	return nil
}

// deliver hands the baseline over once the load succeeded.
func (br *baselineRead) deliver(db *DB) {
	if br != nil && br.b.rows != nil {
		db.deliverBaseline(br.b)
	}
}
