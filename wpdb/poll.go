package wpdb

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"time"

	"catalogd/catalog"
	"catalogd/internal/nametable"
)

// Poller is the change feed for databases catalogd cannot follow the binary
// log of: it asks the database, with no grant beyond SELECT.
//
// Every Interval it runs a cheap round, a few reads through indexes whose
// cost does not grow with the shop, in one read-only transaction:
//
//   - the options of catalog.Reads by name (never a transient: under a
//     persistent object cache they are not in the options table): a change
//     reloads everything (catalog.KindOption);
//   - the terms of Reads.Taxonomies (name, slug, parent, order; never their
//     counts) and the attribute table: everything (KindTerm, KindTable);
//   - the highest post ID: the product and variation posts created since
//     the last round, by primary key range (KindProduct);
//   - the scheduled ('future') products through the type_status_date index:
//     one leaving the set was published by WordPress's cron, which changes
//     its status and nothing else;
//   - the products created since Start that were not yet published
//     (auto-draft, draft, pending), by primary key: the admin's "Add new"
//     stores an auto-draft first and publishes that same row later.
//
// What the cheap round cannot see (an edit of an existing product, a trash,
// a permanent delete) the full scan sees: every product and variation
// post's status and post_modified_gmt, compared row by row with the last
// scan. Where the server keeps wp_posts' UPDATE_TIME (InnoDB, MariaDB and
// MySQL 8), each cheap round reads it (and a gate read between rounds, at
// every tick of Gate that is not a round's), and the scan runs when it moved
// (or a commit it hides may come: poll_settle.go), at once while the budget
// banked in a quiet time pays for it (scanDue); elsewhere it runs on a
// period that adapts to its own cost.
// Either way the poller spends at most Budget of one database core on
// average (see scanPeriod, bucketCap). The scan's first baseline is not a
// scan: the first whole load after Start reads it in its own snapshot
// (poll_baseline.go).
//
// What shows when (for docs/change-feed.md's table):
//
//	within one Interval (cheap round)     at the next scan: one Interval on a
//	                                      quiet shop with the gate, else the
//	                                      scan period
//	------------------------------------  ------------------------------------
//	an option of Reads.Options changed    a product or variation saved (price,
//	a term renamed, re-parented, ordered  stock, sale, texts, image, terms,
//	the attribute table changed           visibility: every WooCommerce save
//	a product or variation created        moves post_modified_gmt)
//	a scheduled product gone live         trashed, restored, drafted, private
//	an "Add new" draft published          deleted permanently
//
// A raw SQL edit of post meta or term relationships that touches no posts
// row shows nowhere, as with the change signature before it. On the 100k
// shop of make bench (453 500 posts) the scan cost 0.8 to 0.9 s on a
// MariaDB whose default 128 MB buffer pool cannot hold the posts table:
// a period of 85 to 105 s at the default budget. The scan costs what the
// change signature cost at every poll.
//
// A Poller is used by one goroutine: Start, then Run.
type Poller struct {
	db    *DB
	reads catalog.Reads
	o     PollOptions

	started bool // the cheap round's baseline is taken, the scan's asked for
	// The scan's baseline is asked of the next whole load (request: its
	// generation on the DB, asked: when) until one is adopted (awaiting);
	// see poll_baseline.go.
	request  uint64
	asked    time.Time
	awaiting bool
	// The cheap round's baseline.
	options      map[string]string // option name → digest
	terms, attrs string
	maxID        int64
	future       map[int64]bool
	fresh        map[int64]freshPost
	// The scan's baseline.
	rows     map[int64]scanState
	pending  map[int64]pendingRow // saved lately (poll_settle.go)
	nextScan time.Time
	period   time.Duration
	// roundCost is the cheap rounds' recent database time (a moving
	// average), which the scan's budget leaves to them.
	roundCost time.Duration
	// The gate (see scanDue): wp_posts' UPDATE_TIME as the last round and
	// the last scan read it, whether the scan's was within the second it
	// was read in, whether the server gives one at all, and when the
	// scan's second began on Now's clock (settleDue).
	roundUpdated, scanUpdated string
	scanUnsure, gateWorks     bool
	stampAt                   time.Time
	// The bucket: the scan's unspent database time, in seconds, as of
	// accrued; the last scan's cost and time.
	tokens   float64
	accrued  time.Time
	scanCost time.Duration
	lastScan time.Time
	// measured: a scan ran since the baseline, so scanCost is a scan's
	// (a baseline from a load says nothing of what a scan costs).
	measured bool
}

