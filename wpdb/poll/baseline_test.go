package poll

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"catalogd/catalog"
	"catalogd/internal/wpdbtest"
	"catalogd/wpdb"
)

// baselineShop is wpdbtest's Products (products in every status, a
// disabled variation) with the variations a whole load does not read
// (Stray), opened with o.
func baselineShop(t *testing.T, o wpdb.Options, noOrphans bool) (*wpdbtest.Products, *wpdb.DB) {
	t.Helper()
	ps := wpdbtest.NewProducts()
	o.Prefix = "wp_"
	db, raw := openShopWith(t, ps.Shop, o)
	wpdbtest.Exec(t, raw, "variations the load does not read", ps.Stray(noOrphans)...)
	return ps, db
}

// scannedRows is what a full scan of the database reads now.
func scannedRows(t *testing.T, db *wpdb.DB) map[int64]scanState {
	t.Helper()
	p := New(db, catalog.ShopReads, Options{})
	if _, err := p.scan(context.Background()); err != nil {
		t.Fatalf("scan: %v", err)
	}
	return p.rows
}

// startAsking starts p (a cheap round; the scan's baseline asked of the
// next load) and has the loads ask as instead of p.
func startAsking(t *testing.T, db *wpdb.DB, p *Poller, as catalog.Baseliner) {
	t.Helper()
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	db.AskBaseline(as)
}

// hookedPoller is a poller as the loads ask it: atClock runs once a load
// told it its instant (its snapshot stands), and asked counts the
// baselines it took.
type hookedPoller struct {
	*Poller
	atClock func()
	asked   *int
}

func (h hookedPoller) Baseline(ctx context.Context) (catalog.Baseline, error) {
	b, err := h.Poller.Baseline(ctx)
	if b == nil || err != nil {
		return b, err
	}
	if h.asked != nil {
		*h.asked++
	}
	return clockHook{Baseline: b, fn: h.atClock}, nil
}

type clockHook struct {
	catalog.Baseline
	fn func()
}

func (c clockHook) Clock(utcNow string) {
	c.Baseline.Clock(utcNow)
	if c.fn != nil {
		c.fn()
	}
}

// The baseline a whole load delivers is what a scan reads at its instant:
// every product and variation post, whatever its status and parent, on
// one stream and on several; and the gate's reading before it.
func TestLoadBaselineIsScan(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		streams   int
		noOrphans bool
	}{
		{name: "one transaction", streams: 1},
		{name: "streams", streams: 3},
		{name: "streams, no orphans", streams: 3, noOrphans: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ps, db := baselineShop(t, wpdb.Options{LoadStreams: tt.streams}, tt.noOrphans)
			p := New(db, catalog.ShopReads, Options{})
			startAsking(t, db, p, p)
			if _, err := db.LoadShop(context.Background(), catalog.ShopReads); err != nil {
				t.Fatal(err)
			}
			b := p.slot.take(p.request)
			if b == nil {
				t.Fatal("the load delivered no baseline")
			}
			want := scannedRows(t, db)
			wpdbtest.SamePosts(t, b.rows, want, "load's", "scan")
			seen := map[statusCode]bool{}
			for _, s := range b.rows {
				seen[s.status] = true
			}
			for _, st := range wpdbtest.Statuses {
				if code, _ := statuses.Code(st); !seen[code] {
					t.Errorf("no post of status %s in the baseline: the fixture lost its point", st)
				}
			}
			if _, ok := b.rows[ps.VarQBCore]; !ok {
				t.Errorf("the disabled variation %d is not in the baseline", ps.VarQBCore)
			}
			if b.dbNow == "" || !b.gate {
				t.Errorf("baseline's clock %q, gate %v: want the database's clock and a gate", b.dbNow, b.gate)
			}
		})
	}
}

// A load the poller asks a baseline of sends the gate's view and read and
// the clock: three statements more (the posts' one pass reads the
// baseline's other posts with the rest); the load after the one that
// delivered sends none.
func TestLoadBaselineOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	for _, streams := range []int{1, 3} {
		t.Run(fmt.Sprint(streams, " streams"), func(t *testing.T) {
			t.Parallel()
			_, db := baselineShop(t, wpdb.Options{LoadStreams: streams}, true)
			ctx := context.Background()
			// The gate's first read on a DB learns that MariaDB has no
			// stats expiry (one statement more, once): learned here.
			view(t, db, func(ctx context.Context, tx *wpdb.Tx) error {
				_, _, _, err := tx.PostsUpdated(ctx)
				return err
			})
			load := func() int64 {
				t.Helper()
				before := db.Queries()
				if _, err := db.LoadShop(ctx, catalog.ShopReads); err != nil {
					t.Fatal(err)
				}
				return db.Queries() - before
			}
			plain := load()
			asked := 0
			p := New(db, catalog.ShopReads, Options{})
			startAsking(t, db, p, hookedPoller{Poller: p, asked: &asked})
			if got, want := load(), plain+3; got != want {
				t.Errorf("the load asked for a baseline sent %d statements, want %d", got, want)
			}
			if p.slot.take(p.request) == nil {
				t.Error("the load asked for a baseline delivered none")
			}
			if got := load(); got != plain {
				t.Errorf("the load after the delivery sent %d statements, want %d as before", got, plain)
			}
			if asked != 1 {
				t.Errorf("%d loads read a baseline, want 1", asked)
			}
		})
	}
}

