package poll

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
)

// BenchmarkPollTrickle measures polling at size, issue 33's figures, on
// the shops make bench seeds (1m where make bench-1m seeded it), each
// with stock WordPress indexes and with the owner's index on
// post_modified_gmt (deploy/mysql/post-modified-index.sql; the benchmark
// adds it to the seeded shop and takes it away after: the bench shops are
// ours). A catalog follows a poller with the defaults (2 s, 1 % budget),
// as catalogd does, and each price edit is saved as WooCommerce saves it
// (wpfixture.Ops.EditPrice: autocommitted statements, the posts row
// first). An edit shows when the catalog serves its new price.
//
//   - trickle-p50-s, -p99-s, -max-s: one edit every 3 s for 2 minutes,
//     each from its last statement to its price served; -within2s: how
//     many of the 40 showed within 2 s;
//   - quiet-db-ms/s, trickle-db-ms/s: the database time of every statement
//     catalogd sent (wpdb.Options.Observe), per second, over 30 quiet seconds
//     (75 s after the first snapshot: steady) and over the trickle's 2
//     minutes;
//   - wholeread-db-s: the first whole read's database time, which
//     neither window above holds: the catalog reads the whole shop again
//     every ten minutes, or less often where that would cost more than
//     half a percent of a core (catalog.wholeReadShare);
//   - burst-last-s: 500 edits in 10 s (5 writers): from the last edit's
//     last statement until all 500 prices are served; burst-shown: how
//     many showed within 2 minutes.
func BenchmarkPollTrickle(b *testing.B) {
	for _, size := range append(slices.Clip(testdb.BenchSizes), "1m") {
		for _, indexed := range []bool{false, true} {
			b.Run(size+"/"+benchMode(indexed), func(b *testing.B) {
				for b.Loop() {
					trickle(b, size, indexed)
				}
			})
		}
	}
}

// benchMode names a run: WordPress's indexes alone, or the owner's index too.
func benchMode(indexed bool) string {
	if indexed {
		return "indexed"
	}
	return "stock"
}

// trickleEdits and trickleEvery: an edit every 3 s for 2 minutes.
const (
	trickleEdits = 40
	trickleEvery = 3 * time.Second
	burstEdits   = 500
	burstWriters = 5
	burstSpan    = 10 * time.Second
	quietSpan    = 30 * time.Second
	quietSettle  = maxOpenTxn + 15*time.Second
	showWait     = 2 * time.Minute
)

