package main

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
)

// The change feeds' figures: what they cost the database and how fast and
// how narrowly a change reaches the responses.
//
//   - The poll source's database time per cheap round, per scan, the scan
//     period its budget sets, and per second of polling: wpdb/poll's
//     BenchmarkPollCheapRound and BenchmarkPollScan on the seeded shops of
//     the shared server (go test -bench, three counts).
//   - The binlog source's lag, from an UPDATE's return to the changed
//     single-product response, on a private MariaDB with a binary log into
//     which the shops are seeded (the shared server may log no binary log).
//   - The share of single-product requests answered from the cache while
//     one product's stock changes every second, as an order does.

// changesResult is one shop size's figures.
type changesResult struct {
	size                           string
	round, scan, period, perSecond figures // ms, ms, s, ms/s
	lagP50, lagP99                 figures // ms, binlog
	hitBinlog, hitPoll             figures // %
	// Through Varnish (deploy/varnish) purged by catalogd, binlog: from an
	// UPDATE's return to Varnish's answer showing it, and the share of
	// Varnish's answers that were hits.
	edgeP50, edgeP99, hitEdge figures
	applied                   float64 // changes the feed applied during the hit-ratio runs (binlog), per run
}

// benchChanges measures every size; wpseed seeds the private server.
func benchChanges(o options, sizes []string, wpseed string) ([]*changesResult, error) {
	polls, err := pollCosts(o)
	if err != nil {
		return nil, fmt.Errorf("poll benchmarks: %w", err)
	}
	fmt.Fprintln(os.Stderr, "catalogbench: starting a private MariaDB with a binary log…")
	private, stop, err := testdb.StartBinlogServer("--innodb-buffer-pool-size=1G")
	if err != nil {
		return nil, fmt.Errorf("private MariaDB with a binary log: %w", err)
	}
	defer stop()
	var out []*changesResult
	for _, size := range sizes {
		res := polls[size]
		if res == nil {
			res = &changesResult{size: size}
		}
		n, err := productsOf(size)
		if err != nil {
			return nil, err
		}
		db := "wp_bench_" + size
		fmt.Fprintf(os.Stderr, "catalogbench: seeding %s into the private server…\n", db)
		seed := exec.Command(wpseed, "-dsn", private, "-db", db, "-products", strconv.Itoa(n))
		seed.Stdout, seed.Stderr = os.Stderr, os.Stderr
		if err := seed.Run(); err != nil {
			return nil, fmt.Errorf("wpseed %s: %w", db, err)
		}
		for range runs {
			hit, lag, applied, err := stream(o, private+db, "binlog", true, false)
			if err != nil {
				return nil, fmt.Errorf("%s, binlog: %w", size, err)
			}
			res.hitBinlog = append(res.hitBinlog, hit)
			res.lagP50 = append(res.lagP50, ms(pct(lag, 0.5)))
			res.lagP99 = append(res.lagP99, ms(pct(lag, 0.99)))
			res.applied = applied
			hit, _, _, err = stream(o, o.server+db, "poll", false, false)
			if err != nil {
				return nil, fmt.Errorf("%s, poll: %w", size, err)
			}
			res.hitPoll = append(res.hitPoll, hit)
			if o.varnishd == "" {
				continue
			}
			hit, lag, _, err = stream(o, private+db, "binlog", true, true)
			if err != nil {
				return nil, fmt.Errorf("%s, through Varnish: %w", size, err)
			}
			res.hitEdge = append(res.hitEdge, hit)
			res.edgeP50 = append(res.edgeP50, ms(pct(lag, 0.5)))
			res.edgeP99 = append(res.edgeP99, ms(pct(lag, 0.99)))
		}
		out = append(out, res)
	}
	return out, nil
}

// productsOf reads a size name: thousands of products ("10k") or millions
// ("1m").
func productsOf(size string) (int, error) {
	unit := 1000
	num, ok := strings.CutSuffix(size, "k")
	if !ok {
		if num, ok = strings.CutSuffix(size, "m"); ok {
			unit = 1000000
		}
	}
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n <= 0 {
		return 0, fmt.Errorf("shop size %q: want thousands or millions of products, like 10k or 1m", size)
	}
	return n * unit, nil
}

// benchLine is one result line of go test -bench with custom metrics.
var benchLine = regexp.MustCompile(`^BenchmarkPoll(CheapRound|Scan)/(\w+)-\d+\s+\d+\s+(.*)$`)

