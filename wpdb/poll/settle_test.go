package poll

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"catalogd/internal/wpdbtest"
	"catalogd/wpdb"
)

// pollRig is a poller on a pollShop, on a clock the test moves, with the
// stats of what it ran.
type pollRig struct {
	ps    *pollShop
	p     *Poller
	raw   *sql.DB
	clock *testClock
	stats []Stats // the last round's
	// scans counts the scans run; period is the scan period in force
	// (Stats.Period), longest the longest yet. The period is what the
	// scans cost in real time over the budget: a busy machine lengthens it.
	scans           int
	period, longest time.Duration
	afterRound      func() // run once, after the next cheap round
}

// newPollRig starts the rig's poller on a DB opened with o (its prefix the
// shop's).
func newPollRig(t *testing.T, o wpdb.Options) *pollRig {
	t.Helper()
	return newPollRigOn(t, o, false)
}

// newPollRigOn is newPollRig on a shop whose posts table has the index on
// post_modified_gmt when indexed: its detections are deltas then.
func newPollRigOn(t *testing.T, o wpdb.Options, indexed bool) *pollRig {
	t.Helper()
	return newPollRigTuned(t, o, indexed, Options{})
}

// newPollRigTuned is newPollRigOn with the poller tuned by po.
func newPollRigTuned(t *testing.T, o wpdb.Options, indexed bool, po Options) *pollRig {
	t.Helper()
	r := &pollRig{ps: newPollShop(false), clock: &testClock{t: wpdbtest.Now}}
	if indexed {
		r.ps.shop.IndexPostModified()
	}
	o.Prefix = r.ps.shop.Prefix
	r.p, r.raw = startPollerWith(t, r.ps.shop, r.clock, r.onPoll, o, po)
	if !r.p.gateWorks {
		t.Fatal("the server shows no UPDATE_TIME for wp_posts: no gate")
	}
	if indexed != (r.p.index != "") {
		t.Fatalf("indexed %v, but the poller found index %q", indexed, r.p.index)
	}
	return r
}

// detections names the rig's two ways of finding an edit, for the tests
// that run with each: the full scan, and the delta through the index.
var detections = []struct {
	name    string
	indexed bool
}{{"full scan", false}, {"delta", true}}

func (r *pollRig) onPoll(s Stats) {
	r.stats = append(r.stats, s)
	r.period, r.longest = s.Period, max(r.longest, s.Period)
	if s.Scan {
		r.scans++
	}
	if f := r.afterRound; f != nil && !s.Scan && !s.Gate {
		r.afterRound = nil
		f()
	}
}

// round moves the clock by an interval and runs a cheap round (and the
// scan when it is due); it returns the products reported and whether a
// scan ran.
func (r *pollRig) round() (ids []int64, scanned bool) {
	r.stats = nil
	r.clock.Add(r.p.o.Interval)
	for _, c := range r.p.pollOnce(context.Background()) {
		ids = append(ids, c.Products...)
	}
	for _, s := range r.stats {
		scanned = scanned || s.Scan
	}
	return ids, scanned
}

// quiet runs rounds until one runs no scan, each a minute after the last:
// the load's writes are behind the gate, and no transaction begun with
// them is waited for any more.
func (r *pollRig) quiet(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r.clock.Add(maxOpenTxn)
		if _, scanned := r.round(); !scanned {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the poller still scans 20 s after the load")
		}
		time.Sleep(100 * time.Millisecond) // polling a condition (the database's clock moving on), with a deadline
	}
}

// dbSecond is the database's clock (NOW()), to the second.
func (r *pollRig) dbSecond(t *testing.T) time.Time {
	t.Helper()
	var now string
	wpdbtest.RawScalar(t, r.raw, &now, `SELECT CAST(NOW() AS CHAR)`)
	at, err := time.Parse(time.DateTime, now)
	if err != nil {
		t.Fatalf("the database's clock %q: %v", now, err)
	}
	return at
}

// waitDB waits until the database's clock reads at least t.
func (r *pollRig) waitDB(t *testing.T, at time.Time) {
	t.Helper()
	deadline := time.Now().Add(at.Sub(r.dbSecond(t)) + 10*time.Second)
	for r.dbSecond(t).Before(at) {
		if time.Now().After(deadline) {
			t.Fatalf("the database's clock did not reach %v", at)
		}
		time.Sleep(50 * time.Millisecond) // polling a condition (the database's clock), with a deadline
	}
}