// A load delivers for the latest request only, once; a poller takes one
// delivered for its request or a later one (whose load began after its
// request too).
func TestBaselineSlot(t *testing.T) {
	t.Parallel()
	var s baselineSlot
	if s.wanted() != 0 || s.take(0) != nil {
		t.Fatal("a new slot wants or holds a baseline")
	}
	first := s.ask()
	second := s.ask() // Start called again before a load delivered
	if got := s.wanted(); got != second {
		t.Fatalf("wanted %d, want the latest request %d", got, second)
	}
	s.deliver(&scanBaseline{gen: first}) // a load that began before the second request
	if s.take(first) != nil || s.wanted() != second {
		t.Fatal("a baseline for an older request was kept")
	}
	s.deliver(&scanBaseline{gen: second})
	if s.wanted() != 0 {
		t.Error("a delivered request is still wanted")
	}
	s.deliver(&scanBaseline{gen: second, dbNow: "later"}) // a second load: not wanted
	b := s.take(first)
	if b == nil || b.gen != second || b.dbNow != "" {
		t.Fatalf("took %+v, want the first delivery for request %d", b, second)
	}
	if s.take(second) != nil {
		t.Error("a baseline was taken twice")
	}
	// A poller that stops withdraws its request and what was delivered.
	third := s.ask()
	s.drop(second) // an older request's: nothing
	if s.wanted() != third {
		t.Error("an older request's withdrawal withdrew the latest")
	}
	s.deliver(&scanBaseline{gen: third})
	s.drop(third)
	if s.wanted() != 0 || s.take(third) != nil {
		t.Error("a withdrawn request is still wanted or its baseline held")
	}
}

// Start runs the cheap round alone; the scan waits for the whole load's
// baseline, and the cheap rounds go on meanwhile. A change committed
// right after the load's snapshot, which the load does not show, is
// reported by the first scan: on one transaction and on streams.
func TestPollBaselineFromLoad(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		streams int
	}{
		{"one transaction", 1},
		{"streams", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ps := newPollShop(false)
			db, raw := openShopWith(t, ps.shop, wpdb.Options{Prefix: "wp_", LoadStreams: tt.streams})
			clock := &testClock{t: wpdbtest.Now}
			var stats []Stats
			p := New(db, catalog.ShopReads, Options{Now: clock.Now, OnPoll: func(s Stats) { stats = append(stats, s) }})
			ctx := context.Background()
			before := db.Queries()
			const saved = "2026-11-22 10:00:00"
			save := func() {
				wpdbtest.Exec(t, raw, "a save after the load's snapshot",
					`UPDATE wp_posts SET post_modified_gmt = '`+saved+`' WHERE ID = `+fmt.Sprint(ps.cuffs))
			}
			startAsking(t, db, p, hookedPoller{Poller: p, atClock: save})
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
			wpdbtest.Exec(t, raw, "an edit before the load", `UPDATE wp_posts SET post_title = 'Radar 2' WHERE ID = `+fmt.Sprint(ps.radar))
			stats = nil
			clock.Add(p.o.Interval)
			if got := p.pollOnce(ctx); got != nil || len(stats) != 1 || stats[0].Scan {
				t.Fatalf("a round before the load: changes %v, stats %+v; want a cheap round alone", describe(got), stats)
			}

			rows, err := db.LoadShop(ctx, catalog.ShopReads)
			if err != nil {
				t.Fatal(err)
			}
			for _, post := range rows.Products.Posts {
				if post.ID == ps.cuffs && post.Modified == saved {
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
	clock := &testClock{t: wpdbtest.Now}
	var stats []Stats
	p := New(db, catalog.ShopReads, Options{Now: clock.Now, OnPoll: func(s Stats) { stats = append(stats, s) }})
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
	wpdbtest.Exec(t, raw, "edit", `UPDATE wp_posts SET post_modified_gmt = '2026-11-22 10:00:00' WHERE ID = `+fmt.Sprint(ps.radar))
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
	if !p.awaiting || p.rows != nil || p.slot.wanted() != p.request {
		t.Errorf("Start again: awaiting %v, %d posts, wanted %d; want a new request", p.awaiting, len(p.rows), p.slot.wanted())
	}
}