func trickle(b *testing.B, size string, indexed bool) {
	raw, dsn := testdb.BenchShop(b, size)
	setModifiedIndex(b, raw, indexed)
	var dbTime atomic.Int64
	db, err := wpdb.Open(dsn, wpdb.Options{Prefix: "wp_", LoadTimeout: 10 * time.Minute,
		Observe: func(d time.Duration, _ error) { dbTime.Add(int64(d)) }})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var pollMu sync.Mutex
	pollTime := map[string]time.Duration{}
	pollRuns := map[string]int{}
	poller := New(db, catalog.ShopReads, Options{OnPoll: func(s Stats) {
		kind := "round"
		switch {
		case s.Delta:
			kind = "delta"
		case s.Scan:
			kind = "scan"
		case s.Gate:
			kind = "gate"
		}
		pollMu.Lock()
		pollTime[kind] += s.DBTime
		pollRuns[kind]++
		pollMu.Unlock()
	}})
	pollReport := func(what string) {
		pollMu.Lock()
		defer pollMu.Unlock()
		b.Logf("%s/%s: %s: poller %v (runs %v); since the last report", size, benchMode(indexed), what, pollTime, pollRuns)
		clear(pollTime)
		clear(pollRuns)
	}
	if err := poller.Start(ctx); err != nil {
		b.Fatal(err)
	}
	cat := catalog.New(db, catalog.Config{})
	w := newShowWatch(cat)
	followed := make(chan error, 1)
	go func() { followed <- cat.Follow(ctx, poller, catalog.AppliedFunc(w.applied)) }()
	defer func() {
		cancel()
		<-followed
	}()
	// The first snapshot is Follow's first Applied (asking the catalog
	// before it would start a load of its own).
	select {
	case <-w.changes:
	case <-time.After(10 * time.Minute):
		b.Fatal("no first snapshot within 10 minutes")
	}
	go w.run(ctx)
	b.ReportMetric(time.Duration(dbTime.Swap(0)).Seconds(), "wholeread-db-s")

	pollReport("first snapshot")
	// Quiet is steady: the products saved within the last minute (the
	// run before this one's edits) are pending for that minute after the
	// load (settle.go), and the waits for a late commit end with it.
	time.Sleep(quietSettle)
	dbTime.Store(0)
	pollReport("settling")
	time.Sleep(quietSpan)
	pollReport("quiet")
	b.ReportMetric(float64(time.Duration(dbTime.Swap(0)).Milliseconds())/quietSpan.Seconds(), "quiet-db-ms/s")

	ids, slugs := editableProducts(b, ctx, raw, cat, trickleEdits+burstEdits)
	ops := &wpfixture.Ops{DB: raw, Prefix: "wp_"}
	price := func(i int) string { return strconv.Itoa(1000 + i + int(time.Now().Unix()%1000)*1000) }
	begin := time.Now()
	for i := range trickleEdits {
		at := begin.Add(time.Duration(i) * trickleEvery)
		time.Sleep(time.Until(at))
		p := price(i)
		w.expect(ids[i], slugs[ids[i]], p)
		if err := ops.EditPrice(ctx, ids[i], p, ""); err != nil {
			b.Fatal(err)
		}
		w.saved(ids[i], time.Now())
	}
	time.Sleep(time.Until(begin.Add(trickleEdits * trickleEvery)))
	b.ReportMetric(float64(time.Duration(dbTime.Load()).Milliseconds())/time.Since(begin).Seconds(), "trickle-db-ms/s")
	pollReport("trickle")
	lat := w.wait(ids[:trickleEdits], showWait)
	slices.Sort(lat)
	within := 0
	for _, l := range lat {
		if l <= 2*time.Second {
			within++
		}
	}
	if len(lat) > 0 {
		b.ReportMetric(lat[len(lat)/2].Seconds(), "trickle-p50-s")
		b.ReportMetric(lat[(len(lat)*99-1)/100].Seconds(), "trickle-p99-s")
		b.ReportMetric(lat[len(lat)-1].Seconds(), "trickle-max-s")
	}
	b.ReportMetric(float64(within), "trickle-within2s")
	if len(lat) < trickleEdits {
		b.Logf("%s: %d of %d trickle edits not shown within %v", size, trickleEdits-len(lat), trickleEdits, showWait)
	}
	if missing := w.stale(ctx, ids[:trickleEdits]); len(missing) > 0 {
		report := b.Logf
		if indexed {
			report = b.Errorf
		}
		report("%s: %d trickle edits not served %v after: %v", size, len(missing), showWait, missing)
	}

	burst := ids[trickleEdits:]
	var wg sync.WaitGroup
	var last atomic.Int64
	start := time.Now()
	for wr := range burstWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := wr; i < len(burst); i += burstWriters {
				time.Sleep(time.Until(start.Add(time.Duration(i) * burstSpan / burstEdits)))
				p := price(trickleEdits + i)
				w.expect(burst[i], slugs[burst[i]], p)
				if err := ops.EditPrice(ctx, burst[i], p, ""); err != nil {
					b.Error(err)
					return
				}
				now := time.Now()
				w.saved(burst[i], now)
				for {
					l := last.Load()
					if now.UnixNano() <= l || last.CompareAndSwap(l, now.UnixNano()) {
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	shown := w.wait(burst, showWait)
	b.ReportMetric(float64(len(shown)), "burst-shown")
	if missing := w.stale(ctx, burst); len(missing) > 0 {
		report := b.Logf
		if indexed {
			report = b.Errorf
		}
		report("%s: %d burst edits not served %v after: %v", size, len(missing), showWait, missing)
	}
	if len(shown) == len(burst) {
		b.ReportMetric(max(0, w.lastShown(burst).Sub(time.Unix(0, last.Load()))).Seconds(), "burst-last-s")
	}
}

// showWatch tells when the catalog first serves each edit's price.
type showWatch struct {
	cat     *catalog.Catalog
	changes chan catalog.Applied
	mu      sync.Mutex
	want    map[int64]edit      // the edits not shown yet
	at      map[int64]time.Time // each edit's last statement
	shown   map[int64]time.Time
}

type edit struct{ slug, price string }

func newShowWatch(cat *catalog.Catalog) *showWatch {
	return &showWatch{cat: cat, changes: make(chan catalog.Applied, 1024),
		want: map[int64]edit{}, at: map[int64]time.Time{}, shown: map[int64]time.Time{}}
}

// applied is Follow's callback: it hands the change to run, which reads
// the catalog outside Follow's goroutine.
func (w *showWatch) applied(a catalog.Applied) { w.changes <- a }

// expect is called before an edit: the catalog may serve its price
// before the edit's last statement returns.
func (w *showWatch) expect(id int64, slug, price string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.shown, id)
	delete(w.at, id)
	w.want[id] = edit{slug: slug, price: price}
}

// saved records when the edit's last statement returned.
func (w *showWatch) saved(id int64, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.at[id] = at
}

func (w *showWatch) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case a := <-w.changes:
			now := time.Now()
			w.mu.Lock()
			var check []int64
			for id := range w.want {
				if a.Everything || slices.Contains(a.Products, id) {
					check = append(check, id)
				}
			}
			for _, id := range check {
				e := w.want[id]
				p, err := w.cat.Product(ctx, e.slug)
				if err == nil && p.Price != nil && samePrice(*p.Price, e.price) {
					w.shown[id] = now
					delete(w.want, id)
				}
			}
			w.mu.Unlock()
		}
	}
}

