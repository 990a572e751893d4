// Command catalogbench measures catalogd at shop scale and writes a
// Markdown report: uncached latency per operation, cached throughput beside
// a plain net/http handler serving the same bytes, statements and
// allocations per request, RSS under load, and time from start to ready.
// All load goes to loopback, bounded in count and time. `make bench` runs
// it after seeding the databases with wpseed.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "catalogbench:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("catalogbench", flag.ContinueOnError)
	bin := fs.String("catalogd", "bin/catalogd", "catalogd binary")
	server := fs.String("dsn", "root@tcp(127.0.0.1:3306)/", "server DSN; databases wp_bench_<size> are read")
	sizes := fs.String("sizes", "10k,100k", "shop sizes, as seeded by wpseed")
	samples := fs.Int("samples", 200, "requests per uncached measurement")
	load := fs.Duration("load", 5*time.Second, "duration of each throughput run")
	out := fs.String("out", "docs/benchmarks.md", "report file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var r bytes.Buffer
	fmt.Fprintf(&r, "# Benchmarks\n\nTaken %s on %s (commit %s), %d cores, %s, %s.\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), cpuModel(), gitCommit(), runtime.NumCPU(), runtime.Version(), dbVersion())
	fmt.Fprintf(&r, "Uncached: cache off (`CATALOG_CACHE_TTL=0`), %d sequential requests per row after a warm-up. "+
		"Throughput: %s per run, 16 connections, loopback.\n", *samples, *load)
	for _, size := range strings.Split(*sizes, ",") {
		db := *server + "wp_bench_" + size
		if err := benchSize(&r, *bin, db, size, *samples, *load); err != nil {
			return fmt.Errorf("%s: %w", size, err)
		}
	}
	if err := os.WriteFile(*out, r.Bytes(), 0o644); err != nil {
		return err
	}
	_, err := stdout.Write(r.Bytes())
	return err
}

type proc struct {
	cmd         *exec.Cmd
	base, admin string
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// start runs catalogd and waits until it is ready and its population warm
// (the first list answered); it returns how long that took.
func start(bin, dsn string, env ...string) (*proc, time.Duration, error) {
	pub, adm := freeAddr(), freeAddr()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), append([]string{"CATALOG_DSN=" + dsn, "CATALOG_LISTEN=" + pub,
		"CATALOG_ADMIN_LISTEN=" + adm, "CATALOG_ACCESS_LOG=false", "CATALOG_RATE_LIMIT=1000000",
		"CATALOG_SITE_URL=https://bench.example", "CATALOG_LOG_LEVEL=warn"}, env...)...)
	cmd.Stderr = os.Stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	p := &proc{cmd: cmd, base: "http://" + pub + "/wp-json/shop/v1", admin: "http://" + adm}
	for time.Since(t0) < 30*time.Second {
		if resp, err := http.Get(p.admin + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				if resp, err := http.Get(p.base + "/catalog/products?per_page=1"); err == nil {
					resp.Body.Close()
					if resp.StatusCode == 200 {
						return p, time.Since(t0), nil
					}
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.stop()
	return nil, 0, fmt.Errorf("catalogd not ready within 30s")
}

func (p *proc) stop() { p.cmd.Process.Kill(); p.cmd.Wait() }

// metric reads a summed series from /metrics.
func (p *proc) metric(name string) float64 {
	resp, err := http.Get(p.admin + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, name+" ") || strings.HasPrefix(line, name+"{") {
			f := strings.Fields(line)
			v, _ := strconv.ParseFloat(f[len(f)-1], 64)
			sum += v
		}
	}
	return sum
}

func (p *proc) rssMB() float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			kb, _ := strconv.ParseFloat(strings.Fields(l)[1], 64)
			return kb / 1024
		}
	}
	return -1
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

func pct(d []time.Duration, p float64) time.Duration {
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000) }

