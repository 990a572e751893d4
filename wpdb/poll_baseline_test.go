package wpdb

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"testing"

	"catalogd/catalog"
	"catalogd/internal/testdb"
)

// baselineShop is newProductShop (products in every status, a disabled
// variation) with the variations a whole load does not read: of a draft,
// of no parent, of a deleted parent, of a page, and a trashed one of a
// published product. noOrphans leaves out those whose parent is no
// product (the load then needs no pass over the variations).
// binlog puts it on the server with a binary log (testdb.BinlogServer).
func baselineShop(t *testing.T, o Options, noOrphans, binlog bool) (*productShop, *DB, *sql.DB) {
	t.Helper()
	ps := newProductShop()
	o.Prefix = "wp_"
	var db *DB
	var raw *sql.DB
	if binlog {
		var dsn string
		dsn, raw = testdb.LoadOn(t, testdb.BinlogServer(t), ps.shop)
		db = openDSN(t, dsn, o)
	} else {
		db, raw = openShopWith(t, ps.shop, o)
	}
	stmts := []string{
		insertPost("product_variation", "publish", "of-a-draft", ps.draft),
		insertPost("product_variation", "private", "of-a-pending", ps.pending),
		insertPost("product_variation", "trash", "trashed-of-radar", ps.radar),
	}
	if !noOrphans {
		stmts = append(stmts,
			insertPost("product_variation", "publish", "no-parent", 0),
			insertPost("product_variation", "publish", "parent-deleted", 987654),
			insertPost("product_variation", "private", "parent-a-page", ps.page))
	}
	exec(t, raw, "variations the load does not read", stmts...)
	return ps, db, raw
}

// scannedRows is what a full scan of the database reads now.
func scannedRows(t *testing.T, db *DB) map[int64]scanState {
	t.Helper()
	p := NewPoller(db, catalog.ShopReads, PollOptions{})
	if _, err := p.scan(context.Background()); err != nil {
		t.Fatalf("scan: %v", err)
	}
	return p.rows
}

// The baseline a whole load delivers is what a scan reads at its instant:
// every product and variation post, whatever its status and parent, on
// one stream and on several, and when commits between the streams'
// openings make the load fall back to one transaction.
func TestLoadBaselineIsScan(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		streams   int
		noInstant bool // a commit between every try's openings (binary log on): one transaction
		noOrphans bool
	}{
		{name: "one transaction", streams: 1},
		{name: "streams", streams: 3},
		{name: "streams, no instant", streams: 3, noInstant: true},
		{name: "streams, no orphans", streams: 3, noOrphans: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ps, db, raw := baselineShop(t, Options{LoadStreams: tt.streams}, tt.noOrphans, tt.noInstant)
			ctx := context.Background()
			calls := 0
			if tt.noInstant {
				// A commit elsewhere on the server moves its binary log:
				// the streams' positions differ at every try.
				exec(t, raw, "a table to commit to", `CREATE TABLE bump (n INT)`)
				db.betweenOpenings = func(int) {
					calls++
					exec(t, raw, "commit", `INSERT INTO bump VALUES (1)`)
				}
			}
			gen := db.askBaseline()
			if _, err := db.LoadShop(ctx, catalog.ShopReads); err != nil {
				t.Fatal(err)
			}
			db.betweenOpenings = nil
			if tt.noInstant && calls < 2*snapshotTries {
				t.Fatalf("%d openings after the first, want %d: the load did not fall back to one transaction", calls, 2*snapshotTries)
			}
			b := db.takeBaseline(gen)
			if b == nil {
				t.Fatal("the load delivered no baseline")
			}
			want := scannedRows(t, db)
			if !maps.Equal(b.rows, want) {
				for id, s := range want {
					if got, ok := b.rows[id]; !ok || got != s {
						t.Errorf("post %d: load's %+v (present %v), scan's %+v", id, got, ok, s)
					}
				}
				for id, s := range b.rows {
					if _, ok := want[id]; !ok {
						t.Errorf("post %d: load's %+v, not in the scan", id, s)
					}
				}
			}
			seen := map[statusCode]bool{}
			for _, s := range b.rows {
				seen[s.status] = true
			}
			for _, st := range []string{"publish", "draft", "private", "pending", "trash", "future"} {
				if code, _ := statuses.Code(st); !seen[code] {
					t.Errorf("no post of status %s in the baseline: the fixture lost its point", st)
				}
			}
			if _, ok := b.rows[ps.varQBCore]; !ok {
				t.Errorf("the disabled variation %d is not in the baseline", ps.varQBCore)
			}
			if b.dbNow == "" || !b.gate {
				t.Errorf("baseline's clock %q, gate %v: want the database's clock and a gate", b.dbNow, b.gate)
			}
		})
	}
}

