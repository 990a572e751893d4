// Command catalogbench measures catalogd at shop scale and writes a
// Markdown report: issue 13's figures first (uncached list and single
// product latency, cached throughput beside a plain net/http server serving
// the same bytes, statements per request, RSS with a full cache, the
// start-up timeline), then each shop's detail and the top of its heap
// profile. Every figure is the median of three runs, with their spread
// (min–max). All load goes to loopback, bounded in count and time.
// `make bench` runs it after seeding the databases with wpseed.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"catalogd/internal/proctest"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "catalogbench:", err)
		os.Exit(1)
	}
}

// runs is how many times each figure is measured; the report gives the
// median and the spread.
const runs = 3

type options struct {
	bin, server, demoDB string
	samples             int
	load                time.Duration
	accessLogs          []bool // the access log settings the throughput is measured with
	loader              string // "wrk" or "go"
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("catalogbench", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.bin, "catalogd", "bin/catalogd", "catalogd binary")
	fs.StringVar(&o.server, "dsn", "root@tcp(127.0.0.1:3306)/", "server DSN; the shops' databases are read through it")
	sizes := fs.String("sizes", "demo,10k,100k", `shops, comma-separated: "demo" is the demo shop (make demo-load), `+
		`any other name the database wp_bench_<name> seeded by wpseed`)
	fs.StringVar(&o.demoDB, "demo-db", "wp_demo", `database of the "demo" shop`)
	fs.IntVar(&o.samples, "samples", 200, "sequential requests per uncached measurement, per run")
	fs.DurationVar(&o.load, "load", 5*time.Second, "duration of each throughput run")
	accessLog := fs.String("access-log", "both", `catalogd's access log during the throughput runs: "on" (the default configuration), "off", or "both"`)
	loader := fs.String("loader", "auto", `load generator for throughput: "wrk", "go" (built in), or "auto" (wrk when on PATH)`)
	out := fs.String("out", "docs/benchmarks.md", "report file")
	changeSizes := fs.String("changes-sizes", "10k,100k", `shops the change feed is measured on (issue 12), comma-separated; "" skips it`)
	wpseed := fs.String("wpseed", "bin/wpseed", "wpseed binary, which seeds the shops into the private server with a binary log")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch *accessLog {
	case "on":
		o.accessLogs = []bool{true}
	case "off":
		o.accessLogs = []bool{false}
	case "both":
		o.accessLogs = []bool{true, false}
	default:
		return fmt.Errorf("-access-log: want on, off or both, got %q", *accessLog)
	}
	switch *loader {
	case "auto":
		o.loader = "go"
		if _, err := exec.LookPath("wrk"); err == nil {
			o.loader = "wrk"
		}
	case "wrk", "go":
		o.loader = *loader
	default:
		return fmt.Errorf("-loader: want wrk, go or auto, got %q", *loader)
	}
	var results []*shopResult
	for _, size := range strings.Split(*sizes, ",") {
		size = strings.TrimSpace(size)
		if size == "" {
			continue
		}
		db := "wp_bench_" + size
		if size == "demo" {
			db = o.demoDB
		}
		fmt.Fprintf(os.Stderr, "catalogbench: %s (%s)…\n", size, db)
		res, err := benchShop(o, size, o.server+db)
		if err != nil {
			return fmt.Errorf("%s (database %s; seeded? see make bench, make demo-load): %w", size, db, err)
		}
		results = append(results, res)
	}
	var sizesOfChanges []string
	for _, s := range strings.Split(*changeSizes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			sizesOfChanges = append(sizesOfChanges, s)
		}
	}
	var changes []*changesResult
	if len(sizesOfChanges) > 0 {
		var err error
		if changes, err = benchChanges(o, sizesOfChanges, *wpseed); err != nil {
			return fmt.Errorf("change feed: %w", err)
		}
	}
	var r bytes.Buffer
	writeReport(&r, o, results)
	writeChanges(&r, changes)
	if err := os.WriteFile(*out, r.Bytes(), 0o644); err != nil {
		return err
	}
	_, err := stdout.Write(r.Bytes())
	return err
}

// figures are one quantity's measurements, one per run.
type figures []float64

