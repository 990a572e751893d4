package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/api"
	"catalogd/internal/demoshop"
	"catalogd/internal/faultproxy"
	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
)

// Fault injection against the real binary: the database is reached through
// a proxy that takes it away, slows it, turns it into a black hole or
// resets a connection in the middle of a result set. Whatever happens,
// catalogd answers: never a 500, never internals in a body. Until the
// first snapshot of the shop is loaded it answers 503 with Retry-After;
// from then on every request is answered from the snapshot in memory, so a
// database fault shows on /readyz only, a failed reload keeps the last
// snapshot whole, and the next one brings the shop's edits in by itself.

// throughProxy returns dsn with its address replaced by addr and a short
// dial timeout.
func throughProxy(t *testing.T, dsn, addr string) string {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr = addr
	cfg.Timeout = time.Second
	return cfg.FormatDSN()
}

// dbAddr is the host:port of the server dsn names.
func dbAddr(t *testing.T, dsn string) string {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Addr
}

// internals are strings no response body may hold: SQL, addresses, the
// driver's and Go's words, file paths, table names.
var internals = []string{"dial", "tcp", "127.0.0.1", "sql", "select ", "driver", "mysql", "mariadb", "connection",
	"invalid conn", "eof", "goroutine", "panic", ".go", "/work", "/tmp", "wp_", "catalogd_test", "context deadline"}

// checkClean asserts that an answer is a response (no transport error),
// not a 500, JSON, and free of internals; a 5xx must be the contract's
// 503 with Retry-After.
func checkClean(t *testing.T, what string, a answer) {
	t.Helper()
	if a.err != nil {
		t.Errorf("%s: %v", what, a.err)
		return
	}
	if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: %d with Content-Type %q: %.200s", what, a.status, ct, a.body)
	}
	if !json.Valid(a.body) {
		t.Errorf("%s: %d with a body that is not JSON: %.200q", what, a.status, a.body)
	}
	lower := strings.ToLower(string(a.body))
	if a.status >= 400 {
		for _, s := range internals {
			if strings.Contains(lower, s) {
				t.Errorf("%s: %d body holds %q: %s", what, a.status, s, a.body)
			}
		}
	}
	if a.status >= 500 {
		var e api.Error
		_ = json.Unmarshal(a.body, &e)
		if a.status != http.StatusServiceUnavailable || e.Code != "shop_unavailable" || e.Data.Status != 503 {
			t.Errorf("%s: %d %s, want only 503 shop_unavailable among server errors: %s", what, a.status, e.Code, a.body)
			return
		}
		if n, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || n < 1 {
			t.Errorf("%s: 503 with Retry-After %q", what, a.header.Get("Retry-After"))
		}
		if cc := a.header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("%s: 503 with Cache-Control %q, want no-store", what, cc)
		}
	}
}

// TestFaultDatabaseDownAtStart: catalogd starts without its database,
// says so on /readyz, answers 503 with Retry-After, and serves as soon as
// the database comes back, by itself.
func TestFaultDatabaseDownAtStart(t *testing.T) {
	dsn, _ := testdb.Load(t, jobsShop())
	proxy := faultproxy.Start(t, dbAddr(t, dsn))
	proxy.SetDown(true)
	r := startFaulty(t, throughProxy(t, dsn, proxy.Addr()), "CATALOG_POLL_INTERVAL=200ms")

	if got := r.ready(t); got != http.StatusServiceUnavailable {
		t.Errorf("/readyz with the database down = %d, want 503", got)
	}
	for _, path := range []string{"/catalog", "/catalog/categories", "/catalog/products", "/catalog/products?per_page=1",
		"/catalog/products/police-radar"} {
		a := r.fetch(r.API + path)
		checkClean(t, path, a)
		if a.status != http.StatusServiceUnavailable {
			t.Errorf("%s with the database down = %d, want 503: %s", path, a.status, a.body)
		}
	}

	proxy.SetDown(false)
	r.waitReadyz(t, http.StatusOK, 10*time.Second)
	for _, path := range []string{"/catalog", "/catalog/categories", "/catalog/products", "/catalog/products/police-radar"} {
		var a answer
		r.poll(t, 10*time.Second, path+" after the database returned", func() bool {
			a = r.fetch(r.API + path)
			checkClean(t, path, a)
			return a.status == http.StatusOK
		})
	}
	status, m := getJSON(t, r.Client, r.API+"/catalog")
	if status != 200 || m["product_count"] != float64(2) {
		t.Errorf("after recovery /catalog = %d %v", status, m)
	}
	r.alive(t)
}