// A load that no poller asked a baseline of (the binary log feed's, and
// every load after the one that delivered) sends not one statement more;
// one asked of sends the gate's view and read and the clock: three (the
// posts' one pass reads the baseline's other posts with the rest).
func TestLoadBaselineOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	for _, streams := range []int{1, 3} {
		t.Run(fmt.Sprint(streams, " streams"), func(t *testing.T) {
			t.Parallel()
			_, db, _ := baselineShop(t, Options{LoadStreams: streams}, true, false)
			ctx := context.Background()
			// The gate's first read on a DB learns that MariaDB has no
			// stats expiry (one statement more, once): learned here.
			view(t, db, func(ctx context.Context, tx *Tx) error {
				_, _, _, err := tx.postsUpdated(ctx)
				return err
			})
			hooked := 0
			db.afterSnapshot = func() { hooked++ }
			load := func() int64 {
				t.Helper()
				before := db.Queries()
				if _, err := db.LoadShop(ctx, catalog.ShopReads); err != nil {
					t.Fatal(err)
				}
				return db.Queries() - before
			}
			plain := load()
			if hooked != 0 {
				t.Errorf("a load no poller asked of read a baseline")
			}
			gen := db.askBaseline()
			if got, want := load(), plain+3; got != want {
				t.Errorf("the load asked for a baseline sent %d statements, want %d", got, want)
			}
			if db.takeBaseline(gen) == nil {
				t.Error("the load asked for a baseline delivered none")
			}
			if got := load(); got != plain {
				t.Errorf("the load after the delivery sent %d statements, want %d as before", got, plain)
			}
			if hooked != 1 {
				t.Errorf("%d loads read a baseline, want 1", hooked)
			}
		})
	}
}

// A load delivers for the latest request only, once; a poller takes one
// delivered for its request or a later one (whose load began after its
// request too).
func TestBaselineSlot(t *testing.T) {
	t.Parallel()
	db := &DB{}
	if db.baselineWanted() != 0 || db.takeBaseline(0) != nil {
		t.Fatal("a new DB wants or holds a baseline")
	}
	first := db.askBaseline()
	second := db.askBaseline() // Start called again before a load delivered
	if got := db.baselineWanted(); got != second {
		t.Fatalf("wanted %d, want the latest request %d", got, second)
	}
	db.deliverBaseline(&scanBaseline{gen: first}) // a load that began before the second request
	if db.takeBaseline(first) != nil || db.baselineWanted() != second {
		t.Fatal("a baseline for an older request was kept")
	}
	db.deliverBaseline(&scanBaseline{gen: second})
	if db.baselineWanted() != 0 {
		t.Error("a delivered request is still wanted")
	}
	db.deliverBaseline(&scanBaseline{gen: second, dbNow: "later"}) // a second load: not wanted
	b := db.takeBaseline(first)
	if b == nil || b.gen != second || b.dbNow != "" {
		t.Fatalf("took %+v, want the first delivery for request %d", b, second)
	}
	if db.takeBaseline(second) != nil {
		t.Error("a baseline was taken twice")
	}
	// A poller that stops withdraws its request and what was delivered.
	third := db.askBaseline()
	db.dropBaseline(second) // an older poller's: nothing
	if db.baselineWanted() != third {
		t.Error("an older request's withdrawal withdrew the latest")
	}
	db.deliverBaseline(&scanBaseline{gen: third})
	db.dropBaseline(third)
	if db.baselineWanted() != 0 || db.takeBaseline(third) != nil {
		t.Error("a withdrawn request is still wanted or its baseline held")
	}
}