func samePrice(got, want string) bool {
	g, err1 := strconv.ParseFloat(got, 64)
	w, err2 := strconv.ParseFloat(want, 64)
	return err1 == nil && err2 == nil && g == w
}

// wait waits up to d for the edits of ids to show, and returns the
// latency of each that did.
func (w *showWatch) wait(ids []int64, d time.Duration) []time.Duration {
	deadline := time.Now().Add(d)
	for {
		w.mu.Lock()
		pending := 0
		for _, id := range ids {
			if _, ok := w.want[id]; ok {
				pending++
			}
		}
		w.mu.Unlock()
		if pending == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // polling a condition, with a deadline
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var lat []time.Duration
	for _, id := range ids {
		if s, ok := w.shown[id]; ok {
			lat = append(lat, max(0, s.Sub(w.at[id]))) // 0: served before its last statement returned
		}
	}
	return lat
}

// stale describes the edits of ids whose price the catalog does not
// serve: the product, the price saved and the one served.
func (w *showWatch) stale(ctx context.Context, ids []int64) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, id := range ids {
		if e, ok := w.want[id]; ok {
			p, err := w.cat.Product(ctx, e.slug)
			switch {
			case err != nil:
				out = append(out, fmt.Sprintf("%d (%s): %v", id, e.price, err))
			case p.Price == nil || !samePrice(*p.Price, e.price):
				out = append(out, fmt.Sprintf("%d (%s): %s", id, e.price, strOf(p.Price)))
			}
		}
	}
	return out
}

func strOf(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func (w *showWatch) lastShown(ids []int64) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	var last time.Time
	for _, id := range ids {
		if s := w.shown[id]; s.After(last) {
			last = s
		}
	}
	return last
}

// setModifiedIndex gives the bench shop's posts table the owner's index
// on post_modified_gmt, or takes it away; the shop is left without it.
func setModifiedIndex(b *testing.B, raw *sql.DB, on bool) {
	b.Helper()
	has := func() bool {
		var n int
		if err := raw.QueryRow(`SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()
			AND TABLE_NAME = 'wp_posts' AND INDEX_NAME = 'catalogd_post_modified_gmt'`).Scan(&n); err != nil {
			b.Fatal(err)
		}
		return n > 0
	}
	drop := func() {
		if has() {
			if _, err := raw.Exec(`ALTER TABLE wp_posts DROP INDEX catalogd_post_modified_gmt`); err != nil {
				b.Fatal(err)
			}
		}
	}
	if !on {
		drop()
		return
	}
	if !has() {
		if _, err := raw.Exec(`ALTER TABLE wp_posts ADD INDEX catalogd_post_modified_gmt (post_modified_gmt)`); err != nil {
			b.Fatal(err)
		}
	}
	b.Cleanup(drop)
}

// editableProducts returns n published simple products the catalog serves
// (their IDs, spread over the shop, and slugs), whose price the benchmark
// may edit.
func editableProducts(b *testing.B, ctx context.Context, raw *sql.DB, cat *catalog.Catalog, n int) ([]int64, map[int64]string) {
	b.Helper()
	rows, err := raw.Query(`SELECT p.ID, p.post_name FROM wp_posts p
		JOIN wp_postmeta m ON m.post_id = p.ID AND m.meta_key = '_regular_price' AND m.meta_value <> ''
		WHERE p.post_type = 'product' AND p.post_status = 'publish' ORDER BY p.ID`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var all []int64
	slugs := map[int64]string{}
	for rows.Next() {
		var id int64
		var slug string
		if err := rows.Scan(&id, &slug); err != nil {
			b.Fatal(err)
		}
		if p, err := cat.Product(ctx, slug); err != nil || p.Price == nil {
			continue
		}
		all = append(all, id)
		slugs[id] = slug
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	if len(all) < n {
		b.Fatalf("%d editable products, want %d", len(all), n)
	}
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = all[i*len(all)/n]
	}
	return ids, slugs
}