// PollOptions tune a Poller. Zero values take the defaults.
type PollOptions struct {
	Interval time.Duration // between cheap rounds; 2 s
	// Gate is how often the poller reads wp_posts' UPDATE_TIME: each tick
	// of it is either a cheap round (which reads it too) or, between two,
	// a gate read alone (one information_schema lookup, a fraction of a
	// millisecond) that starts the product scan sooner; Interval/4 by
	// default (three gate reads between two rounds). Gate = Interval: no
	// gate reads.
	Gate time.Duration
	// Budget is the fraction of one database core the poller may keep
	// busy, cheap rounds and scans together; 0.01 (10 ms per second).
	Budget  float64
	MaxScan time.Duration    // longest period between two full scans; 5 min
	Now     func() time.Time // the clock that schedules the scans; time.Now
	// OnPoll, when set, is told of every cheap round and every scan.
	OnPoll func(PollStats)
}

// PollStats describes one cheap round or one full scan, for the metrics.
type PollStats struct {
	Scan bool // a full scan
	Gate bool // a gate read alone (see PollOptions.Gate); neither: a cheap round
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
	DefaultPollInterval = 2 * time.Second
	DefaultPollBudget   = 0.01
	DefaultPollMaxScan  = 5 * time.Minute
)

// scanSlice is how many post IDs one statement of the scan covers: on the
// 100k shop of make bench (453 500 posts), a fifth of the table.
const scanSlice = 100_000

// Limits of the set of new, unpublished products each round re-reads.
const (
	freshMax = 1000
	freshAge = 24 * time.Hour
)

// freshPost is a product created since Start, not yet published.
type freshPost struct {
	status, modified string
	seen             time.Time
}

// scanState is what the scan remembers of a post. It holds no pointer:
// the scan keeps one for every product and variation (18 MB at 100 000
// products with the status a string), and a map of pointer-free entries
// is one the collector does not scan at its every cycle, each of which
// slows the requests it overlaps.
type scanState struct {
	parent    int64
	modified  int64      // post_modified_gmt's digits, YYYYMMDDhhmmss
	status    statusCode // compared only: a change of status is a change
	variation bool
}

// stateOf is a post's scanState from its columns as stored.
func stateOf(parent int64, modified, status, typ string) scanState {
	code, _ := statuses.Code(status) // the limit is never reached (statuses)
	return scanState{parent: parent, modified: packTime(modified), status: code,
		variation: typ == "product_variation"}
}

// statusCode stands for a post_status value: equal codes, equal statuses.
type statusCode uint32

// statuses numbers the post_status values seen, for the life of the
// process: a shop has a handful (WordPress's eight and a plugin's few),
// so the table stays small, and a code never changes meaning. Its limit
// is never reached: a status column is 20 characters.
var statuses = nametable.New[statusCode](1 << 30)

// NewPoller returns a poller of the database that watches what reads
// declares (catalog.ShopReads in catalogd).
func NewPoller(db *DB, reads catalog.Reads, o PollOptions) *Poller {
	if o.Interval <= 0 {
		o.Interval = DefaultPollInterval
	}
	if o.Budget <= 0 {
		o.Budget = DefaultPollBudget
	}
	if o.MaxScan <= 0 {
		o.MaxScan = DefaultPollMaxScan
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
		o.OnPoll = func(PollStats) {}
	}
	return &Poller{db: db, reads: reads, o: o, period: o.Interval}
}

