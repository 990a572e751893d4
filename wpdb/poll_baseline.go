package wpdb

import (
	"context"
	"log/slog"
	"sync"
	"time"

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
// builds the baseline from the rows it reads anyway: its one pass over
// the product and variation posts (productPosts) keeps, beside the
// published products and their variations, the others (products not
// published, their variations, variations of no product). It hands it
// over (deliverBaseline) when the load succeeds. The poller adopts it at its next
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
	// rest are the product and variation posts the load reads besides
	// the published products and their variations (productPosts): the
	// products not published, their variations, and variations of no
	// product.
	rest []productRow
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

// finish builds the baseline from the posts the load read: its published
// products and their variations (rows.Posts and rows.Related, before
// grouped children join Related) and the other product and variation
// posts productPosts put in rest.
func (br *baselineRead) finish(rows *catalog.ProductRows) {
	if br == nil {
		return
	}
	m := make(map[int64]scanState, len(rows.Posts)+len(rows.Related)+len(br.rest))
	for _, ps := range [][]catalog.Post{rows.Posts, rows.Related} {
		for _, p := range ps {
			m[p.ID] = stateOf(p.Parent, p.Modified, p.Status, p.Type)
		}
	}
	for _, r := range br.rest {
		m[r.ID] = stateOf(r.Parent, r.Modified, r.Status, r.Type)
	}
	br.rest = nil
	br.b.rows = m
}

// deliver hands the baseline over once the load succeeded.
func (br *baselineRead) deliver(db *DB) {
	if br != nil && br.b.rows != nil {
		db.deliverBaseline(br.b)
	}
}

// baseline reads the cheap round's state and asks the next whole load for
// the scan's; it reports nothing.
func (p *Poller) baseline(ctx context.Context) error {
	if _, err := p.round(ctx, true); err != nil {
		return err
	}
	p.rows, p.pending, p.stampAt, p.measured = nil, nil, time.Time{}, false
	p.deltaFrom, p.fullCost = "", 0
	p.request, p.asked, p.awaiting = p.db.askBaseline(), p.o.Now(), true
	p.started = true
	return nil
}

// scanBaselined says whether the scan has its baseline, adopting the one
// a whole load delivered for the request. Without one the scan waits; the
// cheap rounds go on. A poller that no load serves for MaxScan (the loads
// keep failing, or nobody loads) takes its own by a scan, as before the
// loads delivered one, and still adopts the load's when it comes: a
// baseline older than the poller's own only reports more.
func (p *Poller) scanBaselined(ctx context.Context) bool {
	if !p.awaiting {
		return true
	}
	if b := p.db.takeBaseline(p.request); b != nil {
		p.adopt(b)
		return true
	}
	if p.rows == nil && p.o.Now().Sub(p.asked) >= p.o.MaxScan {
		slog.DebugContext(ctx, "poll: no whole load delivered the scan's baseline; scanning for it", "asked", p.asked)
		_, _ = p.scan(ctx) // failed: tried again at the next round
		return false
	}
	return p.rows != nil
}

// adopt makes a load's baseline the scan's, as if a scan had read it at
// the load's instant, except for what it cost: not a scan's (the load's
// seconds would put the next scan minutes away), so the cost is taken as
// unknown: the period is Interval, the bucket holds the budget's share of
// MaxScan, and the first scan measures the cost, banks as a first scan
// does and sets the period.
func (p *Poller) adopt(b *scanBaseline) {
	at := p.o.Now()
	p.awaiting = false
	p.rows = b.rows
	p.addPending(b.rows, nil, true, b.dbNow, at)
	p.noteStamp(b.updated, b.localNow, at)
	p.gateWorks, p.scanUpdated = b.gate, b.updated
	// A round may have read a newer UPDATE_TIME than the load's; an older
	// one says nothing the load's does not.
	if packTime(b.updated) >= packTime(p.roundUpdated) {
		p.roundUpdated = b.updated
	}
	p.scanUnsure = unsureUpdate(b.updated, b.localNow)
	p.scanCost, p.measured = 0, false
	p.period = p.o.Interval
	p.nextScan = at.Add(p.period)
	p.accrue(at)
	p.tokens = p.bucketCap(0)
	p.lastScan = at
	// The load read every product post: the delta's window starts at its
	// clock, and the full scan behind the delta counts from it.
	p.deltaFrom, p.lastFull = b.dbNow, at
	slog.Debug("poll: the scan's baseline is the whole load's", "posts", len(b.rows))
}