func (f figures) median() float64 {
	s := slices.Clone(f)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// format gives the median and, with more than one run, the spread.
func (f figures) format(prec int) string {
	if len(f) == 0 {
		return "—"
	}
	m := strconv.FormatFloat(f.median(), 'f', prec, 64)
	if len(f) == 1 {
		return m
	}
	return fmt.Sprintf("%s (%s–%s)", m, strconv.FormatFloat(slices.Min(f), 'f', prec, 64),
		strconv.FormatFloat(slices.Max(f), 'f', prec, 64))
}

// row is one operation measured uncached.
type row struct {
	name, path    string
	p50, p95, p99 figures // ms, one per run
	stmts, allocs figures // per request, one per run
}

// timeline is one start of catalogd, in ms from process start.
type timeline struct {
	listening, ready, firstList, firstProduct float64
}

type shopResult struct {
	size, db      string
	total         int // catalog-visible products
	rows          []*row
	list, single  *row // the two rows: first list page of 50, one product
	stmtsPerReq   figures
	starts        []timeline
	snapshotBuild figures // s, when catalogd reports catalogd_snapshot_build_seconds
	snapshotProds figures
	// Cached phase.
	bodyBytes           int
	tput                []throughputResult // one per access log setting
	rssLoad, rssFull    float64            // MB
	entries, cacheBytes float64
	heapTop             string
}

// throughputResult is the cached list against the static server, with the
// access log on or off.
type throughputResult struct {
	accessLog            bool
	cached, plain, ratio figures // req/s, req/s, ×
}

// proc is a running catalogd.
type proc struct{ *proctest.Catalogd }

// lineClock is a process's stdout that notes when a line starting with
// prefix first arrives.
type lineClock struct {
	prefix []byte
	mu     sync.Mutex
	buf    []byte
	at     time.Time
}

func (l *lineClock) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.at.IsZero() {
		l.buf = append(l.buf, p...)
		if bytes.HasPrefix(l.buf, l.prefix) || bytes.Contains(l.buf, append([]byte("\n"), l.prefix...)) {
			l.at, l.buf = time.Now(), nil
		}
	}
	return len(p), nil
}

func (l *lineClock) time() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.at
}

// start runs catalogd and records the start-up timeline: the listening line
// on stdout, /readyz 200, the first list page answered, and the first
// single product (the first of that list) answered.
func start(bin, dsn string, stderr io.Writer, env ...string) (*proc, timeline, error) {
	var tl timeline
	listening := &lineClock{prefix: []byte("catalogd listening on")}
	t0 := time.Now()
	c, err := proctest.Launch(bin, proctest.Options{DSN: dsn, Stdout: listening, Stderr: stderr, PollEvery: 2 * time.Millisecond,
		Env: append([]string{"CATALOG_ACCESS_LOG=false", "CATALOG_RATE_LIMIT=1000000",
			"CATALOG_SITE_URL=https://bench.example", "CATALOG_LOG_LEVEL=warn"}, env...)})
	if err != nil {
		return nil, tl, err
	}
	p := &proc{c}
	since := func(t time.Time) float64 { return float64(t.Sub(t0).Microseconds()) / 1000 }
	poll := func(url string, ok func([]byte) bool) (time.Time, error) {
		var at time.Time
		err := c.Poll(60*time.Second, func() bool {
			code, body, err := getBody(url)
			at = time.Now()
			return err == nil && code == 200 && (ok == nil || ok(body))
		})
		if err != nil {
			return at, fmt.Errorf("catalogd did not answer %s: %w", url, err)
		}
		return at, nil
	}
	ready, err := poll(p.AdminURL+"/readyz", nil)
	if err != nil {
		p.Kill()
		return nil, tl, err
	}
	var slug string
	firstList, err := poll(p.API+"/catalog/products?per_page=50", func(b []byte) bool {
		var l struct {
			Products []struct{ Slug string } `json:"products"`
		}
		if json.Unmarshal(b, &l) == nil && len(l.Products) > 0 {
			slug = l.Products[0].Slug
		}
		return true
	})
	if err != nil {
		p.Kill()
		return nil, tl, err
	}
	tl = timeline{ready: since(ready), firstList: since(firstList)}
	if slug != "" {
		firstProduct, err := poll(p.API+"/catalog/products/"+url.PathEscape(slug), nil)
		if err != nil {
			p.Kill()
			return nil, tl, err
		}
		tl.firstProduct = since(firstProduct)
	}
	_ = p.Poll(time.Second, func() bool { return !listening.time().IsZero() })
	if at := listening.time(); !at.IsZero() {
		tl.listening = since(at)
	}
	return p, tl, nil
}