// Name implements catalog.Feed.
func (p *Poller) Name() string { return "poll" }

// Start takes the cheap round's baseline and asks the next whole load
// (LoadShop) for the scan's, read in that load's own snapshot: Run reports
// what changes after it. Start itself does not scan: at 100 000 products a
// scan cost 0.25 to 0.6 s before the first load could begin. Called again
// (the follower restarting its feed), it asks again.
func (p *Poller) Start(ctx context.Context) error {
	return p.baseline(ctx)
}

// Run polls every Interval until ctx ends, and returns its error. A round
// that fails changes nothing and is tried again at the next interval. If
// Start failed, the first round that can read the shop takes the baseline
// and reports that anything may have changed.
func (p *Poller) Run(ctx context.Context, report func(catalog.Change)) error {
	// A scan baseline asked for and not adopted is nobody's once Run ends.
	defer func() {
		if p.awaiting {
			p.db.dropBaseline(p.request)
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
			report(c)
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

// gateOnce reads the gate alone, between cheap rounds, and runs the scan
// when it opened and the bucket pays for it: an edit of an existing
// product is scanned within a fraction of an interval on a quiet shop.
func (p *Poller) gateOnce(ctx context.Context) []catalog.Change {
	if !p.started || !p.gateWorks {
		return nil
	}
	var updated string
	var ok bool
	start := time.Now()
	err := p.db.View(ctx, func(ctx context.Context, tx *Tx) error {
		var err error
		updated, _, ok, err = tx.postsUpdated(ctx)
		return err
	})
	cost := time.Since(start)
	if err != nil {
		p.failed(ctx, PollStats{Gate: true, DBTime: cost}, err)
		return nil
	}
	// The gate's reads are paid from the scan's bucket, so that the
	// poller's average stays within the budget.
	p.accrue(p.o.Now())
	p.tokens -= cost.Seconds()
	p.o.OnPoll(PollStats{Gate: true, DBTime: cost, Period: p.period})
	if !ok {
		return nil
	}
	p.roundUpdated = updated
	var changes []catalog.Change
	if p.scanBaselined(ctx) && p.scanDue() {
		if ids, err := p.scan(ctx); err == nil && len(ids) > 0 {
			changes = append(changes, catalog.Change{Products: ids, Kind: catalog.KindProduct})
		}
	}
	return append(changes, p.recheck(p.o.Now())...)
}

// baseline reads the cheap round's state and asks the next whole load for
// the scan's; it reports nothing.
func (p *Poller) baseline(ctx context.Context) error {
	if _, err := p.round(ctx, true); err != nil {
		return err
	}
	p.rows, p.pending, p.stampAt, p.measured = nil, nil, time.Time{}, false
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
	slog.Debug("poll: the scan's baseline is the whole load's", "posts", len(b.rows))
}

// pollOnce runs one cheap round, and the scan when it is due, and returns
// what they saw changed.
func (p *Poller) pollOnce(ctx context.Context) []catalog.Change {
	if !p.started {
		if err := p.baseline(ctx); err != nil {
			return nil
		}
		return []catalog.Change{{All: true, Kind: catalog.KindResync}}
	}
	changes, err := p.round(ctx, false)
	if err != nil {
		return nil
	}
	if p.scanBaselined(ctx) && p.scanDue() {
		ids, err := p.scan(ctx)
		if err == nil && len(ids) > 0 {
			changes = append(changes, catalog.Change{Products: ids, Kind: catalog.KindProduct})
		}
	}
	return append(changes, p.recheck(p.o.Now())...)
}

// roundState is what one cheap round read.
type roundState struct {
	updated      string // wp_posts' UPDATE_TIME; "" when the server has none
	options      map[string]string
	terms, attrs string
	maxID        int64
	created      []productRow // posts with IDs above the last round's highest
	future       map[int64]bool
	left         []productRow // posts that left the scheduled set, still present
	fresh        []productRow // the fresh posts, still present
}

// round runs one cheap round. On the baseline it only records what it read.
func (p *Poller) round(ctx context.Context, baseline bool) ([]catalog.Change, error) {
	var s roundState
	var leftIDs []int64
	start := time.Now()
	err := p.db.View(ctx, func(ctx context.Context, tx *Tx) error {
		var err error
		if s.updated, _, _, err = tx.postsUpdated(ctx); err != nil {
			return err
		}
		if s.options, err = tx.optionSums(ctx, p.reads.Options); err != nil {
			return err
		}
		if s.terms, s.attrs, err = tx.termSums(ctx, p.reads.Taxonomies, p.reads.MemberTaxonomies); err != nil {
			return err
		}
		if s.maxID, err = tx.maxPostID(ctx, nil); err != nil {
			return err
		}
		if !baseline && s.maxID > p.maxID {
			if s.created, err = tx.productsByIDRange(ctx, p.maxID, s.maxID); err != nil {
				return err
			}
		}
		ids, err := tx.scheduledProducts(ctx)
		if err != nil {
			return err
		}
		s.future = make(map[int64]bool, len(ids))
		for _, id := range ids {
			s.future[id] = true
		}
		if baseline {
			return nil
		}
		for id := range p.future {
			if !s.future[id] {
				leftIDs = append(leftIDs, id)
			}
		}
		if s.left, err = tx.productsByID(ctx, leftIDs); err != nil {
			return err
		}
		s.fresh, err = tx.productsByID(ctx, slices.Collect(maps.Keys(p.fresh)))
		return err
	})
	cost := time.Since(start)
	if err != nil {
		p.failed(ctx, PollStats{DBTime: cost}, err)
		return nil, err
	}
	if baseline || p.roundCost == 0 {
		p.roundCost = cost
	} else {
		p.roundCost = (3*p.roundCost + cost) / 4
	}
	p.roundUpdated = s.updated
	changes := p.apply(s, leftIDs, baseline)
	p.o.OnPoll(PollStats{DBTime: cost, Period: p.period, Changes: len(changes)})
	return changes, nil
}

// apply records what a round read as the new baseline and returns what
// changed since the last.
func (p *Poller) apply(s roundState, leftIDs []int64, baseline bool) []catalog.Change {
	now := p.o.Now()
	if baseline {
		p.options, p.terms, p.attrs, p.maxID, p.future = s.options, s.terms, s.attrs, s.maxID, s.future
		p.fresh = map[int64]freshPost{}
		return nil
	}
	var changes []catalog.Change
	if !maps.Equal(s.options, p.options) {
		changes = append(changes, catalog.Change{All: true, Kind: catalog.KindOption})
	}
	if s.terms != p.terms {
		changes = append(changes, catalog.Change{All: true, Kind: catalog.KindTerm})
	}
	if s.attrs != p.attrs {
		changes = append(changes, catalog.Change{All: true, Kind: catalog.KindTable})
	}
	var ids []int64
	// Scheduled posts gone live (or trashed, drafted, deleted); and new
	// posts that joined the set (a draft scheduled), which nobody shows yet
	// but cost one read.
	present := map[int64]bool{}
	for _, r := range s.left {
		present[r.ID] = true
		ids = append(ids, r.ids()...)
	}
	for _, id := range leftIDs {
		if !present[id] {
			ids = append(ids, id)
		}
	}
	for id := range s.future {
		if !p.future[id] {
			ids = append(ids, id)
		}
	}
	// The fresh posts: published, or edited, or deleted.
	present = map[int64]bool{}
	for _, r := range s.fresh {
		present[r.ID] = true
		f := p.fresh[r.ID]
		if r.Status != f.status || r.Modified != f.modified {
			ids = append(ids, r.ID)
		}
		if !unpublished(r.Status) || now.Sub(f.seen) > freshAge {
			delete(p.fresh, r.ID)
			continue
		}
		p.fresh[r.ID] = freshPost{status: r.Status, modified: r.Modified, seen: f.seen}
	}
	for id := range p.fresh {
		if !present[id] {
			ids = append(ids, id)
			delete(p.fresh, id)
		}
	}
	// The posts created since the last round; a product not yet
	// published joins the fresh ones.
	for _, r := range s.created {
		ids = append(ids, r.ids()...)
		if r.Type == "product" && unpublished(r.Status) {
			p.fresh[r.ID] = freshPost{status: r.Status, modified: r.Modified, seen: now}
		}
	}
	if over := len(p.fresh) - freshMax; over > 0 { // an import: the oldest go
		for _, id := range slices.Sorted(maps.Keys(p.fresh))[:over] {
			delete(p.fresh, id)
		}
	}
	if len(ids) > 0 {
		slices.Sort(ids)
		changes = append(changes, catalog.Change{Products: slices.Compact(ids), Kind: catalog.KindProduct})
	}
	p.options, p.terms, p.attrs, p.maxID, p.future = s.options, s.terms, s.attrs, s.maxID, s.future
	for _, c := range changes {
		slog.Debug("poll: shop changed", "kind", c.Kind, "all", c.All, "products", len(c.Products))
	}
	return changes
}

// unpublished says whether a new product's status is one the admin
// publishes later from the same row.
func unpublished(status string) bool {
	return status == "auto-draft" || status == "draft" || status == "pending"
}

// scan reads every product and variation post, compares each with the last
// scan, and returns the products to read again (sorted). On the first scan
// it only records them. It sets the next scan's time from its cost.
func (p *Poller) scan(ctx context.Context) ([]int64, error) {
	at := p.o.Now()
	rows := make(map[int64]scanState, len(p.rows)+len(p.rows)/16)
	var dbNow, updated, localNow string
	var gate bool
	var read time.Time // on Now's clock, once the gate's value was read (noteStamp)
	start := time.Now()
	// The whole scan is one consistent read, under the load deadline; each
	// of its statements reads a slice of the primary key.
	err := p.db.view(ctx, p.db.load, func(ctx context.Context, tx *Tx) error {
		// The gate's value first: a change committed after it moves it
		// (or falls in the second it was read in: scanUnsure).
		var err error
		if updated, localNow, gate, err = tx.postsUpdated(ctx); err != nil {
			return err
		}
		read = p.o.Now()
		maxID, err := tx.maxPostID(ctx, &dbNow)
		if err != nil {
			return err
		}
		clear(rows)
		for lo := int64(0); lo < maxID; lo += scanSlice {
			err := tx.scanProducts(ctx, lo, lo+scanSlice, func(r productRow) {
				rows[r.ID] = stateOf(r.Parent, r.Modified, r.Status, r.Type)
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	cost := time.Since(start)
	if err != nil {
		p.failed(ctx, PollStats{Scan: true, DBTime: cost}, err)
		return nil, err
	}
	p.period = scanPeriod(cost, p.scanBudget(), p.o.Interval, p.o.MaxScan)
	p.nextScan = at.Add(p.period)
	p.noteStamp(updated, localNow, read)
	p.gateWorks, p.scanUpdated, p.roundUpdated = gate, updated, updated
	p.scanUnsure = unsureUpdate(updated, localNow)
	p.accrue(at)
	if !p.measured {
		p.tokens = p.bucketCap(cost) // a quiet start has its scan banked
		p.measured = true
	}
	p.tokens = max(p.tokens-cost.Seconds(), -p.bucketCap(cost))
	p.scanCost, p.lastScan = cost, at
	var ids, changed []int64
	if p.rows != nil {
		for id, s := range rows {
			if old, ok := p.rows[id]; !ok || old != s {
				changed = append(changed, id)
				ids = s.reported(ids, id)
			}
		}
		for id, old := range p.rows {
			if _, ok := rows[id]; !ok {
				ids = old.reported(ids, id)
			}
		}
		// A save may leave a row as the last scans read it (see
		// poll_settle.go): those saved lately are read again.
		ids = p.pendingAgain(ids, rows, at)
		p.addPending(rows, changed, false, dbNow, p.o.Now())
	}
	p.rows = rows
	slices.Sort(ids)
	ids = slices.Compact(ids)
	reported := 0
	if len(ids) > 0 {
		reported = 1 // one change naming them all
	}
	p.o.OnPoll(PollStats{Scan: true, DBTime: cost, Period: p.period, Changes: reported})
	return ids, nil
}

// scanBudget is the share of the budget the scan may use: what the cheap
// rounds leave of it, and at least half of it, so that the scan does not
// starve when the rounds grow slow under load.
func (p *Poller) scanBudget() float64 {
	left := p.o.Budget - p.roundCost.Seconds()/p.o.Interval.Seconds()
	return max(left, p.o.Budget/2)
}

// scanDue says whether the product scan runs now. Where the server keeps
// wp_posts' UPDATE_TIME (InnoDB does, for a SELECT-only user too; it is
// read at every round for microseconds), the scan runs only when the
// table changed since the last one (the gate), at once if the bucket holds
// its cost: the budget a quiet shop leaves unspent is banked (up to
// bucketCap) and spent when an edit comes, so an edit shows within a
// round at any size, and the average stays within the budget. Every
// MaxScan it runs anyway. Without the gate, it runs on its period, its
// cost over the budget.
func (p *Poller) scanDue() bool {
	now := p.o.Now()
	if !p.gateWorks {
		return !now.Before(p.nextScan)
	}
	if now.Sub(p.lastScan) >= p.o.MaxScan {
		return true
	}
	p.accrue(now)
	if p.roundUpdated != p.scanUpdated || p.scanUnsure {
		return p.tokens >= p.scanCost.Seconds()
	}
	// Nothing written to wp_posts since the last scan, but what a
	// transaction open since then may commit with its UPDATE_TIME
	// (settleDue): scanned while the bucket keeps a scan for an edit.
	return p.settleDue(now) && p.tokens >= 2*p.scanCost.Seconds()
}

// accrue adds to the bucket the scan's share of the budget since it was
// last filled.
func (p *Poller) accrue(now time.Time) {
	if !p.accrued.IsZero() && now.After(p.accrued) {
		p.tokens = min(p.tokens+now.Sub(p.accrued).Seconds()*p.scanBudget(), p.bucketCap(p.scanCost))
	}
	p.accrued = now
}

// bucketCap is the most the bucket banks: a scan, or the scan's share of
// the budget over MaxScan, whichever is more.
func (p *Poller) bucketCap(cost time.Duration) float64 {
	return max(cost.Seconds(), p.o.Budget*p.o.MaxScan.Seconds())
}

// scanPeriod is how often a scan costing cost may run to use at most budget
// of one core: cost/budget, never more often than every interval nor less
// often than every maxScan.
func scanPeriod(cost time.Duration, budget float64, interval, maxScan time.Duration) time.Duration {
	if budget <= 0 {
		return max(maxScan, interval)
	}
	period := time.Duration(float64(cost) / budget)
	return max(min(period, maxScan), interval)
}

// failed logs and reports a round, gate read or scan (s says which, and
// its cost) that could not read the shop.
func (p *Poller) failed(ctx context.Context, s PollStats, err error) {
	slog.DebugContext(ctx, "poll: the shop cannot be read", "scan", s.Scan, "gate", s.Gate, "err", err)
	s.Period, s.Err = p.period, err
	p.o.OnPoll(s)
}

// packTime turns a MySQL DATETIME text ("2026-11-21 12:00:00") into its
// digits as a number (20261121120000), which orders as the times do; 0 for
// the zero date or text that is not one.
func packTime(s string) int64 {
	var n int64
	digits := 0
	for i := 0; i < len(s) && digits < 14; i++ {
		if c := s[i]; c >= '0' && c <= '9' {
			n = n*10 + int64(c-'0')
			digits++
		}
	}
	if digits != 14 {
		return 0
	}
	return n
}
