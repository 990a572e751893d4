// Package poll is the change feed (catalog.Feed) that polls the shop's
// database where its binary log cannot be followed: its statements, run
// through package wpdb, and its schedule within a budget of the
// database's time.
package poll

import (
	"context"
	"log/slog"
	"time"

	"catalogd/catalog"
	"catalogd/wpdb"
)

// Poller is the change feed for databases catalogd cannot follow the binary
// log of: it asks the database, with no grant beyond SELECT, and keeps at
// most Budget of one database core busy on average (budget.go). Every
// Interval a cheap round (round.go) reads, through indexes whose cost does
// not grow with the shop, the options, terms, attribute table, new and
// scheduled products and published drafts. An edit of an existing product
// is the full scan's (scan.go), run when the gate (gate.go: wp_posts'
// UPDATE_TIME) moved and the budget pays, or the delta's (delta.go) where
// the owner indexed post_modified_gmt; the scan's first baseline is the
// first whole load's (baseline.go). What shows when, and what shows
// nowhere: docs/change-feed.md#polling. One goroutine uses a Poller:
// Start, then Run.
type Poller struct {
	db    *wpdb.DB
	reads catalog.Reads
	o     Options

	started bool // the cheap round's baseline is taken, the scan's asked for
	// The scan's baseline is asked of the next whole load (request: its
	// generation in slot, asked: when) until one is adopted (awaiting);
	// withdraw stops the DB's loads asking the poller. See
	// baseline.go.
	slot     baselineSlot
	request  uint64
	asked    time.Time
	awaiting bool
	withdraw func()
	// The cheap round's baseline.
	options      map[string]string // option name → digest
	terms, attrs string
	maxID        int64
	future       map[int64]bool
	fresh        map[int64]freshPost
	// The scan's baseline.
	rows     map[int64]scanState
	pending  map[int64]pendingRow // saved lately (settle.go)
	nextScan time.Time
	period   time.Duration
	// roundCost is the cheap rounds' recent database time, each with the
	// gate reads after it (a moving average), which the scan's budget
	// leaves to them; gateSpent the gate reads' since the last round.
	roundCost, gateSpent time.Duration
	// The gate (scanDue, gate.go): wp_posts' UPDATE_TIME as the last
	// round and the last scan read it, whether the scan's was within the
	// second it was read in, whether the server gives one at all, and when
	// the scan's second began on Now's clock (settleDue).
	roundUpdated, scanUpdated string
	scanUnsure, gateWorks     bool
	stampAt                   time.Time
	// The bucket (budget.go): the scan's unspent database time, in
	// seconds, as of accrued; the last scan's cost and time.
	tokens   float64
	accrued  time.Time
	scanCost time.Duration
	lastScan time.Time
	// measured: a scan ran since the baseline, so scanCost is a scan's
	// (a baseline from a load says nothing of what a scan costs).
	measured bool
	// The delta (delta.go): the posts table's index on
	// post_modified_gmt ("" without one), the database's UTC clock when
	// the last read of the shop's rows began (the delta's window ends
	// there), and the full scan behind the delta: when it last ran and
	// what it cost.
	index     string
	deltaFrom string
	lastFull  time.Time
	fullCost  time.Duration
}

// Options tune a Poller. Zero values take the defaults.
type Options struct {
	Interval time.Duration // between cheap rounds; 2 s
	// Gate is how often the poller reads wp_posts' UPDATE_TIME: each tick
	// of it is either a cheap round (which reads it too) or, between two,
	// a gate read alone (one information_schema lookup) that starts the
	// product scan sooner; Interval/4 by default (three gate reads between
	// two rounds). Gate = Interval: no gate reads.
	Gate time.Duration
	// Budget is the fraction of one database core the poller may keep
	// busy, cheap rounds and scans together; 0.01 (10 ms per second).
	Budget  float64
	MaxScan time.Duration    // longest period between two full scans; 5 min
	Now     func() time.Time // the clock that schedules the scans; time.Now
	// OnPoll, when set, is told of every cheap round and every scan.
	OnPoll func(Stats)
}