// TestFaultDatabaseCutUnderLoad takes the database away while clients
// hammer warm and cold keys after the first load: every request keeps
// answering from the snapshot in memory, fast, with the same bytes as
// before (404 for an unknown slug), never a 5xx, while /readyz says the
// database is away; once it is back, an edit in the shop shows within a
// few poll intervals, without a restart.
func TestFaultDatabaseCutUnderLoad(t *testing.T) {
	dsn, raw := testdb.Load(t, jobsShop())
	proxy := faultproxy.Start(t, dbAddr(t, dsn))
	// A cache TTL far shorter than the outage: copies expire during it and
	// are computed again, from memory.
	r := startFaulty(t, throughProxy(t, dsn, proxy.Addr()), "CATALOG_CACHE_TTL=100ms",
		"CATALOG_QUERY_TIMEOUT=5s", "CATALOG_POLL_INTERVAL=100ms")
	r.waitReadyz(t, http.StatusOK, 10*time.Second)
	r.waitBaseline(t)
	before := r.answers(t, servedPaths)

	// phase: 0 before the outage, 1 during it, 2 after it (the edit comes
	// in phase 2).
	var phase atomic.Int32
	type seen struct {
		phase int32
		path  string
		cold  bool
		a     answer
	}
	var (
		mu    sync.Mutex
		log   []seen
		count [3]atomic.Int64
		stop  = make(chan struct{})
		wg    sync.WaitGroup
		cold  atomic.Int64
	)
	halt := sync.OnceFunc(func() {
		close(stop)
		wg.Wait()
	})
	defer halt() // a failure below must not leave the clients running
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				path, isCold := servedPaths[(w+i)%len(servedPaths)], false
				if i%4 == 3 {
					path, isCold = fmt.Sprintf("/catalog/products/cold-%d", cold.Add(1)), true
				}
				a := r.fetch(r.API + path)
				// An answer that overlapped a change of phase counts as
				// one of the later phase, which allows more.
				ph := phase.Load()
				mu.Lock()
				log = append(log, seen{phase: ph, path: path, cold: isCold, a: a})
				mu.Unlock()
				count[ph].Add(1)
			}
		}(w)
	}
	// waitAnswers waits, bounded, until the clients have had n answers in
	// the phase and cond (if any) holds.
	waitAnswers := func(ph int32, n int64, what string, cond func() bool) {
		t.Helper()
		r.poll(t, 10*time.Second, fmt.Sprintf("phase %d: not %d answers %s", ph, n, what), func() bool {
			return count[ph].Load() >= n && (cond == nil || cond())
		})
	}
	waitAnswers(0, 100, "", nil)

	phase.Store(1)
	proxy.SetDown(true)
	down, downSince := r.metricsOf(t), time.Now()
	r.waitReadyz(t, http.StatusServiceUnavailable, 5*time.Second)
	// Long enough that the poller met the refusing database at several
	// ticks, and that every cached copy expired and was computed again
	// while it was away.
	waitAnswers(1, 400, "over 5 poll intervals, with cache misses computed during the outage", func() bool {
		return time.Since(downSince) > 5*100*time.Millisecond &&
			r.metricsOf(t)["catalogd_cache_misses_total"] >= down["catalogd_cache_misses_total"]+float64(2*len(servedPaths))
	})
	if got := r.ready(t); got != http.StatusServiceUnavailable {
		t.Errorf("/readyz late in the outage = %d, want 503", got)
	}

	proxy.SetDown(false)
	r.waitReadyz(t, http.StatusOK, 10*time.Second)
	phase.Store(2)
	editPrice(t, raw, "police-radar", "25")
	// Poll interval 100ms: a few of them, and the time a load takes.
	r.waitPrice(t, "police-radar", "25.00", 3*time.Second)
	after := r.answers(t, servedPaths)
	if got := priceOf(t, after["/catalog/products"].body, "police-radar"); got != "25.00" {
		t.Errorf("the list shows police-radar at %q once its page shows 25.00", got)
	}
	waitAnswers(2, count[2].Load()+100, "", nil)
	halt()
	r.alive(t)

	counts := map[string]int{}
	var slowest [3]time.Duration
	for _, s := range log {
		what := fmt.Sprintf("phase %d %s", s.phase, s.path)
		checkClean(t, what, s.a)
		if s.a.err != nil {
			continue
		}
		counts[fmt.Sprintf("phase %d %s %d", s.phase, map[bool]string{true: "cold", false: "warm"}[s.cold], s.a.status)]++
		slowest[s.phase] = max(slowest[s.phase], s.a.took)
		if x := s.a.header.Get("X-Cache"); x == "STALE" {
			t.Errorf("%s: served STALE, want an answer computed from the snapshot", what)
		}
		if s.cold {
			if s.a.status != http.StatusNotFound {
				t.Errorf("%s: %d, want 404 from memory: %s", what, s.a.status, s.a.body)
			}
			continue
		}
		old, now := before[s.path], after[s.path]
		switch {
		case s.a.status == old.status && bytes.Equal(s.a.body, old.body):
		case s.phase == 2 && s.a.status == now.status && bytes.Equal(s.a.body, now.body):
		default:
			t.Errorf("%s: %d %.300s; want the answer of before the outage (%d)%s", what, s.a.status, s.a.body,
				old.status, map[bool]string{true: " or of after the edit", false: ""}[s.phase == 2])
		}
	}
	// Nothing waits for the database: an answer that reached for it while
	// it refused would not be the snapshot's bytes checked above. How
	// long they took is the machine's, logged, not asserted.
	t.Logf("answers: %v; slowest by phase %v", counts, slowest)
}