func benchSize(r *bytes.Buffer, bin, dsn, size string, samples int, load time.Duration) error {
	p, ready, err := start(bin, dsn, "CATALOG_CACHE_TTL=0")
	if err != nil {
		return err
	}
	defer p.stop()
	var total int
	resp, err := client.Get(p.base + "/catalog")
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if i := bytes.Index(b, []byte(`"product_count":`)); i >= 0 {
			total, _ = strconv.Atoi(string(bytes.TrimRight(b[i+16:i+16+bytes.IndexByte(b[i+16:], ',')], " ")))
		}
	}
	last := max(1, (total+49)/50)
	fmt.Fprintf(r, "\n## %s products (%d catalog-visible)\n\nStart to ready (process start until a product page answers): **%s ms**.\n\n",
		size, total, ms(ready))
	fmt.Fprintf(r, "| operation | p50 ms | p95 ms | p99 ms | statements/req | allocs/req |\n|---|---|---|---|---|---|\n")
	rows := []struct{ name, path string }{
		{"list, first page, per_page=50", "/catalog/products?per_page=50"},
		{"list, middle page", fmt.Sprintf("/catalog/products?per_page=50&page=%d", (last+1)/2)},
		{"list, last page", fmt.Sprintf("/catalog/products?per_page=50&page=%d", last)},
		{"list, category (top level)", "/catalog/products?per_page=50&category=cat-3"},
		{"list, framework", "/catalog/products?per_page=50&framework=esx"},
		{"list, category + framework, last page", "/catalog/products?per_page=50&category=cat-3&framework=esx&page=LAST"},
		{"single product", "/catalog/products/script-000777"},
		{"categories", "/catalog/categories"},
		{"index", "/catalog"},
	}
	for _, row := range rows {
		path := row.path
		if strings.HasSuffix(path, "LAST") {
			path = strings.TrimSuffix(path, "&page=LAST")
			n := lastPage(p.base + path)
			path += "&page=" + strconv.Itoa(n)
		}
		url := p.base + path
		for i := 0; i < 10; i++ {
			get(url)
		}
		q0, a0 := p.metric("catalogd_db_queries_total"), p.metric("go_memstats_mallocs_total")
		d := make([]time.Duration, 0, samples)
		for i := 0; i < samples; i++ {
			t0 := time.Now()
			code, err := get(url)
			if err != nil || code != 200 {
				return fmt.Errorf("%s: %d %v", path, code, err)
			}
			d = append(d, time.Since(t0))
		}
		q1, a1 := p.metric("catalogd_db_queries_total"), p.metric("go_memstats_mallocs_total")
		slices.Sort(d)
		fmt.Fprintf(r, "| %s | %s | %s | %s | %.1f | %.0f |\n", row.name, ms(pct(d, .5)), ms(pct(d, .95)), ms(pct(d, .99)),
			(q1-q0)/float64(samples), (a1-a0)/float64(samples))
	}
	p.stop()

	// Cached throughput, beside a handler serving the same bytes.
	c, _, err := start(bin, dsn)
	if err != nil {
		return err
	}
	defer c.stop()
	url := c.base + "/catalog/products?per_page=50"
	body, hdr := fetch(url)
	baseline := serveBytes(body, hdr)
	defer baseline.Close()
	cached := throughput(url, load)
	plain := throughput(baseline.URL(), load)
	rss := c.rssMB()
	// Fill the cache with every list page, then measure RSS again.
	for pg := 1; pg <= last; pg++ {
		get(fmt.Sprintf("%s/catalog/products?per_page=50&page=%d", c.base, pg))
	}
	throughput(url, load/2)
	full := c.rssMB()
	fmt.Fprintf(r, "\nCached throughput (list page, per_page=50, %d bytes): catalogd **%.0f req/s**, plain net/http handler with the same bytes %.0f req/s: **%.2f×**.\n",
		len(body), cached, plain, cached/plain)
	fmt.Fprintf(r, "RSS under load: %.0f MB; with every list page cached (%.0f entries, %.1f MB of bodies): **%.0f MB**.\n",
		rss, c.metric("catalogd_cache_entries"), c.metric("catalogd_cache_bytes")/(1<<20), full)
	return nil
}

func lastPage(url string) int {
	resp, err := client.Get(url)
	if err != nil {
		return 1
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	i := bytes.Index(b, []byte(`"total_pages":`))
	if i < 0 {
		return 1
	}
	n, _ := strconv.Atoi(strings.TrimRight(string(b[i+14:]), "}\n"))
	return max(n, 1)
}

func fetch(url string) ([]byte, http.Header) {
	resp, err := client.Get(url)
	if err != nil {
		return nil, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b, resp.Header
}

type bytesServer struct {
	srv *http.Server
	l   net.Listener
}

func (b *bytesServer) URL() string { return "http://" + b.l.Addr().String() + "/" }
func (b *bytesServer) Close()      { b.srv.Close() }

// serveBytes is the baseline: net/http writing a prepared body and headers.
func serveBytes(body []byte, hdr http.Header) *bytesServer {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range hdr {
			w.Header()[k] = v
		}
		w.Write(body)
	})
	s := &http.Server{Handler: h}
	go s.Serve(l)
	return &bytesServer{srv: s, l: l}
}

// throughput runs 16 connections for d and returns requests per second.
func throughput(url string, d time.Duration) float64 {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var n atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if code, err := get(url); err == nil && code == 200 {
					n.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return float64(n.Load()) / d.Seconds()
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