// Stats describes one cheap round or one full scan, for the metrics.
type Stats struct {
	Scan  bool // a full scan, or with Delta the products saved lately
	Delta bool // a delta: the products saved lately, through the index (delta.go)
	Gate  bool // a gate read alone (see Options.Gate); neither: a cheap round
	// DBTime is the wall time of its read-only transaction (begin, the
	// statements, their rows, rollback): the database time it cost.
	DBTime time.Duration
	// Period is the scan period in force after it.
	Period time.Duration
	// Changes is how many changes it reported.
	Changes int
	// Err is why it failed, if it did: nothing changed, and the next
	// interval tries again.
	Err error
}

// Poll defaults.
const (
	DefaultInterval = 2 * time.Second
	DefaultBudget   = 0.01
	DefaultMaxScan  = 5 * time.Minute
)

// New returns a poller of the database that watches what reads
// declares (catalog.ShopReads in catalogd).
func New(db *wpdb.DB, reads catalog.Reads, o Options) *Poller {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.MaxScan <= 0 {
		o.MaxScan = DefaultMaxScan
	}
	if o.MaxScan < o.Interval {
		o.MaxScan = o.Interval
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Gate <= 0 || o.Gate > o.Interval {
		o.Gate = o.Interval / 4
	}
	if o.OnPoll == nil {
		o.OnPoll = func(Stats) {}
	}
	return &Poller{db: db, reads: reads, o: o, period: o.Interval}
}

// Name implements catalog.Feed.
func (p *Poller) Name() string { return "poll" }

// Start takes the cheap round's baseline and asks the next whole load
// (LoadShop) for the scan's, read in that load's own snapshot: Run reports
// what changes after it. Start itself does not scan: a large shop's scan
// would hold the first load up. Called again (the follower restarting its
// feed), it asks again.
func (p *Poller) Start(ctx context.Context) error {
	return p.baseline(ctx)
}

// Run polls every Interval until ctx ends, and returns its error. A round
// that fails changes nothing and is tried again at the next interval. If
// Start failed, the first round that can read the shop takes the baseline
// and reports that anything may have changed.
func (p *Poller) Run(ctx context.Context, h catalog.ChangeHandler) error {
	// A scan baseline asked for and not adopted is nobody's once Run
	// ends, and the loads no longer ask the poller.
	defer func() {
		if p.awaiting {
			p.slot.drop(p.request)
		}
		if p.withdraw != nil {
			p.withdraw()
			p.withdraw = nil
		}
	}()
	// One ticker: a round reads the gate too, so a gate read at a round's
	// tick would be the same read twice.
	t := time.NewTicker(p.o.Gate)
	defer t.Stop()
	s := schedule{interval: p.o.Interval, gate: p.o.Gate, next: time.Now().Add(p.o.Interval)}
	for {
		var changes []catalog.Change
		select {
		case <-ctx.Done():
			return ctx.Err()
		case now := <-t.C:
			if s.round(now) {
				changes = p.pollOnce(ctx)
			} else {
				changes = p.gateOnce(ctx)
			}
		}
		for _, c := range changes {
			h.OnChange(c)
		}
	}
}

// schedule says which ticks of the gate's ticker are the cheap rounds':
// the first tick within half a gate of the round's time. The rounds keep
// Interval on average when Gate does not divide it.
type schedule struct {
	interval, gate time.Duration
	next           time.Time // the next round's time
}

// round says whether the tick at now is a round (and moves to the next);
// false: a gate read.
func (s *schedule) round(now time.Time) bool {
	if now.Before(s.next.Add(-s.gate / 2)) {
		return false
	}
	s.next = s.next.Add(s.interval)
	if !s.next.After(now) { // ticks were dropped (a slow round): start again from now
		s.next = now.Add(s.interval)
	}
	return true
}

// failed logs and reports a round, gate read or scan (s says which, and
// its cost) that could not read the shop.
func (p *Poller) failed(ctx context.Context, s Stats, err error) {
	slog.DebugContext(ctx, "poll: the shop cannot be read", "scan", s.Scan, "gate", s.Gate, "err", err)
	s.Period, s.Err = p.period, err
	p.o.OnPoll(s)
}
