package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The measurements of one shop: uncached latency per operation, cached
// throughput beside a static server, memory with every list page cached.

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
	list, single  *row // the summary's two rows: first list page of 50, one product
	stmtsPerReq   figures
	starts        []timeline
	snapshotBuild figures // s, when catalogd reports catalogd_snapshot_build_seconds
	snapshotProds figures
	// peakRSS is the process's highest RSS (VmHWM) once ready: the whole
	// load's peak; readyRSS its RSS then, after the load's garbage.
	peakRSS, readyRSS figures // MB
	// loads is the load average (1, 5 and 15 minutes) at each run's
	// start: the figures mean little on a busy machine.
	loads []string
	// The buffer pool as found and the shop's tables, MB; with
	// -fit-buffer-pool, the starts with a pool holding the shop (poolFit
	// MB; 0 when the pool as found holds it or none was measured).
	poolFound, shopMB, poolFit int64
	fitStarts                  []timeline
	fitPeakRSS                 figures
	fitLoads                   []string
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

func benchShop(o options, size, dsn string) (*shopResult, error) {
	res := &shopResult{size: size, db: dsn[strings.LastIndexByte(dsn, '/')+1:]}
	// Uncached: three starts, each timed, each measuring every row once.
	// The change poller is slowed so that the statements counted are the
	// requests' own.
	var sh shape
	for i := range runs {
		res.loads = append(res.loads, loadAverage())
		p, tl, err := start(o.bin, dsn, os.Stderr, "CATALOG_CACHE_TTL=0", "CATALOG_POLL_INTERVAL=1h")
		if err != nil {
			return nil, err
		}
		res.starts = append(res.starts, tl)
		if v, err := p.PeakRSSMiB(); err == nil {
			res.peakRSS = append(res.peakRSS, v)
		}
		res.readyRSS = append(res.readyRSS, p.rssMB())
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

	if err := poolStarts(o, dsn, res.db, res); err != nil {
		return nil, err
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

// rowsOf are the operations measured uncached; the first is the summary's
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