// postsUpdateTime is wp_posts' UPDATE_TIME as the server shows it.
func (r *pollRig) postsUpdateTime(t *testing.T) time.Time {
	t.Helper()
	var s sql.NullString
	wpdbtest.RawScalar(t, r.raw, &s, `SELECT CAST(UPDATE_TIME AS CHAR) FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'wp_posts'`)
	at, err := time.Parse(time.DateTime, s.String)
	if err != nil {
		t.Fatalf("wp_posts' UPDATE_TIME %q: %v", s.String, err)
	}
	return at
}

// stampRound runs the round whose scan first reads the UPDATE_TIME s, and
// returns its products and the earliest the poller may place the second s
// at on its clock: the round's time, less how far the database's clock was
// past s when the scan read it (no further than it is now). A commit begun
// in s is open, on the poller's clock, at most the time since.
func (r *pollRig) stampRound(t *testing.T, s time.Time) (ids []int64, earliest time.Time) {
	t.Helper()
	ids, _ = r.round()
	return ids, r.clock.Now().Add(-r.dbSecond(t).Sub(s))
}

// reportedWithin runs rounds until one reports id, for as long as the
// wait may take to scan after a transaction open for open (on the
// poller's clock) commits: the next step of the doubling comes twice as
// far from its second as the last, and no sooner than the scan period in
// force after it (docs/change-feed.md, case 2); a round more. It says
// whether one did.
func (r *pollRig) reportedWithin(id int64, open time.Duration) bool {
	until := r.clock.Now().Add(open + max(open, r.period) + r.p.o.Interval)
	for r.clock.Now().Before(until) {
		if ids, _ := r.round(); slices.Contains(ids, id) {
			return true
		}
	}
	return false
}

// slowScan makes the next scan, after the next cheap round, wait for the
// pool's one connection (wpdb.Options.MaxOpen 1) before its read, while the
// poller's clock moves by d: a server slow to answer.
func (r *pollRig) slowScan(t *testing.T, d time.Duration) {
	t.Helper()
	pool := r.p.db.Pool()
	r.afterRound = func() {
		conn, err := pool.Conn(context.Background())
		if err != nil {
			t.Errorf("take the pool's connection: %v", err)
			return
		}
		waits := pool.Stats().WaitCount
		go func() {
			defer conn.Close()
			deadline := time.Now().Add(10 * time.Second)
			for pool.Stats().WaitCount == waits {
				if time.Now().After(deadline) {
					t.Error("no scan waited for the connection")
					return
				}
				time.Sleep(time.Millisecond) // polling a condition (the scan waiting), with a deadline
			}
			r.clock.Add(d)
		}()
	}
}

// sameStamp begins a transaction that writes post a, and commits a write
// of post b by another session, in one second of the database's clock
// (trying again until they fall in one): MariaDB stamps UPDATE_TIME with
// the start of the transaction that commits, so b's commit stamps that
// second, and so will a's. It returns the open transaction and the
// second.
func (r *pollRig) sameStamp(t *testing.T, a, b int64) (*sql.Tx, time.Time) {
	t.Helper()
	ctx := context.Background()
	for range 10 {
		tx, err := r.raw.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		begun := r.dbSecond(t)
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`UPDATE wp_posts SET post_title = 'Radar T1', post_modified = NOW(),
			post_modified_gmt = UTC_TIMESTAMP() WHERE ID = %d`, a)); err != nil {
			t.Fatal(err)
		}
		wpdbtest.Exec(t, r.raw, "T2", fmt.Sprintf(`UPDATE wp_posts SET post_title = 'Cuffs T2', post_modified = NOW(),
			post_modified_gmt = UTC_TIMESTAMP() WHERE ID = %d`, b))
		if stamp := r.postsUpdateTime(t); stamp.Equal(begun) {
			return tx, stamp
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("no two transactions in one second of the database's clock in 10 tries")
	return nil, time.Time{}
}