// pollCosts runs wpdb's poll benchmarks against the shared server's seeded
// shops and collects their metrics by size.
func pollCosts(o options) (map[string]*changesResult, error) {
	fmt.Fprintln(os.Stderr, "catalogbench: poll benchmarks (go test -bench BenchmarkPoll ./wpdb)…")
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "^BenchmarkPoll(CheapRound|Scan)$",
		"-benchtime", "5x", "-count", strconv.Itoa(runs), "./wpdb")
	cmd.Env = append(os.Environ(), "CATALOG_TEST_DSN="+o.server)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, out)
	}
	res := map[string]*changesResult{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		r := res[m[2]]
		if r == nil {
			r = &changesResult{size: m[2]}
			res[m[2]] = r
		}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "db-ms/round":
				r.round = append(r.round, v)
			case "db-ms/scan":
				r.scan = append(r.scan, v)
			case "period-s":
				r.period = append(r.period, v)
			case "db-ms/s":
				r.perSecond = append(r.perSecond, v)
			}
		}
	}
	return res, nil
}

// streamProducts is how many products the hit ratio is measured over, and
// streamFor how long each run lasts.
const (
	streamProducts = 300
	streamFor      = 20 * time.Second
	lagSamples     = 50
)

// stream runs catalogd in the mode over the shop, warms the responses of a
// few hundred products, then for streamFor changes one random product's
// stock every second (an order: the stock status and the save's modified
// time) while requesting the warm products in turn, and returns the share
// of those answered from the cache. With lag, it then edits the price of
// warm products one at a time and times each edit until the product's
// response shows it. With edge, the requests go through Varnish with the
// shipped VCL, which catalogd purges itself: X-Cache and the freshness
// are Varnish's.
func stream(o options, dsn, mode string, lag, edge bool) (hit float64, lags []time.Duration, applied float64, err error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return 0, nil, 0, err
	}
	raw, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return 0, nil, 0, err
	}
	defer raw.Close()
	type product struct {
		id   int64
		slug string
	}
	var all []product
	rows, err := raw.Query(`SELECT ID, post_name FROM wp_posts WHERE post_type = 'product' AND post_status = 'publish'`)
	if err != nil {
		return 0, nil, 0, err
	}
	for rows.Next() {
		var p product
		if err := rows.Scan(&p.id, &p.slug); err != nil {
			rows.Close()
			return 0, nil, 0, err
		}
		all = append(all, p)
	}
	rows.Close()
	if len(all) < streamProducts {
		return 0, nil, 0, fmt.Errorf("%d products, want at least %d", len(all), streamProducts)
	}
	rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	warm := all[:streamProducts]

	env := []string{"CATALOG_CHANGES=" + mode}
	var listen, purge, secret string
	if edge {
		if listen, err = proctest.FreeAddress(); err != nil {
			return 0, nil, 0, err
		}
		if purge, err = proctest.FreeAddress(); err != nil {
			return 0, nil, 0, err
		}
		dir, err := os.MkdirTemp("", "catalogbench-secret-")
		if err != nil {
			return 0, nil, 0, err
		}
		defer os.RemoveAll(dir)
		if secret, err = proctest.PurgeSecret(dir); err != nil {
			return 0, nil, 0, err
		}
		env = append(env, "CATALOG_PURGE_VARNISH=http://"+purge, "CATALOG_PURGE_VARNISH_SECRET_FILE="+secret)
	}
	p, _, err := start(o.bin, dsn, os.Stderr, env...)
	if err != nil {
		return 0, nil, 0, err
	}
	defer p.Kill()
	api := p.API
	if edge {
		v, err := proctest.StartVarnish(proctest.VarnishOptions{Bin: o.varnishd, VCL: o.vcl, DropIn: o.varnishDropIn,
			Listen: listen, PurgeListen: purge, Backend: p.Public, PurgeSecretFile: secret})
		if err != nil {
			return 0, nil, 0, err
		}
		defer v.Stop()
		api = v.URL + "/wp-json/shop/v1"
		// catalogd's purge by kind at start reached Varnish before the
		// warm-up: it would empty Varnish under the measurement.
		if err := p.Poll(30*time.Second, func() bool {
			return p.value("catalogd_edge_purge_requests_total") > p.value("catalogd_edge_purge_failures_total") &&
				p.value("catalogd_edge_purge_pending_tags") == 0
		}); err != nil {
			return 0, nil, 0, fmt.Errorf("catalogd's first purge of Varnish: %w", err)
		}
	}
	path := func(pr product) string { return api + "/catalog/products/" + url.PathEscape(pr.slug) }
	for _, pr := range warm {
		if code, err := get(path(pr)); err != nil || code != http.StatusOK {
			return 0, nil, 0, fmt.Errorf("warm %s: %d %v", pr.slug, code, err)
		}
	}
	appliedBefore := p.value("catalogd_changes_total")

	// One order a second, on any product of the shop.
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				done <- nil
				return
			case <-tick.C:
			}
			pr := all[rand.IntN(len(all))]
			if _, err := raw.Exec(`UPDATE wp_postmeta SET meta_value = IF(meta_value = 'instock', 'outofstock', 'instock')
				WHERE post_id = ? AND meta_key = '_stock_status'`, pr.id); err != nil {
				done <- err
				return
			}
			if _, err := raw.Exec(`UPDATE wp_posts SET post_modified = NOW(), post_modified_gmt = UTC_TIMESTAMP() WHERE ID = ?`, pr.id); err != nil {
				done <- err
				return
			}
		}
	}()
	var hits, total atomic.Int64
	deadline := time.Now().Add(streamFor)
	for i := 0; time.Now().Before(deadline); i++ {
		resp, err := client.Get(path(warm[i%len(warm)]))
		if err != nil {
			close(stop)
			<-done
			return 0, nil, 0, err
		}
		resp.Body.Close()
		total.Add(1)
		if resp.Header.Get("X-Cache") == "HIT" {
			hits.Add(1)
		}
	}
	close(stop)
	if err := <-done; err != nil {
		return 0, nil, 0, err
	}
	hit = 100 * float64(hits.Load()) / float64(total.Load())
	applied = p.value("catalogd_changes_total") - appliedBefore
	if !lag {
		return hit, nil, applied, nil
	}

	for i := range lagSamples {
		pr := warm[i]
		price := fmt.Sprintf("%d.%02d", 100+i, rand.IntN(100))
		if _, err := raw.Exec(`UPDATE wp_postmeta SET meta_value = ? WHERE post_id = ? AND meta_key IN ('_price', '_regular_price')`,
			price, pr.id); err != nil {
			return 0, nil, 0, err
		}
		committed := time.Now()
		for {
			_, body, err := getBody(path(pr))
			if err != nil {
				return 0, nil, 0, err
			}
			var got struct {
				Price *string `json:"price"`
			}
			if json.Unmarshal(body, &got) == nil && got.Price != nil && *got.Price == price {
				lags = append(lags, time.Since(committed))
				break
			}
			if time.Since(committed) > 10*time.Second {
				return 0, nil, 0, fmt.Errorf("%s's price %s not shown 10s after the edit", pr.slug, price)
			}
			time.Sleep(time.Millisecond)
		}
	}
	slices.Sort(lags)
	return hit, lags, applied, nil
}

