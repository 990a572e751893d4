package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/deploy/seed"
	"catalogd/internal/faultproxy"
	"catalogd/internal/testdb"
	"catalogd/internal/testnet"
)

// Fault injection against the real binary: the database is reached through
// a proxy that takes it away, slows it, turns it into a black hole or
// resets a connection in the middle of a result set. Whatever happens,
// catalogd answers: never a 500, never internals in a body, a cached copy
// rather than an error, and it recovers by itself.

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

// running is a catalogd started for a fault test.
type running struct {
	*proc
	api, admin string // http://host:port of the API base and of the admin listener
	client     *http.Client
}

const faultSite = "https://shop.example"

// startFaulty starts catalogd on dsn with the extra settings and waits
// until /healthz answers (not /readyz: the database may be down).
func startFaulty(t *testing.T, dsn string, kv ...string) *running {
	t.Helper()
	public, admin := testnet.FreeAddr(t), testnet.FreeAddr(t)
	env := testnet.Environ(append([]string{"CATALOG_DSN=" + dsn, "CATALOG_LISTEN=" + public,
		"CATALOG_ADMIN_LISTEN=" + admin, "CATALOG_SITE_URL=" + faultSite, "CATALOG_ACCESS_LOG=false"}, kv...)...)
	r := &running{proc: start(t, env), api: "http://" + public + "/wp-json/shop/v1",
		admin: "http://" + admin, client: &http.Client{Timeout: 10 * time.Second}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := r.client.Get(r.admin + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return r
			}
		}
		select {
		case <-r.done:
			t.Fatalf("catalogd exited: %v; stderr:\n%s", r.err, r.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("/healthz not 200 within 10s (%v); stderr:\n%s", err, r.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive fails the test when the process has exited: recovery must come
// without a restart.
func (r *running) alive(t *testing.T) {
	t.Helper()
	select {
	case <-r.done:
		t.Fatalf("catalogd exited: %v; stderr:\n%s", r.err, r.stderr.String())
	default:
	}
}

// ready reports the status of /readyz.
func (r *running) ready(t *testing.T) int {
	t.Helper()
	resp, err := r.client.Get(r.admin + "/readyz")
	if err != nil {
		t.Fatalf("/readyz: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// answer is one response as a client saw it.
type answer struct {
	status int
	header http.Header
	body   []byte
	took   time.Duration
	err    error
}

func (r *running) fetch(url string) answer {
	start := time.Now()
	resp, err := r.client.Get(url)
	if err != nil {
		return answer{err: err, took: time.Since(start)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: body, took: time.Since(start), err: err}
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
		var e struct {
			Code string `json:"code"`
			Data struct {
				Status int `json:"status"`
			} `json:"data"`
		}
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
	dsn, _ := testdb.Load(t, newShop())
	proxy := faultproxy.Start(t, dbAddr(t, dsn))
	proxy.SetDown(true)
	r := startFaulty(t, throughProxy(t, dsn, proxy.Addr()), "CATALOG_POLL_INTERVAL=200ms")

	if got := r.ready(t); got != http.StatusServiceUnavailable {
		t.Errorf("/readyz with the database down = %d, want 503", got)
	}
	for _, path := range []string{"/catalog", "/catalog/categories", "/catalog/products", "/catalog/products?per_page=1",
		"/catalog/products/police-radar"} {
		a := r.fetch(r.api + path)
		checkClean(t, path, a)
		if a.status != http.StatusServiceUnavailable {
			t.Errorf("%s with the database down = %d, want 503: %s", path, a.status, a.body)
		}
		if a.took > 3*time.Second {
			t.Errorf("%s took %v with the database refusing connections", path, a.took)
		}
	}

	proxy.SetDown(false)
	deadline := time.Now().Add(10 * time.Second)
	for r.ready(t) != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatalf("/readyz not 200 10s after the database returned; stderr:\n%s", r.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, path := range []string{"/catalog", "/catalog/categories", "/catalog/products", "/catalog/products/police-radar"} {
		for {
			a := r.fetch(r.api + path)
			checkClean(t, path, a)
			if a.status == http.StatusOK {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s still %d after the database returned: %s", path, a.status, a.body)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	status, m := getJSON(t, r.client, r.api+"/catalog")
	if status != 200 || m["product_count"] != float64(2) {
		t.Errorf("after recovery /catalog = %d %v", status, m)
	}
	r.alive(t)
}

// TestFaultDatabaseCutUnderLoad takes the database away while clients
// hammer warm and cold keys: warm keys keep answering (STALE once their
// copies expire), cold ones get 503, nothing gets a 500, and everything
// is fresh again once the database returns.
func TestFaultDatabaseCutUnderLoad(t *testing.T) {
	dsn, _ := testdb.Load(t, newShop())
	proxy := faultproxy.Start(t, dbAddr(t, dsn))
	r := startFaulty(t, throughProxy(t, dsn, proxy.Addr()), "CATALOG_CACHE_TTL=300ms",
		"CATALOG_QUERY_TIMEOUT=2s", "CATALOG_POLL_INTERVAL=200ms")
	warm := []string{"/catalog", "/catalog/categories", "/catalog/products", "/catalog/products?per_page=1&page=2",
		"/catalog/products?framework=esx", "/catalog/products?category=jobs", "/catalog/products/police-radar",
		"/catalog/products/car-dealer", "/catalog/products/hidden-gem", "/catalog/products/no-such-product",
		"/catalog/products?page=9"}
	want := map[string]answer{}
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range warm {
		for {
			a := r.fetch(r.api + p)
			if a.err == nil && a.status < 500 {
				want[p] = a
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("warm-up %s: %v %d", p, a.err, a.status)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	// phase: 0 before the outage, 1 during it, 2 after it.
	var phase atomic.Int32
	type seen struct {
		phase int32
		path  string
		cold  bool
		a     answer
	}
	var (
		mu   sync.Mutex
		log  []seen
		stop = make(chan struct{})
		wg   sync.WaitGroup
		cold atomic.Int64
	)
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
				ph := phase.Load()
				path, isCold := warm[(w+i)%len(warm)], false
				if i%4 == 3 {
					path, isCold = fmt.Sprintf("/catalog/products/cold-%d", cold.Add(1)), true
				}
				a := r.fetch(r.api + path)
				if phase.Load() != ph {
					ph = 1 // it overlapped a change: count it as during the outage
				}
				mu.Lock()
				log = append(log, seen{phase: ph, path: path, cold: isCold, a: a})
				mu.Unlock()
			}
		}(w)
	}
	time.Sleep(700 * time.Millisecond)
	phase.Store(1)
	proxy.SetDown(true)
	time.Sleep(2 * time.Second)
	if got := r.ready(t); got != http.StatusServiceUnavailable {
		t.Errorf("/readyz during the outage = %d, want 503", got)
	}
	proxy.SetDown(false)
	phase.Store(2)
	// Recovery: a fresh answer for every warm key, under load.
	deadline = time.Now().Add(10 * time.Second)
	for _, p := range warm {
		for {
			a := r.fetch(r.api + p)
			if a.err == nil && a.status < 500 && a.header.Get("X-Cache") != "STALE" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s not fresh 10s after the database returned: %d %s", p, a.status, a.header.Get("X-Cache"))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()
	r.alive(t)
	if got := r.ready(t); got != http.StatusOK {
		t.Errorf("/readyz after the outage = %d, want 200", got)
	}

	counts := map[string]int{}
	for _, s := range log {
		what := fmt.Sprintf("phase %d %s", s.phase, s.path)
		checkClean(t, what, s.a)
		if s.a.err != nil {
			continue
		}
		key := fmt.Sprintf("phase %d %s %d %s", s.phase, map[bool]string{true: "cold", false: "warm"}[s.cold],
			s.a.status, s.a.header.Get("X-Cache"))
		counts[key]++
		if s.cold {
			if s.phase != 1 && s.a.status != http.StatusNotFound {
				t.Errorf("%s: %d outside the outage, want 404: %s", what, s.a.status, s.a.body)
			}
			continue
		}
		w := want[s.path]
		if s.a.status != w.status || !bytes.Equal(s.a.body, w.body) {
			t.Errorf("%s: %d %s, want the warm copy (%d): %.300s", what, s.a.status, s.a.header.Get("X-Cache"),
				w.status, s.a.body)
		}
	}
	t.Logf("answers: %v", counts)
	var stale, cold503 int
	for k, n := range counts {
		if strings.HasPrefix(k, "phase 1 warm") && strings.HasSuffix(k, "STALE") {
			stale += n
		}
		if strings.HasPrefix(k, "phase 1 cold 503") {
			cold503 += n
		}
	}
	if stale == 0 {
		t.Errorf("no warm key was served STALE during the outage: %v", counts)
	}
	if cold503 == 0 {
		t.Errorf("no cold key got a 503 during the outage: %v", counts)
	}
}

// metricsOf scrapes the admin listener.
func (r *running) metricsOf(t *testing.T) map[string]float64 {
	t.Helper()
	return scrape(t, r.client, r.admin+"/metrics")
}

// TestFaultSlowDatabase makes every database answer take far longer than
// CATALOG_QUERY_TIMEOUT, then turns the database into a black hole: cold
// requests come back quickly as 503, and goroutines and connections stay
// bounded and return to where they were.
func TestFaultSlowDatabase(t *testing.T) {
	dsn, _ := testdb.Load(t, newShop())
	shaper := faultproxy.StartShaper(t, dbAddr(t, dsn))
	const maxOpen = 4
	r := startFaulty(t, throughProxy(t, dsn, shaper.Addr()), "CATALOG_QUERY_TIMEOUT=300ms",
		fmt.Sprintf("CATALOG_DB_MAX_OPEN=%d", maxOpen), "CATALOG_POLL_INTERVAL=200ms")
	deadline := time.Now().Add(10 * time.Second)
	for r.ready(t) != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatalf("not ready; stderr:\n%s", r.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if a := r.fetch(r.api + "/catalog"); a.status != http.StatusOK {
		t.Fatalf("/catalog before the fault: %d %s", a.status, a.body)
	}
	time.Sleep(300 * time.Millisecond)
	base := r.metricsOf(t)["go_goroutines"]

	burst := func(t *testing.T, name string, n int) {
		t.Helper()
		var wg sync.WaitGroup
		answers := make([]answer, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				path := fmt.Sprintf("/catalog/products/%s-%d", name, i)
				if i%2 == 1 {
					path = fmt.Sprintf("/catalog/products?per_page=%d", i%50+1)
					if i >= 50 {
						path += "&category=jobs"
					}
				}
				answers[i] = r.fetch(r.api + path)
			}()
		}
		// While the burst is in flight: bounded.
		time.Sleep(150 * time.Millisecond)
		m := r.metricsOf(t)
		if open := m["catalogd_db_connections_open"]; open > maxOpen {
			t.Errorf("%s: %v connections open, more than CATALOG_DB_MAX_OPEN=%d", name, open, maxOpen)
		}
		if g := m["go_goroutines"]; g > base+float64(4*n)+50 {
			t.Errorf("%s: %v goroutines with %d requests in flight (%v before)", name, g, n, base)
		}
		wg.Wait()
		var slowest time.Duration
		for i, a := range answers {
			checkClean(t, fmt.Sprintf("%s request %d", name, i), a)
			if a.err == nil && a.status != http.StatusServiceUnavailable {
				t.Errorf("%s request %d: %d, want 503: %s", name, i, a.status, a.body)
			}
			slowest = max(slowest, a.took)
		}
		// 300ms of query deadline; a request may first wait for a
		// connection under the same deadline. Leave room for -race.
		if slowest > 2*time.Second {
			t.Errorf("%s: slowest answer took %v with CATALOG_QUERY_TIMEOUT=300ms", name, slowest)
		}
		t.Logf("%s: %d answers, slowest %v", name, n, slowest)
		// And it all goes away again.
		deadline := time.Now().Add(5 * time.Second)
		for {
			m := r.metricsOf(t)
			if m["go_goroutines"] <= base+10 && m["catalogd_db_connections_open"] <= maxOpen {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("%s: %v goroutines (%v before), %v connections open 5s after the burst",
					name, m["go_goroutines"], base, m["catalogd_db_connections_open"])
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	t.Run("slow", func(t *testing.T) {
		shaper.SetDelay(3 * time.Second)
		defer shaper.SetDelay(0)
		burst(t, "slow", 60)
		if got := r.ready(t); got != http.StatusServiceUnavailable {
			t.Errorf("/readyz with a database slower than the deadline = %d, want 503", got)
		}
	})
	t.Run("black hole", func(t *testing.T) {
		shaper.SetBlackhole(true)
		defer shaper.SetBlackhole(false)
		burst(t, "blackhole", 60)
	})

	deadline = time.Now().Add(10 * time.Second)
	for {
		a := r.fetch(r.api + "/catalog/categories")
		if a.status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no recovery 10s after the database became fast again: %d %s", a.status, a.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.alive(t)
}

// TestFaultResetMidResultSet resets the database connection (TCP RST) at
// many points of the byte stream of a request — inside result sets and
// right after one ends, before the next statement is sent. Every answer is
// either the 503 of an unreachable database or the complete, correct
// response (never a 500, never a truncated or partial 200), and the next
// request is served normally.
func TestFaultResetMidResultSet(t *testing.T) {
	dsn, _ := testdb.Load(t, seed.Demo())
	shaper := faultproxy.StartShaper(t, dbAddr(t, dsn))
	// No origin cache: every request reads the database; no poller eating
	// the byte budget of a cut.
	r := startFaulty(t, throughProxy(t, dsn, shaper.Addr()), "CATALOG_CACHE_TTL=0",
		"CATALOG_POLL_INTERVAL=1h", "CATALOG_QUERY_TIMEOUT=5s")
	paths := []string{"/catalog/products?per_page=50", "/catalog/products/police-mdt", "/catalog/categories", "/catalog"}
	want := map[string][]byte{}
	bounds := map[string][]int64{} // where the database's chunks end in one request
	for _, p := range paths {
		var a answer
		deadline := time.Now().Add(10 * time.Second)
		for {
			a = r.fetch(r.api + p)
			if a.status == http.StatusOK {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("baseline %s: %d %v", p, a.status, a.err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		want[p] = a.body
		shaper.Record(true)
		if b := r.fetch(r.api + p); !bytes.Equal(b.body, a.body) {
			t.Fatalf("%s: two answers differ", p)
		}
		shaper.Record(false)
		var sum int64
		for _, n := range shaper.Recorded() {
			sum += int64(n)
			bounds[p] = append(bounds[p], sum)
		}
	}

	var cuts, resets503, whole200, retried int
	for _, p := range paths {
		var points []int64
		for i, end := range bounds[p] {
			points = append(points, end) // right after a chunk: between statements
			start := int64(0)
			if i > 0 {
				start = bounds[p][i-1]
			}
			if end-start > 40 {
				points = append(points, start+(end-start)/2, start+7) // inside a result set
			}
		}
		for _, n := range points {
			before := shaper.Cuts()
			shaper.CutAfter(n)
			a := r.fetch(r.api + p)
			shaper.Disarm()
			cut := shaper.Cuts() > before
			what := fmt.Sprintf("%s cut after %d bytes (cut: %v)", p, n, cut)
			checkClean(t, what, a)
			switch {
			case a.err != nil:
			case a.status == http.StatusOK:
				whole200++
				if !bytes.Equal(a.body, want[p]) {
					t.Errorf("%s: a 200 that is not the whole answer: %.300s", what, a.body)
				}
			case a.status == http.StatusServiceUnavailable:
				resets503++
			case a.status >= 500: // checkClean said what is wrong
			default:
				t.Errorf("%s: %d: %s", what, a.status, a.body)
			}
			if cut {
				cuts++
			}
			// The next request is served normally. A cut right after the
			// last answer of a request leaves a pooled connection that the
			// reset reaches a moment later: if the next request takes it
			// first, its first statement fails, and it may get a 503 (the
			// contract's answer). The one after must be served.
			for attempt := 1; ; attempt++ {
				b := r.fetch(r.api + p)
				if b.status == http.StatusOK && bytes.Equal(b.body, want[p]) {
					break
				}
				checkClean(t, what+": the request after it", b)
				if attempt == 2 || b.status != http.StatusServiceUnavailable {
					t.Errorf("%s: request %d after the cut: %d %v: %.300s", what, attempt, b.status, b.err, b.body)
					break
				}
				retried++
			}
		}
	}
	t.Logf("%d cuts: %d answered 503, %d answered whole; %d next requests met the reset connection", cuts, resets503,
		whole200, retried)
	if cuts < 10 || resets503 == 0 {
		t.Errorf("only %d cuts, %d 503s: the test did not exercise what it should", cuts, resets503)
	}
	r.alive(t)
	if t.Failed() {
		t.Logf("catalogd's log of its 500s:\n%s", grepLines(r.stderr.String(), "status=500"))
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