// TestFaultSlowDatabase makes every database answer take far longer than
// CATALOG_QUERY_TIMEOUT, then turns the database into a black hole, after
// the first load: bursts of requests (lists, single products, unknown
// slugs) keep answering from memory, correctly and in well under the
// query deadline; /readyz says 503; goroutines and database connections
// stay bounded however long the fault lasts (the poller reads one
// signature at a time); and once the database is fast again, an edit in
// the shop shows.
func TestFaultSlowDatabase(t *testing.T) {
	dsn, raw := testdb.Load(t, jobsShop())
	proxy := faultproxy.Start(t, dbAddr(t, dsn))
	const (
		maxOpen      = 4
		queryTimeout = 500 * time.Millisecond
		burstSize    = 60
	)
	r := startFaulty(t, throughProxy(t, dsn, proxy.Addr()), "CATALOG_QUERY_TIMEOUT="+queryTimeout.String(),
		fmt.Sprintf("CATALOG_DB_MAX_OPEN=%d", maxOpen), "CATALOG_POLL_INTERVAL=100ms")
	r.waitReadyz(t, http.StatusOK, 10*time.Second)
	r.waitBaseline(t)

	// A burst: unknown slugs (404) and lists of every size, with and
	// without a filter, each a cache key of its own.
	path := func(name string, i int) string {
		if i%2 == 0 {
			return fmt.Sprintf("/catalog/products/%s-%d", name, i)
		}
		p := fmt.Sprintf("/catalog/products?per_page=%d", i%50+1)
		if i >= 50 {
			p += "&category=jobs"
		}
		return p
	}
	var lists []string
	for i := 1; i < burstSize; i += 2 {
		lists = append(lists, path("", i))
	}
	want := r.answers(t, lists)
	base := r.metricsOf(t)["go_goroutines"]

	// bounded fails the test when catalogd holds more connections than
	// CATALOG_DB_MAX_OPEN or more goroutines than a few over base.
	bounded := func(t *testing.T, what string, slack float64) {
		t.Helper()
		m := r.metricsOf(t)
		if open := m["go_sql_open_connections"]; open > maxOpen {
			t.Errorf("%s: %v database connections open, more than CATALOG_DB_MAX_OPEN=%d", what, open, maxOpen)
		}
		if g := m["go_goroutines"]; g > base+slack {
			t.Errorf("%s: %v goroutines, %v before the fault", what, g, base)
		}
	}
	burst := func(t *testing.T, name string) {
		t.Helper()
		tried := proxy.Accepted()
		var wg sync.WaitGroup
		answers := make([]answer, burstSize)
		for i := range burstSize {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i] = r.fetch(r.API + path(name, i))
			}()
		}
		wg.Wait()
		// No request reaches for the database: what connections were
		// tried meanwhile are the poller's, one per tick at most.
		if n := proxy.Accepted() - tried; n > 2 {
			t.Errorf("%s: %d connections to the database tried during a burst of %d requests", name, n, burstSize)
		}
		var slowest time.Duration
		for i, a := range answers {
			p := path(name, i)
			what := fmt.Sprintf("%s request %d %s", name, i, p)
			checkClean(t, what, a)
			slowest = max(slowest, a.took)
			switch w, isList := want[p]; {
			case a.err != nil:
			case !isList && a.status != http.StatusNotFound:
				t.Errorf("%s: %d, want 404 from memory: %s", what, a.status, a.body)
			case isList && (a.status != w.status || !bytes.Equal(a.body, w.body)):
				t.Errorf("%s: %d %.300s, want the answer of before the fault", what, a.status, a.body)
			}
		}
		// Nothing waits for the database: the connections tried say so
		// above. How long the answers took is the machine's, logged, not
		// asserted.
		t.Logf("%s: %d answers, slowest %v (CATALOG_QUERY_TIMEOUT=%v)", name, burstSize, slowest, queryTimeout)
		// The burst's client connections close, and their goroutines go.
		var g float64
		if err := r.Poll(5*time.Second, func() bool {
			g = r.metricsOf(t)["go_goroutines"]
			return g <= base+10
		}); err != nil {
			t.Errorf("%s: %v goroutines 5s after the burst, %v before the fault (%v)", name, g, base, err)
		}
	}
	// lasts keeps the fault on while the poller tries the database again
	// and again (each try a new connection to it, the last one having
	// been closed at its deadline), and checks that nothing piles up.
	lasts := func(t *testing.T, what string, tries int) {
		t.Helper()
		first := proxy.Accepted()
		// The deadline only bounds the wait: the poller tries once a
		// second plus the query deadline, which a busy machine stretches
		// (4 tries did not fit 5.4s beside other tests), so it is a
		// minute, and what is asserted is that the tries come and nothing
		// piles up meanwhile.
		within := time.Minute
		r.poll(t, within, fmt.Sprintf("%s: not %d connections tried", what, tries), func() bool {
			bounded(t, what, 20)
			return proxy.Accepted() >= first+tries
		})
		bounded(t, what, 20)
	}

	t.Run("slow", func(t *testing.T) {
		proxy.SetDelay(5 * time.Second)
		defer proxy.SetDelay(0)
		r.waitReadyz(t, http.StatusServiceUnavailable, 5*time.Second)
		burst(t, "slow")
		lasts(t, "slow", 4)
		burst(t, "slow-again")
	})
	t.Run("black hole", func(t *testing.T) {
		proxy.SetBlackhole(true)
		defer proxy.SetBlackhole(false)
		r.waitReadyz(t, http.StatusServiceUnavailable, 5*time.Second)
		burst(t, "blackhole")
		lasts(t, "black hole", 4)
		burst(t, "blackhole-again")
	})

	r.waitReadyz(t, http.StatusOK, 10*time.Second)
	editPrice(t, raw, "car-dealer", "35")
	r.waitPrice(t, "car-dealer", "35.00", 3*time.Second)
	var m proctest.Metrics
	if err := r.Poll(5*time.Second, func() bool {
		m = r.metricsOf(t)
		return m["go_goroutines"] <= base+10 && m["go_sql_open_connections"] <= maxOpen
	}); err != nil {
		t.Errorf("%v goroutines (%v before), %v connections open 5s after the faults (%v)",
			m["go_goroutines"], base, m["go_sql_open_connections"], err)
	}
	r.alive(t)
}