// commitAfter runs rounds until the poller's clock is d past from, none
// of them reporting T1's product (T1 is open), then commits T1.
func (r *pollRig) commitAfter(t *testing.T, t1 *sql.Tx, from time.Time, d time.Duration) {
	t.Helper()
	for r.clock.Now().Sub(from) < d {
		if ids, _ := r.round(); slices.Contains(ids, r.ps.radar) {
			t.Fatalf("a round reported %d while T1 was open", r.ps.radar)
		}
	}
	if err := t1.Commit(); err != nil {
		t.Fatal(err)
	}
}

// The third review's reproduction: on MariaDB, UPDATE_TIME becomes visible
// at commit but holds the transaction's start. T1 writes a product in
// second S and stays open; T2 writes another in S and commits; a scan
// sees T2 (UPDATE_TIME S). T1 commits seconds later: UPDATE_TIME is still
// S, so the gate alone would take the table for unchanged since that scan.
// T1's change is reported within twice as long as it was open (or a scan
// period after it).
func TestPollLateCommitWithTheScansStamp(t *testing.T) {
	t.Parallel()
	for _, d := range detections {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			lateCommitWithTheScansStamp(t, newPollRigOn(t, wpdb.Options{}, d.indexed))
		})
	}
}

func lateCommitWithTheScansStamp(t *testing.T, r *pollRig) {
	r.quiet(t)
	t1, s := r.sameStamp(t, r.ps.radar, r.ps.cuffs)
	defer t1.Rollback()
	ids, earliest := r.stampRound(t, s)
	if !slices.Contains(ids, r.ps.cuffs) || slices.Contains(ids, r.ps.radar) {
		t.Fatalf("the round after T2: products %v, want %d (T2) and not %d (T1, open)", ids, r.ps.cuffs, r.ps.radar)
	}
	// The database's clock leaves S behind (a scan reading the gate in S
	// or the second after keeps it open), a round runs, and T1 commits.
	r.waitDB(t, s.Add(3*time.Second))
	r.commitAfter(t, t1, r.clock.Now(), r.p.o.Interval)
	if got := r.postsUpdateTime(t); !got.Equal(s) {
		t.Fatalf("UPDATE_TIME after T1's commit is %v, want its start %v: the server stamps commits otherwise", got, s)
	}
	open := r.clock.Now().Sub(earliest)
	if !r.reportedWithin(r.ps.radar, open) {
		t.Errorf("T1's change (product %d), committed at most %v after the second of the scan's UPDATE_TIME (poller's clock), was not reported", r.ps.radar, open)
	}
}

// The second and third reviews' reproduction: the web server's clock is
// 5 s behind the database's; a save, a scan, and a second save that keeps
// the post's post_modified_gmt and status (the same PHP second: its posts
// row is written as it was, so UPDATE_TIME does not move either), then
// scans. The second save is reported after it commits: at once, in a
// transaction that commits seconds later, and from a second web server
// whose clock is 3 s further behind (its PHP second comes 3 s later).
func TestPollSecondSaveUnderClockSkew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// late: the second save commits once the database's clock is 3 s
		// past the first save's second; inTx: it writes at once, in a
		// transaction that commits then.
		late, inTx bool
	}{
		{name: "at once"},
		{name: "in a transaction committed seconds later", late: true, inTx: true},
		{name: "from a web server 3 s further behind", late: true},
	}
	for _, d := range detections {
		for _, tt := range tests {
			t.Run(d.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				secondSaveUnderClockSkew(t, newPollRigOn(t, wpdb.Options{}, d.indexed), tt.late, tt.inTx)
			})
		}
	}
}

