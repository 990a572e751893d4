package poll

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"catalogd/catalog"
	"catalogd/wpdb"
)

// The poll feed's scan baseline, taken by the first whole load after Start
// (catalog.Baseliner; docs/change-feed.md#polling). A baseline read at a
// whole load's instant is exactly right: a change committed after it
// differs and is reported, one before is in the load. So Start does not
// scan (that scan would hold the first load up): it asks (slot.ask, the
// DB's AskBaseline), and the next whole load hands it the product and
// variation posts its one pass reads anyway, on success (Done). Until the
// poller adopts it the scan waits; the cheap rounds run.
//
// The gate (UPDATE_TIME, not versioned) is read before the load's snapshot
// opens, as the scan reads it before its rows: a commit in between makes
// the next scan run, never the other way round.

// baselineSlot is the poller's request and the baseline a load delivered
// for it. The loads run on goroutines of their own.
type baselineSlot struct {
	mu    sync.Mutex
	asked uint64 // the latest request's generation; 0: none yet
	open  bool   // the latest request is not delivered yet
	got   *scanBaseline
}

// scanBaseline is what a scan would have read at a load's instant: the
// poller's catalog.Baseline.
type scanBaseline struct {
	slot *baselineSlot
	gen  uint64
	rows map[int64]scanState
	// The gate's reading before the snapshot (updated, the server's local
	// clock then, whether the server shows one), and the database's UTC
	// clock within it.
	updated, localNow, dbNow string
	gate                     bool
}

// ask asks the next whole load for a scan baseline, dropping any
// delivered for an earlier request, and returns the request's generation.
func (s *baselineSlot) ask() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	s.open, s.got = true, nil
	return s.asked
}

// wanted returns the generation of an undelivered request, or 0: a load
// asks before it opens its snapshot.
func (s *baselineSlot) wanted() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.open {
		return 0
	}
	return s.asked
}

// deliver takes a load's baseline, unless a newer request came meanwhile
// (it asks for a load that begins after it) or a load already delivered.
func (s *baselineSlot) deliver(b *scanBaseline) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open && b.gen == s.asked {
		s.open, s.got = false, b
	}
}

// take returns the baseline delivered for the request gen (or a later
// one: its load began after gen's request too), once; nil while there is
// none.
func (s *baselineSlot) take(gen uint64) *scanBaseline {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.got
	if b == nil || b.gen < gen {
		return nil
	}
	s.got = nil
	return b
}

// drop withdraws the request gen, if it is the latest, and the baseline
// delivered for it: the poller stopped (its Run ended; the follower may
// follow the binary log now), and a baseline left in the slot would hold
// a map of every product post for good.
func (s *baselineSlot) drop(gen uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != 0 && s.asked == gen {
		s.open, s.got = false, nil
	}
}

// Baseline implements catalog.Baseliner: while a request is open, it
// reads the gate for a load about to open its snapshot; nil (and no read)
// otherwise.
func (p *Poller) Baseline(ctx context.Context) (catalog.Baseline, error) {
	gen := p.slot.wanted()
	if gen == 0 {
		return nil, nil
	}
	b := &scanBaseline{slot: &p.slot, gen: gen}
	err := p.db.View(ctx, func(ctx context.Context, tx *wpdb.Tx) error {
		var err error
		b.updated, b.localNow, b.gate, err = tx.PostsUpdated(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Clock implements catalog.Baseline.
func (b *scanBaseline) Clock(utcNow string) {
	b.dbNow = utcNow
}

// Posts implements catalog.Baseline: the load's product and variation
// posts as a scan would have read them.
func (b *scanBaseline) Posts(posts ...[]catalog.Post) {
	n := 0
	for _, ps := range posts {
		n += len(ps)
	}
	m := make(map[int64]scanState, n)
	for _, ps := range posts {
		for _, p := range ps {
			m[p.ID] = stateOf(p.Parent, p.Modified, p.Status, p.Type)
		}
	}
	b.rows = m
}

// Done implements catalog.Baseline.
func (b *scanBaseline) Done() {
	if b.rows != nil {
		b.slot.deliver(b)
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
	p.request, p.asked, p.awaiting = p.slot.ask(), p.o.Now(), true
	p.withdraw = p.db.AskBaseline(p)
	p.started = true
	return nil
}

// scanBaselined says whether the scan has its baseline, adopting the one
// a whole load delivered for the request. Without one the scan waits; the
// cheap rounds go on. A poller that no load serves for MaxScan (the loads
// keep failing, or nobody loads) takes its own by a scan, and still
// adopts the load's when it comes: a baseline older than the poller's own
// only reports more.
func (p *Poller) scanBaselined(ctx context.Context) bool {
	if !p.awaiting {
		return true
	}
	if b := p.slot.take(p.request); b != nil {
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