// TestFaultResetMidResultSet resets the database connection (TCP RST) at
// many points of the byte stream of a snapshot reload — inside result
// sets and right after one ends, before the next statement is sent. A
// reload cut anywhere never shows: every answer is the complete old state
// or the complete new one, byte for byte, never a 500 or a truncated
// body, and the reload after the cut brings the edit in.
//
// The poll source sees a price edit and the product is read again, so
// each round arms a cut at the next point, edits a price in the database
// directly and waits for the edit to show. The points come from the chunks
// the database sent for one such change, recorded the same way; the bytes
// of a poll round or two come before the read's in both, so the points
// land at the same place give or take one of those.
func TestFaultResetMidResultSet(t *testing.T) {
	dsn, raw := testdb.Load(t, demoshop.Shop())
	proxy := faultproxy.Start(t, dbAddr(t, dsn))
	// No origin cache: every answer is computed from the snapshot of the
	// moment.
	r := startFaulty(t, throughProxy(t, dsn, proxy.Addr()), "CATALOG_CACHE_TTL=0",
		"CATALOG_POLL_INTERVAL=100ms", "CATALOG_QUERY_TIMEOUT=5s")
	r.waitReadyz(t, http.StatusOK, 10*time.Second)
	r.waitBaseline(t)
	const slug = "police-mdt"
	const product = "/catalog/products/" + slug
	paths := []string{"/catalog/products?per_page=50", product, "/catalog/categories", "/catalog"}
	state := r.answers(t, paths) // the complete state served now

	// round edits the price, waits until it shows, and checks every answer
	// on the way; it returns how many change reads failed meanwhile.
	price := 20
	reloadFailed := func() int {
		return strings.Count(r.Stderr.String(), "a change in the shop cannot be read yet") // catalog.Follow's
	}
	round := func(what string) (failed int) {
		t.Helper()
		failedBefore := reloadFailed()
		price++
		want := fmt.Sprintf("%d.00", price)
		editPrice(t, raw, slug, strconv.Itoa(price))
		type seen struct {
			path string
			a    answer
		}
		var log []seen
		r.poll(t, 5*time.Second, fmt.Sprintf("%s: the edit to %s does not show", what, want), func() bool {
			shown := false
			for _, p := range paths {
				a := r.fetch(r.API + p)
				checkClean(t, what+" "+p, a)
				if a.err != nil || a.status != http.StatusOK {
					t.Fatalf("%s: %s: %d %v: %.300s", what, p, a.status, a.err, a.body)
				}
				log = append(log, seen{p, a})
				if p == product && priceOf(t, a.body, slug) == want {
					shown = true
				}
			}
			return shown
		})
		// The new state, whole: once the product shows the edit, every
		// answer comes from the new snapshot.
		next := r.answers(t, paths)
		for _, p := range paths[:2] {
			if got := priceOf(t, next[p].body, slug); got != want {
				t.Fatalf("%s: %s shows %s at %q once its page shows %s", what, p, slug, got, want)
			}
		}
		// Every answer on the way was the old state's or the new one's,
		// and once one was the new one's none was the old one's again: a
		// snapshot is swapped in whole, and only forward.
		newSeen := false
		for i, s := range log {
			isOld, isNew := bytes.Equal(s.a.body, state[s.path].body), bytes.Equal(s.a.body, next[s.path].body)
			switch {
			case !isOld && !isNew:
				t.Errorf("%s: answer %d, %s, is neither the old state nor the new one: %.300s\nold: %.300s\nnew: %.300s",
					what, i, s.path, s.a.body, state[s.path].body, next[s.path].body)
			case isNew && !isOld:
				newSeen = true
			case isOld && !isNew && newSeen:
				t.Errorf("%s: answer %d, %s, is the old state after an answer of the new one", what, i, s.path)
			}
		}
		state = next
		return reloadFailed() - failedBefore
	}

	// One change read, recorded: where the database's chunks end.
	proxy.Record(true)
	if n := round("recorded reload"); n != 0 {
		t.Fatalf("%d reloads failed without a fault", n)
	}
	proxy.Record(false)
	var bounds []int64
	var sum int64
	for _, n := range proxy.Recorded() {
		sum += int64(n)
		bounds = append(bounds, sum)
	}
	var points []int64
	for i, end := range bounds {
		points = append(points, end) // right after a chunk: between statements
		start := int64(0)
		if i > 0 {
			start = bounds[i-1]
		}
		if end-start > 40 {
			points = append(points, start+(end-start)/2, start+7) // inside a result set
		}
	}
	t.Logf("one change read and the poll rounds around it: %d bytes in %d chunks; %d cut points", sum, len(bounds), len(points))

	var cuts, failed int
	for _, n := range points {
		before := proxy.Cuts()
		proxy.CutAfter(n)
		f := round(fmt.Sprintf("cut after %d bytes", n))
		proxy.Disarm()
		if proxy.Cuts() > before {
			cuts++
		}
		failed += f
	}
	t.Logf("%d cut points: %d cuts, %d change reads failed and were retried", len(points), cuts, failed)
	if cuts < 10 || failed < 10 {
		t.Errorf("%d cuts, %d failed change reads: the test did not exercise what it should", cuts, failed)
	}
	r.alive(t)
	if t.Failed() {
		t.Logf("catalogd's log of its 500s:\n%s", grepLines(r.Stderr.String(), "status=500"))
	}
}

// grepLines returns the lines of s that hold sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