// metric reads a series from /metrics, summed over its labels; found is
// false when catalogd does not export it.
func (p *proc) metric(name string) (sum float64, found bool) {
	m, err := p.Metrics()
	if err != nil {
		return 0, false
	}
	sum, found = m[name]
	return sum, found
}

func (p *proc) value(name string) float64 {
	v, _ := p.metric(name)
	return v
}

func (p *proc) rssMB() float64 {
	v, err := p.RSSMiB()
	if err != nil {
		return -1
	}
	return v
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}, Timeout: 10 * time.Second}

func get(url string) (int, error) {
	resp, err := client.Get(url)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

func getBody(url string) (int, []byte, error) {
	resp, err := client.Get(url)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func pct(d []time.Duration, p float64) time.Duration {
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// shape is what the report's paths are chosen from: the shop's size and a
// product, a top-level category and a framework it has.
type shape struct {
	total, last         int
	slug, category, fwk string
}

func discover(base string) (shape, error) {
	var s shape
	var idx struct {
		Count int `json:"product_count"`
	}
	if err := getJSON(base+"/catalog", &idx); err != nil {
		return s, err
	}
	s.total = idx.Count
	s.last = max(1, (s.total+49)/50)
	var list struct {
		Products []struct {
			Slug       string   `json:"slug"`
			Frameworks []string `json:"frameworks"`
		} `json:"products"`
	}
	if err := getJSON(fmt.Sprintf("%s/catalog/products?per_page=50&page=%d", base, (s.last+1)/2), &list); err != nil {
		return s, err
	}
	if len(list.Products) == 0 {
		return s, errors.New("the shop lists no product")
	}
	mid := list.Products[len(list.Products)/2]
	s.slug = mid.Slug
	s.fwk = "esx"
	if len(mid.Frameworks) > 0 {
		s.fwk = mid.Frameworks[0]
	}
	var cats struct {
		Categories []struct {
			Slug   string `json:"slug"`
			Parent string `json:"parent"`
			Count  int    `json:"count"`
		} `json:"categories"`
	}
	if err := getJSON(base+"/catalog/categories", &cats); err != nil {
		return s, err
	}
	best := -1
	for _, c := range cats.Categories {
		// The top-level category with the most products: the heaviest filter.
		if c.Parent == "" && c.Count > best {
			s.category, best = c.Slug, c.Count
		}
	}
	return s, nil
}

func getJSON(url string, v any) error {
	code, b, err := getBody(url)
	if err != nil {
		return err
	}
	if code != 200 {
		return fmt.Errorf("GET %s: %d", url, code)
	}
	return json.Unmarshal(b, v)
}

func benchShop(o options, size, dsn string) (*shopResult, error) {
	res := &shopResult{size: size, db: dsn[strings.LastIndexByte(dsn, '/')+1:]}
	// Uncached: three starts, each timed, each measuring every row once.
	// The change poller is slowed so that the statements counted are the
	// requests' own.
	var sh shape
	for i := range runs {
		p, tl, err := start(o.bin, dsn, os.Stderr, "CATALOG_CACHE_TTL=0", "CATALOG_POLL_INTERVAL=1h")
		if err != nil {
			return nil, err
		}
		res.starts = append(res.starts, tl)
		if i == 0 {
			if sh, err = discover(p.API); err != nil {
				p.Kill()
				return nil, err
			}
			res.total = sh.total
			res.rows = rowsOf(p.API, sh)
			res.list, res.single = res.rows[0], res.rows[6]
		}
		if v, ok := p.metric("catalogd_snapshot_build_seconds"); ok {
			res.snapshotBuild = append(res.snapshotBuild, v)
		}
		if v, ok := p.metric("catalogd_snapshot_products"); ok {
			res.snapshotProds = append(res.snapshotProds, v)
		}
		var stmts float64
		var n int
		for _, rw := range res.rows {
			s, err := measure(p, rw, o.samples)
			if err != nil {
				p.Kill()
				return nil, err
			}
			stmts += s
			n += o.samples
		}
		res.stmtsPerReq = append(res.stmtsPerReq, stmts/float64(n))
		p.Kill()
	}

	// Cached: throughput beside a server with the same bytes, with each
	// access log setting; then, in the last process, the memory with every
	// list page cached, and its heap profile.
	for i, accessLog := range o.accessLogs {
		c, tr, err := cachedThroughput(o, dsn, accessLog, &res.bodyBytes)
		if err != nil {
			return nil, err
		}
		res.tput = append(res.tput, tr)
		if i < len(o.accessLogs)-1 {
			c.Kill()
			continue
		}
		err = fillAndWeigh(o, c, sh.last, res)
		c.Kill()
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

// cachedThroughput starts catalogd with the cache on and measures the first
// list page against the static server, runs times; the process is left
// running.
func cachedThroughput(o options, dsn string, accessLog bool, bodyBytes *int) (*proc, throughputResult, error) {
	tr := throughputResult{accessLog: accessLog}
	env := []string{}
	stderr := io.Writer(os.Stderr)
	if accessLog {
		// The default configuration: every request logged. The lines go
		// to /dev/null (a file, so catalogbench copies nothing), as a log
		// shipper would take them away.
		env = append(env, "CATALOG_ACCESS_LOG=true", "CATALOG_LOG_LEVEL=info")
		null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return nil, tr, err
		}
		defer null.Close() // the child holds its own descriptor
		stderr = null
	}
	c, _, err := start(o.bin, dsn, stderr, env...)
	if err != nil {
		return nil, tr, err
	}
	fail := func(err error) (*proc, throughputResult, error) {
		c.Kill()
		return nil, tr, err
	}
	list := c.API + "/catalog/products?per_page=50"
	body, hdr, err := fetch(list)
	if err != nil {
		return fail(err)
	}
	*bodyBytes = len(body)
	baseline, err := serveBytes(body, hdr)
	if err != nil {
		return fail(err)
	}
	defer baseline.Close()
	throughput(o.loader, list, time.Second) // warm both, connections included
	throughput(o.loader, baseline.URL(), time.Second)
	for i := range runs {
		// Alternate which goes first, so a drift in the machine's load
		// does not favour one side.
		var cached, plain float64
		if i%2 == 0 {
			cached, err = throughput(o.loader, list, o.load)
			if err == nil {
				plain, err = throughput(o.loader, baseline.URL(), o.load)
			}
		} else {
			plain, err = throughput(o.loader, baseline.URL(), o.load)
			if err == nil {
				cached, err = throughput(o.loader, list, o.load)
			}
		}
		if err != nil {
			return fail(err)
		}
		tr.cached, tr.plain, tr.ratio = append(tr.cached, cached), append(tr.plain, plain), append(tr.ratio, cached/plain)
	}
	return c, tr, nil
}

// fillAndWeigh caches every list page of 50 and reads the memory then.
func fillAndWeigh(o options, c *proc, last int, res *shopResult) error {
	list := c.API + "/catalog/products?per_page=50"
	res.rssLoad = c.rssMB()
	for pg := 1; pg <= last; pg++ {
		if code, err := get(fmt.Sprintf("%s&page=%d", list, pg)); err != nil || code != 200 {
			return fmt.Errorf("filling the cache, page %d: %d %v", pg, code, err)
		}
	}
	if _, err := throughput(o.loader, list, o.load/2); err != nil {
		return err
	}
	res.rssFull = c.rssMB()
	res.entries, res.cacheBytes = c.value("catalogd_cache_entries"), c.value("catalogd_cache_bytes")
	res.heapTop = heapTop(c.AdminURL)
	return nil
}

// rowsOf are the operations measured uncached; the first is the issue's
// list of 50, the seventh its single product.
func rowsOf(base string, s shape) []*row {
	cat := url.QueryEscape(s.category)
	rows := []*row{
		{name: "list, first page, per_page=50", path: "/catalog/products?per_page=50"},
		{name: "list, middle page", path: fmt.Sprintf("/catalog/products?per_page=50&page=%d", (s.last+1)/2)},
		{name: "list, last page", path: fmt.Sprintf("/catalog/products?per_page=50&page=%d", s.last)},
		{name: "list, category " + s.category + " (top level)", path: "/catalog/products?per_page=50&category=" + cat},
		{name: "list, framework " + s.fwk, path: "/catalog/products?per_page=50&framework=" + s.fwk},
		{name: "list, category + framework, last page",
			path: fmt.Sprintf("/catalog/products?per_page=50&category=%s&framework=%s&page=%d", cat, s.fwk,
				lastPage(fmt.Sprintf("%s/catalog/products?per_page=50&category=%s&framework=%s", base, cat, s.fwk)))},
		{name: "single product", path: "/catalog/products/" + url.PathEscape(s.slug)},
		{name: "categories", path: "/catalog/categories"},
		{name: "index", path: "/catalog"},
	}
	return rows
}

// measure runs one row's sequential requests after a warm-up and records
// its percentiles, statements and allocations; it returns the statements
// sent.
func measure(p *proc, rw *row, samples int) (float64, error) {
	url := p.API + rw.path
	for range 10 {
		get(url)
	}
	q0, a0 := p.value("catalogd_db_queries_total"), p.value("go_memstats_mallocs_total")
	d := make([]time.Duration, 0, samples)
	for range samples {
		t0 := time.Now()
		code, err := get(url)
		if err != nil || code != 200 {
			return 0, fmt.Errorf("%s: %d %v", rw.path, code, err)
		}
		d = append(d, time.Since(t0))
	}
	q1, a1 := p.value("catalogd_db_queries_total"), p.value("go_memstats_mallocs_total")
	slices.Sort(d)
	rw.p50 = append(rw.p50, ms(pct(d, .5)))
	rw.p95 = append(rw.p95, ms(pct(d, .95)))
	rw.p99 = append(rw.p99, ms(pct(d, .99)))
	rw.stmts = append(rw.stmts, (q1-q0)/float64(samples))
	rw.allocs = append(rw.allocs, (a1-a0)/float64(samples))
	return q1 - q0, nil
}

// heapTop is the top of the heap profile (in-use space, after a GC), from
// the admin listener's /debug/pprof/heap, read by go tool pprof.
func heapTop(admin string) string {
	code, b, err := getBody(admin + "/debug/pprof/heap?gc=1")
	if err != nil || code != 200 {
		return fmt.Sprintf("(no heap profile: %d %v)", code, err)
	}
	dir, err := os.MkdirTemp("", "catalogbench-")
	if err != nil {
		return "(no heap profile: " + err.Error() + ")"
	}
	defer os.RemoveAll(dir)
	f := filepath.Join(dir, "heap.pb.gz")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		return "(no heap profile: " + err.Error() + ")"
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=12", "-sample_index=inuse_space", f).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("(go tool pprof: %v: %s)", err, out)
	}
	// The file's name and the time say nothing here.
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.HasPrefix(l, "File:") && !strings.HasPrefix(l, "Time:") && !strings.HasPrefix(l, "Build ID:") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func lastPage(url string) int {
	var l struct {
		TotalPages int `json:"total_pages"`
	}
	if err := getJSON(url, &l); err != nil {
		return 1
	}
	return max(l.TotalPages, 1)
}

func fetch(url string) ([]byte, http.Header, error) {
	resp, err := client.Get(url)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != 200 {
		err = fmt.Errorf("GET %s: %d", url, resp.StatusCode)
	}
	return b, resp.Header, err
}

type bytesServer struct {
	srv *http.Server
	l   net.Listener
}

func (b *bytesServer) URL() string { return "http://" + b.l.Addr().String() + "/" }
func (b *bytesServer) Close()      { b.srv.Close() }

// serveBytes is the baseline: net/http writing a prepared body with the
// same headers (Content-Type included).
func serveBytes(body []byte, hdr http.Header) (*bytesServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range hdr {
			w.Header()[k] = v
		}
		w.Write(body)
	})
	s := &http.Server{Handler: h}
	go s.Serve(l)
	return &bytesServer{srv: s, l: l}, nil
}

// throughput loads url from 16 connections for d and returns the 200s per
// second; any other answer is an error.
func throughput(loader, url string, d time.Duration) (float64, error) {
	if loader == "wrk" {
		return wrk(url, d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var n, bad atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				code, err := get(url)
				switch {
				case err == nil && code == 200:
					n.Add(1)
				case ctx.Err() == nil:
					bad.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if bad.Load() > 0 {
		return 0, fmt.Errorf("%s: %d requests failed under load", url, bad.Load())
	}
	return float64(n.Load()) / d.Seconds(), nil
}

// wrk runs wrk with one thread (the machine's other cores serve) and 16
// connections.
func wrk(url string, d time.Duration) (float64, error) {
	secs := max(1, int(d.Round(time.Second)/time.Second))
	out, err := exec.Command("wrk", "-t1", "-c16", "-d"+strconv.Itoa(secs)+"s", url).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("wrk: %v: %s", err, out)
	}
	if bytes.Contains(out, []byte("Non-2xx")) || bytes.Contains(out, []byte("Socket errors")) {
		return 0, fmt.Errorf("%s: failures under load:\n%s", url, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "Requests/sec:"); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, fmt.Errorf("wrk: no Requests/sec in:\n%s", out)
}

func writeReport(r *bytes.Buffer, o options, results []*shopResult) {
	fmt.Fprintf(r, "# Benchmarks\n\nTaken %s on %s (commit %s), %d cores, %s, %s, by `make bench` (cmd/catalogbench).\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), cpuModel(), gitCommit(), runtime.NumCPU(), runtime.Version(), dbVersion())
	loader := "wrk, one thread"
	if o.loader == "go" {
		loader = "catalogbench's own Go client (wrk not on PATH)"
	}
	fmt.Fprintf(r, "Every figure is the median of %d runs, the spread (min–max) in brackets. "+
		"Uncached: cache off (`CATALOG_CACHE_TTL=0`), %d sequential requests per row and run after a warm-up, one catalogd start per run, "+
		"the change poller slowed to 1 h so the statements counted are the requests' own. "+
		"Cached: the first list page of 50, %s per run, 16 connections, loopback, %s, "+
		"beside a minimal `net/http` server writing the same body and headers (Content-Type included); with the access log on, the default configuration, its lines go to /dev/null.\n",
		runs, o.samples, o.load, loader)

	// Issue 13's table, one column per shop.
	fmt.Fprintf(r, "\n## Summary\n\n")
	line := summaryTable(r, results, func(s *shopResult) string { return fmt.Sprintf("%s (%d products)", s.size, s.total) })
	line("list of 50, median ms", "≤ 1 ms", func(s *shopResult) string { return s.list.p50.format(2) })
	line("single product, median ms", "≤ 0.5 ms", func(s *shopResult) string { return s.single.p50.format(2) })
	line("list of 50, p99 ms", "≤ 3 ms at 100k", func(s *shopResult) string { return s.list.p99.format(2) })
	line("single product, p99 ms", "≤ 1 ms at 100k", func(s *shopResult) string { return s.single.p99.format(2) })
	for i, on := range o.accessLogs {
		line("cached list of 50 vs static server, access log "+onOff(on), "≥ 0.8×", func(s *shopResult) string {
			return s.tput[i].ratio.format(2) + "×"
		})
	}
	line("statements per request, steady state", "0", func(s *shopResult) string { return s.stmtsPerReq.format(2) })
	line("RSS, every list page cached, MB", "≤ 60 MB demo, ≤ 400 MB at 100k", func(s *shopResult) string {
		return fmt.Sprintf("%.0f", s.rssFull)
	})
	line("start → listening, ms", "", func(s *shopResult) string { return s.timeline(func(t timeline) float64 { return t.listening }) })
	line("start → ready (/readyz 200), ms", "≤ 1 s demo", func(s *shopResult) string {
		return s.timeline(func(t timeline) float64 { return t.ready })
	})
	line("start → first list page, ms", "", func(s *shopResult) string { return s.timeline(func(t timeline) float64 { return t.firstList }) })
	line("start → first product page, ms", "", func(s *shopResult) string {
		return s.timeline(func(t timeline) float64 { return t.firstProduct })
	})
	line("snapshot build (catalogd_snapshot_build_seconds), s", "≤ 10 s at 100k", func(s *shopResult) string {
		if len(s.snapshotBuild) == 0 {
			return "not reported"
		}
		return s.snapshotBuild.format(3)
	})
	line("snapshot products (catalogd_snapshot_products)", "", func(s *shopResult) string {
		if len(s.snapshotProds) == 0 {
			return "not reported"
		}
		return s.snapshotProds.format(0)
	})

	for _, s := range results {
		fmt.Fprintf(r, "\n## %s: database %s, %d catalog-visible products\n\n", s.size, s.db, s.total)
		fmt.Fprintf(r, "| operation | p50 ms | p95 ms | p99 ms | statements/req | allocs/req |\n|---|---|---|---|---|---|\n")
		for _, rw := range s.rows {
			fmt.Fprintf(r, "| %s | %s | %s | %s | %s | %s |\n", rw.name, rw.p50.format(2), rw.p95.format(2), rw.p99.format(2),
				rw.stmts.format(1), rw.allocs.format(0))
		}
		fmt.Fprintf(r, "\nStart-up, ms from process start (one line per run): listening → ready → first list page → first product page.\n\n")
		for _, t := range s.starts {
			fmt.Fprintf(r, "- %.1f → %.1f → %.1f → %.1f\n", t.listening, t.ready, t.firstList, t.firstProduct)
		}
		for _, t := range s.tput {
			fmt.Fprintf(r, "\nCached throughput, access log %s (list page, per_page=50, %d bytes): catalogd **%s req/s**, "+
				"the static server %s req/s: **%s×**. Per run (catalogd / static):", onOff(t.accessLog), s.bodyBytes,
				t.cached.format(0), t.plain.format(0), t.ratio.format(2))
			for i := range t.cached {
				fmt.Fprintf(r, " %.0f / %.0f;", t.cached[i], t.plain[i])
			}
			fmt.Fprintln(r)
		}
		fmt.Fprintf(r, "\nRSS under load: %.0f MB; with every list page cached (%.0f entries, %.1f MB in the cache): **%.0f MB**. "+
			"Top of the heap profile then (in-use space, after a GC):\n\n```\n%s\n```\n",
			s.rssLoad, s.entries, s.cacheBytes/(1<<20), s.rssFull, s.heapTop)
	}
}

// summaryTable writes the head of a table with a column per shop and a
// target column, and returns the function that writes one row.
func summaryTable[T any](r io.Writer, shops []T, head func(T) string) func(name, target string, cell func(T) string) {
	fmt.Fprintf(r, "| | ")
	for _, s := range shops {
		fmt.Fprintf(r, "%s | ", head(s))
	}
	fmt.Fprintf(r, "target |\n|---|")
	for range shops {
		fmt.Fprintf(r, "---|")
	}
	fmt.Fprintf(r, "---|\n")
	return func(name, target string, cell func(T) string) {
		fmt.Fprintf(r, "| %s | ", name)
		for _, s := range shops {
			fmt.Fprintf(r, "%s | ", cell(s))
		}
		fmt.Fprintf(r, "%s |\n", target)
	}
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func (s *shopResult) timeline(f func(timeline) float64) string {
	var v figures
	for _, t := range s.starts {
		v = append(v, f(t))
	}
	return v.format(1)
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			return strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
		}
	}
	return runtime.GOARCH
}

func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

func dbVersion() string {
	out, err := exec.Command("mysql", "--protocol=tcp", "-h127.0.0.1", "-uroot", "-N", "-e", "SELECT VERSION()").Output()
	if err != nil {
		return "MariaDB"
	}
	return "MariaDB " + strings.TrimSpace(string(out))
}