func secondSaveUnderClockSkew(t *testing.T, r *pollRig, late, inTx bool) {
	r.quiet(t)
	radar := fmt.Sprint(r.ps.radar)
	price := func(v string) string {
		return `UPDATE wp_postmeta SET meta_value = '` + v + `' WHERE meta_key IN ('_price', '_regular_price') AND post_id = ` + radar
	}
	// The first save, as WooCommerce writes it: the posts row with
	// PHP's clock, then the meta.
	wpdbtest.Exec(t, r.raw, "first save", `UPDATE wp_posts SET post_modified = UTC_TIMESTAMP() - INTERVAL 5 SECOND,
				post_modified_gmt = UTC_TIMESTAMP() - INTERVAL 5 SECOND WHERE ID = `+radar, price("25"))
	saved := r.postsUpdateTime(t)
	var modified string
	wpdbtest.RawScalar(t, r.raw, &modified, `SELECT CAST(post_modified_gmt AS CHAR) FROM wp_posts WHERE ID = `+radar)
	scans := r.scans
	ids, earliest := r.stampRound(t, saved)
	if r.scans == scans || !slices.Contains(ids, r.ps.radar) {
		t.Fatalf("the round after the first save: products %v (scans %d), want %d", ids, r.scans-scans, r.ps.radar)
	}
	second := []string{`UPDATE wp_posts SET post_modified = '` + modified + `', post_modified_gmt = '` + modified +
		`' WHERE ID = ` + radar, price("26")}
	var commit func()
	switch {
	case inTx:
		tx, err := r.raw.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		for _, q := range second {
			if _, err := tx.Exec(q); err != nil {
				t.Fatalf("second save: %s: %v", q, err)
			}
		}
		commit = func() {
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	case late:
		commit = func() { wpdbtest.Exec(t, r.raw, "second save", second...) }
	default:
		wpdbtest.Exec(t, r.raw, "second save", second...)
	}
	if commit != nil {
		r.waitDB(t, saved.Add(3*time.Second))
		r.round()
		commit()
	}
	if got := r.postsUpdateTime(t); !got.Equal(saved) {
		t.Fatalf("UPDATE_TIME %v after the second save, want the first's %v: the second moved the posts row", got, saved)
	}
	if !r.reportedWithin(r.ps.radar, r.clock.Now().Sub(earliest)) {
		t.Errorf("the second save (post_modified_gmt %s kept) was not reported after it committed", modified)
	}
}

// A database so busy that the budget pays for a detection only every
// MaxScan (a delta's cost over its share of the budget is minutes there):
// the second save of a product, in a transaction that commits seconds or
// most of a minute after the detection that saw the first, leaves the
// posts row as the first left it (only its meta moves), and no detection
// runs between its commit and the end of the product's pending minute.
// The poller's reports of the pending product, on its own clock, show it:
// within twice as long after the detection as the commit came.
func TestPollSecondSaveBetweenDetections(t *testing.T) {
	t.Parallel()
	for _, d := range detections {
		for _, late := range []time.Duration{4 * time.Second, 40 * time.Second} {
			t.Run(fmt.Sprintf("%s/committed %v after", d.name, late), func(t *testing.T) {
				t.Parallel()
				r := newPollRigTuned(t, wpdb.Options{}, d.indexed, Options{Budget: 1e-7})
				secondSaveBetweenDetections(t, r, d.indexed, late)
			})
		}
	}
}

func secondSaveBetweenDetections(t *testing.T, r *pollRig, indexed bool, late time.Duration) {
	// The detection MaxScan brings, then (behind the delta: the full
	// scan's own period is hours on this budget) the next.
	r.clock.Add(r.p.o.MaxScan)
	if _, scanned := r.round(); !scanned {
		t.Fatal("no detection MaxScan after the last")
	}
	r.clock.Add(r.p.o.MaxScan)
	radar := fmt.Sprint(r.ps.radar)
	price := func(v string) string {
		return `UPDATE wp_postmeta SET meta_value = '` + v + `' WHERE meta_key IN ('_price', '_regular_price') AND post_id = ` + radar
	}
	wpdbtest.Exec(t, r.raw, "first save", `UPDATE wp_posts SET post_modified = UTC_TIMESTAMP() - INTERVAL 5 SECOND,
		post_modified_gmt = UTC_TIMESTAMP() - INTERVAL 5 SECOND WHERE ID = `+radar, price("25"))
	ids, scanned := r.round()
	if delta := slices.ContainsFunc(r.stats, func(s Stats) bool { return s.Delta }); !scanned || delta != indexed ||
		!slices.Contains(ids, r.ps.radar) {
		t.Fatalf("the detection after the first save: products %v, stats %+v; want %d, by a delta %v", ids, r.stats, r.ps.radar, indexed)
	}
	seen, scans := r.clock.Now(), r.scans
	tx, err := r.raw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range []string{`UPDATE wp_posts SET post_modified = post_modified, post_modified_gmt = post_modified_gmt
		WHERE ID = ` + radar, price("26")} {
		if _, err := tx.Exec(q); err != nil {
			t.Fatalf("second save: %s: %v", q, err)
		}
	}
	for r.clock.Now().Sub(seen) < late {
		r.round()
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	committed := r.clock.Now().Sub(seen)
	for r.clock.Now().Sub(seen) <= 2*committed+r.p.o.Interval {
		if ids, _ := r.round(); slices.Contains(ids, r.ps.radar) {
			if r.scans != scans {
				t.Errorf("%d detections ran after the first save's, want none (a budget of %v)", r.scans-scans, r.p.o.Budget)
			}
			return
		}
	}
	t.Errorf("the second save, committed %v after the detection that saw the first, was not reported within %v after that detection",
		committed, r.clock.Now().Sub(seen))
}

// The wait for a transaction begun in the second of the scan's
// UPDATE_TIME is bounded: T1, open 40 s, is reported once it commits; the
// wait costs a scan at each doubling at most (2, 4, 8, 16, 32 and 64 s
// after that second, and the gate's second's); and once a scan ran
// maxOpenTxn after that second the poller scans no more (until MaxScan).
// Each step also waits for the scan period, which follows what the scans
// cost in real time: on a busy machine the steps come fewer and later, and
// the last of them up to a period after maxOpenTxn.
func TestPollLateCommitWaitIsBounded(t *testing.T) {
	t.Parallel()
	r := newPollRig(t, wpdb.Options{})
	r.quiet(t)
	t1, s := r.sameStamp(t, r.ps.radar, r.ps.cuffs)
	defer t1.Rollback()
	ids, earliest := r.stampRound(t, s)
	if !slices.Contains(ids, r.ps.cuffs) {
		t.Fatalf("the round after T2: products %v, want %d", ids, r.ps.cuffs)
	}
	first, scans := r.clock.Now(), r.scans // the poller places S no later than this scan
	r.waitDB(t, s.Add(3*time.Second))      // the gate's own second is over
	r.commitAfter(t, t1, first, 40*time.Second)
	if open := r.clock.Now().Sub(earliest); !r.reportedWithin(r.ps.radar, open) {
		t.Fatalf("T1, committed at most %v after the second of the scan's UPDATE_TIME (poller's clock), was not reported", open)
	}
	// The step after a scan less than maxOpenTxn after S comes twice as far
	// from S, or a period after that scan: the wait's last.
	for r.clock.Now().Sub(first) < 4*time.Minute {
		end := first.Add(max(2*maxOpenTxn, maxOpenTxn+r.longest) + r.p.o.Interval)
		if _, scanned := r.round(); scanned && r.clock.Now().After(end) {
			t.Fatalf("a scan %v after T2's, once the wait was over (the longest scan period %v)", r.clock.Now().Sub(first), r.longest)
		}
	}
	t.Logf("the wait ran %d scans, the longest scan period %v", r.scans-scans, r.longest)
	if n := r.scans - scans; n > 7 {
		t.Errorf("the wait ran %d scans, want one at each doubling (2, 4, 8, 16, 32, 64 s) and the gate's second's at most", n)
	}
}

// A scan whose read of the gate waits (here for the pool's one connection,
// while the poller's clock moves 30 s: a server slow to answer) places
// the second of the UPDATE_TIME it read by the time of its read, not of its
// start: the wait that follows still covers T1, begun in that second and
// committed 44 s after the read. Placed by the scan's start, the second
// came 30 s early, and so did the wait's end: T1 showed at the scan
// MaxScan brings.
func TestPollLateCommitAfterASlowRead(t *testing.T) {
	t.Parallel()
	r := newPollRig(t, wpdb.Options{MaxOpen: 1})
	r.quiet(t)
	t1, s := r.sameStamp(t, r.ps.radar, r.ps.cuffs)
	defer t1.Rollback()
	r.slowScan(t, 30*time.Second)
	ids, earliest := r.stampRound(t, s)
	if !slices.Contains(ids, r.ps.cuffs) {
		t.Fatalf("the round after T2: products %v, want %d", ids, r.ps.cuffs)
	}
	read := r.clock.Now()
	r.waitDB(t, s.Add(3*time.Second))
	r.commitAfter(t, t1, read, 44*time.Second)
	if open := r.clock.Now().Sub(earliest); !r.reportedWithin(r.ps.radar, open) {
		t.Errorf("T1, committed at most %v after the second of the slow scan's UPDATE_TIME (poller's clock), was not reported", open)
	}
}