// writeChanges is the report's section on the change feed.
func writeChanges(r *bytes.Buffer, results []*changesResult) {
	if len(results) == 0 {
		return
	}
	fmt.Fprintf(r, "\n## Change feed\n\n"+
		"Poll: wpdb's BenchmarkPollCheapRound and BenchmarkPollScan on the shared server's seeded shops, "+
		"at the default interval (2 s) and budget (1 %% of one core). Binlog: catalogd following a private MariaDB "+
		"with a binary log (1 GB buffer pool) into which the same shops are seeded; lag from an UPDATE's return to the "+
		"single-product response showing it, %d edits per run. Hit ratio: %d warm single-product responses requested "+
		"in turn for %v while one random product's stock changes every second (before the change feed, every "+
		"change dropped every cached response: 0 %% right after each). Through Varnish: the same, binlog, with Varnish 7 and "+
		"the shipped VCL (deploy/varnish) in front of catalogd, which purges it itself; the lag is to Varnish's answer and "+
		"the hits are Varnish's.\n\n", lagSamples, streamProducts, streamFor)
	line := summaryTable(r, results, func(c *changesResult) string { return c.size })
	line("poll: database ms per cheap round", "", func(c *changesResult) string { return c.round.format(2) })
	line("poll: database ms per product scan", "", func(c *changesResult) string { return c.scan.format(1) })
	line("poll: scan period, s", "", func(c *changesResult) string { return c.period.format(1) })
	line("poll: database ms per second of polling", "≤ 10 at 100k", func(c *changesResult) string { return c.perSecond.format(1) })
	line("binlog: lag p50, ms", "", func(c *changesResult) string { return c.lagP50.format(1) })
	line("binlog: lag p99, ms", "≤ 500", func(c *changesResult) string { return c.lagP99.format(1) })
	line("single products from the cache during 1 stock change/s, binlog, %", "unaffected stay cached",
		func(c *changesResult) string { return c.hitBinlog.format(1) })
	line("single products from the cache during 1 stock change/s, poll, %", "unaffected stay cached",
		func(c *changesResult) string { return c.hitPoll.format(1) })
	if len(results[0].hitEdge) > 0 {
		line("through Varnish purged by catalogd: DB commit to a fresh answer p50, ms", "", func(c *changesResult) string { return c.edgeP50.format(1) })
		line("through Varnish purged by catalogd: DB commit to a fresh answer p99, ms", "≤ 1000", func(c *changesResult) string { return c.edgeP99.format(1) })
		line("Varnish hits during 1 stock change/s, %", "unaffected stay cached", func(c *changesResult) string { return c.hitEdge.format(1) })
	}
	line("changes the binlog feed reported per hit-ratio run", "", func(c *changesResult) string {
		return fmt.Sprintf("%.0f", c.applied)
	})
}
