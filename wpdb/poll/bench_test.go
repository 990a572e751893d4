package poll

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/wpdb"
)

// The poller's database time on the shops wpseed makes (make bench seeds
// them; or bin/wpseed -db wp_bench_10k -products 10000, and 100000 into
// wp_bench_100k): per cheap round, per scan, and per second of polling at
// the default interval and budget.

// openBenchShop opens the seeded shop wp_bench_<size> on the test server,
// or skips, saying how to seed it (testdb.BenchShop).
func openBenchShop(b *testing.B, size string) *wpdb.DB {
	b.Helper()
	_, dsn := testdb.BenchShop(b, size)
	db, err := wpdb.Open(dsn, wpdb.Options{Prefix: "wp_"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// startBenchPoller starts a poller with the defaults, adding each poll's
// database time to *round or *scan.
func startBenchPoller(b *testing.B, db *wpdb.DB, round, scan *time.Duration) *Poller {
	b.Helper()
	p := New(db, catalog.ShopReads, Options{OnPoll: func(s Stats) {
		if s.Err != nil {
			b.Errorf("poll: %v", s.Err)
		}
		if s.Scan {
			*scan += s.DBTime
		} else {
			*round += s.DBTime
		}
	}})
	if err := p.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	*round, *scan = 0, 0
	return p
}

func BenchmarkPollCheapRound(b *testing.B) {
	for _, size := range testdb.BenchSizes {
		b.Run(size, func(b *testing.B) {
			var round, scan time.Duration
			p := startBenchPoller(b, openBenchShop(b, size), &round, &scan)
			n := 0
			for b.Loop() {
				if _, err := p.round(context.Background(), false); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(round.Microseconds())/1000/float64(n), "db-ms/round")
		})
	}
}

func BenchmarkPollScan(b *testing.B) {
	for _, size := range testdb.BenchSizes {
		b.Run(size, func(b *testing.B) {
			var round, scan time.Duration
			db := openBenchShop(b, size)
			p := startBenchPoller(b, db, &round, &scan)
			// The cheap rounds' share of the budget, as Run measures it.
			const rounds = 20
			for range rounds {
				if _, err := p.round(context.Background(), false); err != nil {
					b.Fatal(err)
				}
			}
			perRound := round / rounds
			n := 0
			for b.Loop() {
				if _, err := p.scan(context.Background()); err != nil {
					b.Fatal(err)
				}
				n++
			}
			perScan := scan / time.Duration(n)
			p.roundCost = perRound
			period := scanPeriod(perScan, p.scanBudget(), p.o.Interval, p.o.MaxScan)
			perSecond := perRound.Seconds()/p.o.Interval.Seconds() + perScan.Seconds()/period.Seconds()
			b.ReportMetric(float64(perScan.Microseconds())/1000, "db-ms/scan")
			b.ReportMetric(period.Seconds(), "period-s")
			b.ReportMetric(perSecond*1000, "db-ms/s")
		})
	}
}

// The gate the product scan waits behind: wp_posts' UPDATE_TIME from
// information_schema, a lookup by schema and table name whose cost does
// not depend on the shop's size, so a small shop measures it.
func BenchmarkPollGate(b *testing.B) {
	ps := newPollShop(false)
	dsn, _ := testdb.Load(b, ps.shop)
	db, err := wpdb.Open(dsn, wpdb.Options{Prefix: "wp_"})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for b.Loop() {
		err := db.View(ctx, func(ctx context.Context, tx *wpdb.Tx) error {
			_, _, ok, err := tx.PostsUpdated(ctx)
			if err == nil && !ok {
				b.Fatal("no UPDATE_TIME row for wp_posts")
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// An isolated edit on a quiet seeded shop, through Run with the defaults
// (the gate, the bucket): the time from the commit to the change reported
// (its scan included; the catalog's read of the product comes after), and
// the poller's database time per second over the whole run, quiet spells
// included. Each edit comes 3 s after the last was reported: the budget
// banked at the start (up to 5 minutes' worth) pays for the first scans;
// once spent, an edit waits for the budget to pay for its scan, which at
// 100 000 products is more than the minute this allows, so run it there
// with -benchtime 2x.
func BenchmarkPollIsolatedEdit(b *testing.B) {
	for _, size := range testdb.BenchSizes {
		b.Run(size, func(b *testing.B) {
			db := openBenchShop(b, size)
			var mu sync.Mutex
			var dbTime time.Duration
			p := New(db, catalog.ShopReads, Options{OnPoll: func(s Stats) {
				mu.Lock()
				dbTime += s.DBTime
				mu.Unlock()
				if s.Err != nil && !errors.Is(s.Err, context.Canceled) {
					b.Errorf("poll: %v", s.Err)
				}
			}})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if err := p.Start(ctx); err != nil {
				b.Fatal(err)
			}
			// The scan's baseline, which in catalogd the first whole load
			// delivers: here a scan takes it, for a load's seconds.
			if _, err := p.scan(ctx); err != nil {
				b.Fatal(err)
			}
			got := make(chan catalog.Change, 16)
			go p.Run(ctx, catalog.ChangeFunc(func(c catalog.Change) { got <- c })) //nolint:errcheck // ends with ctx
			mu.Lock()
			dbTime = 0
			mu.Unlock()
			begin := time.Now()
			var id int64
			if err := db.Pool().QueryRowContext(ctx, `SELECT MAX(ID) FROM wp_posts WHERE post_type = 'product'`).Scan(&id); err != nil {
				b.Fatal(err)
			}
			var lat []time.Duration
			for b.Loop() {
				time.Sleep(3 * time.Second) // quiet: the gate closes
				for len(got) > 0 {
					<-got
				}
				start := time.Now()
				if _, err := db.Pool().ExecContext(ctx, `UPDATE wp_posts SET post_modified_gmt = UTC_TIMESTAMP() WHERE ID = ?`, id); err != nil {
					b.Fatal(err)
				}
			wait:
				for {
					select {
					case c := <-got:
						if slices.Contains(c.Products, id) {
							lat = append(lat, time.Since(start))
							break wait
						}
					case <-time.After(time.Minute):
						b.Fatal("the edit was not reported within a minute")
					}
				}
			}
			wall := time.Since(begin)
			slices.Sort(lat)
			mu.Lock()
			b.ReportMetric(dbTime.Seconds()*1000/wall.Seconds(), "db-ms/s")
			mu.Unlock()
			b.ReportMetric(lat[len(lat)/2].Seconds(), "p50-s")
			b.ReportMetric(lat[len(lat)-1].Seconds(), "max-s")
		})
	}
}