// Start runs the cheap round alone; the scan waits for the whole load's
// baseline, and the cheap rounds go on meanwhile. A change committed
// right after the load's snapshot, which the load does not show, is
// reported by the first scan: on one transaction and on streams; and so
// is one committed between two streams' openings on a server that tells
// no binary log position (the streams are not opened again), which the
// first stream's snapshot, the baseline's, does not show.
func TestPollBaselineFromLoad(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		streams int
		between bool // commit between the first two openings, else after the snapshot
	}{
		{"one transaction", 1, false},
		{"streams", 3, false},
		{"streams, between openings", 3, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ps := newPollShop(false)
			db, raw := openShopWith(t, ps.shop, Options{Prefix: "wp_", LoadStreams: tt.streams})
			clock := &testClock{t: testNow}
			var stats []PollStats
			p := NewPoller(db, catalog.ShopReads, PollOptions{Now: clock.Now, OnPoll: func(s PollStats) { stats = append(stats, s) }})
			ctx := context.Background()
			before := db.Queries()
			if err := p.Start(ctx); err != nil {
				t.Fatal(err)
			}
			// The view, the gate, the options, the terms and the
			// attribute table, the highest ID, the scheduled products,
			// and the indexes on post_modified_gmt.
			if got, want := db.Queries()-before, int64(8); got != want {
				t.Errorf("Start sent %d statements, want %d (a cheap round)", got, want)
			}
			if len(stats) != 1 || stats[0].Scan || stats[0].Gate || p.rows != nil {
				t.Fatalf("Start: stats %+v, scan baseline of %d posts; want one cheap round and none", stats, len(p.rows))
			}

			// Before any load: rounds, no scan, whatever the gate says.
			exec(t, raw, "an edit before the load", `UPDATE wp_posts SET post_title = 'Radar 2' WHERE ID = `+fmt.Sprint(ps.radar))
			stats = nil
			clock.Add(p.o.Interval)
			if got := p.pollOnce(ctx); got != nil || len(stats) != 1 || stats[0].Scan {
				t.Fatalf("a round before the load: changes %v, stats %+v; want a cheap round alone", describe(got), stats)
			}

			const saved = "2026-11-22 10:00:00"
			save := func() {
				exec(t, raw, "a save after the load's (first) snapshot",
					`UPDATE wp_posts SET post_modified_gmt = '`+saved+`' WHERE ID = `+fmt.Sprint(ps.cuffs))
			}
			if tt.between {
				db.betweenOpenings = func(i int) {
					if i == 1 {
						save()
					}
				}
			} else {
				db.afterSnapshot = save
			}
			rows, err := db.LoadShop(ctx, catalog.ShopReads)
			if err != nil {
				t.Fatal(err)
			}
			db.afterSnapshot, db.betweenOpenings = nil, nil
			for _, post := range rows.Products.Posts {
				if post.ID == ps.cuffs && post.Modified == saved && !tt.between {
					t.Fatal("the load shows the save made after its snapshot: the hook is not after the snapshot")
				}
			}
			stats = nil
			clock.Add(p.o.Interval)
			got := describe(p.pollOnce(ctx))
			if want := []string{products(ps.cuffs)}; !slices.Equal(got, want) {
				t.Errorf("the first round after the load: changes %v, want %v", got, want)
			}
			if p.awaiting || len(stats) != 2 || !stats[1].Scan {
				t.Errorf("the first round after the load: stats %+v, awaiting %v; want a round, then a scan on the load's baseline", stats, p.awaiting)
			}
			// The load's cost is not the scan's: the cost that sets the
			// period is the first scan's own.
			if len(stats) == 2 && (!p.measured || p.scanCost != stats[1].DBTime) {
				t.Errorf("after the first scan: cost %v, measured %v; want the scan's %v", p.scanCost, p.measured, stats[1].DBTime)
			}
		})
	}
}

// A poller no load serves takes its own baseline by a scan after MaxScan
// (and reports nothing for it), and sees edits from then on; a load that
// comes later still delivers, and its baseline is adopted. Start again
// asks again.
func TestPollBaselineWithoutLoad(t *testing.T) {
	t.Parallel()
	ps := newPollShop(false)
	db, raw := openShop(t, ps.shop)
	clock := &testClock{t: testNow}
	var stats []PollStats
	p := NewPoller(db, catalog.ShopReads, PollOptions{Now: clock.Now, OnPoll: func(s PollStats) { stats = append(stats, s) }})
	ctx := context.Background()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	scans := func() int {
		n := 0
		for _, s := range stats {
			if s.Scan {
				n++
			}
		}
		return n
	}
	clock.Add(p.o.MaxScan - p.o.Interval)
	stats = nil
	if got := p.pollOnce(ctx); got != nil || scans() != 0 {
		t.Fatalf("before MaxScan: changes %v, stats %+v; want no scan yet", describe(got), stats)
	}
	clock.Add(p.o.Interval)
	stats = nil
	if got := p.pollOnce(ctx); got != nil || scans() != 1 || p.rows == nil {
		t.Fatalf("at MaxScan: changes %v, stats %+v; want a scan for the baseline, reporting nothing", describe(got), stats)
	}
	exec(t, raw, "edit", `UPDATE wp_posts SET post_modified_gmt = '2026-11-22 10:00:00' WHERE ID = `+fmt.Sprint(ps.radar))
	want := []string{products(ps.radar)}
	for range 3 { // the gate may hold the edit's second as the scan's: at most a scan later
		clock.Add(p.o.Interval)
		if got := describe(p.pollOnce(ctx)); slices.Equal(got, want) {
			want = nil
			break
		}
	}
	if want != nil {
		t.Fatalf("the edit after the poller's own baseline was not reported")
	}
	if _, err := db.LoadShop(ctx, catalog.ShopReads); err != nil {
		t.Fatal(err)
	}
	clock.Add(p.o.Interval)
	p.pollOnce(ctx)
	if p.awaiting {
		t.Error("the load's baseline was not adopted after the poller's own")
	}
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if !p.awaiting || p.rows != nil || db.baselineWanted() != p.request {
		t.Errorf("Start again: awaiting %v, %d posts, wanted %d; want a new request", p.awaiting, len(p.rows), db.baselineWanted())
	}
}
