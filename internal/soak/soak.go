// Command soak drives a catalogd binary over the demo shop at a fixed
// request rate, reaching the database through a fault proxy that takes it
// away on a schedule (down 5s every 20s by default), and reports in
// Markdown: requests by status and cache state inside and outside the
// fault windows, and catalogd's memory (VmRSS), goroutines and database
// connections over time. It fails (exit 1) on any 500, on any 503 inside
// the fault windows (once loaded, the catalog answers from memory: the
// database's absence changes no answer), on any 5xx or transport error
// outside them other than a 503 for a request that never had an answer to
// keep, and when memory or goroutines do not end flat.
//
//	go run ./internal/soak -duration 3m
//
// It needs MariaDB/MySQL (-dsn, default $CATALOG_TEST_DSN or
// root@tcp(127.0.0.1:3306)/): the demo shop is loaded into a throwaway
// database, dropped at the end.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/deploy/seed"
	"catalogd/internal/faultproxy"
)

// Options of one soak.
type Options struct {
	Binary      string        // catalogd to run; built from ./cmd/catalogd when empty
	DSN         string        // of a database holding the demo shop
	Duration    time.Duration // of the load
	Rate        int           // requests per second
	Workers     int           // concurrent clients at most
	FaultEvery  time.Duration // period of the fault schedule
	FaultFor    time.Duration // how long the database is down in each period
	FaultOffset time.Duration // when in each period it goes down
	Grace       time.Duration // after a fault, how long its effects may last
	Sample      time.Duration // how often memory and goroutines are read
	CacheTTL    time.Duration // catalogd's --cache-ttl: short, so the database is read all along
	// Tolerances of "ends flat": the final idle figures against those
	// before the load (goroutines) and after the first fault cycle (RSS,
	// which includes a warm cache).
	GoroutineSlack float64
	RSSGrowth      float64 // fraction
	RSSSlackMiB    float64
	Log            io.Writer // catalogd's stderr; discarded when nil
}

// DefaultOptions is a three-minute soak at 200 requests per second.
func DefaultOptions() Options {
	return Options{Duration: 3 * time.Minute, Rate: 200, Workers: 64, FaultEvery: 20 * time.Second,
		FaultFor: 5 * time.Second, FaultOffset: 10 * time.Second, Grace: 3 * time.Second, Sample: 5 * time.Second,
		CacheTTL: 2 * time.Second, GoroutineSlack: 10, RSSGrowth: 0.25, RSSSlackMiB: 16}
}

func main() {
	o := DefaultOptions()
	dsn := os.Getenv("CATALOG_TEST_DSN")
	if dsn == "" {
		dsn = "root@tcp(127.0.0.1:3306)/"
	}
	flag.StringVar(&o.Binary, "catalogd", "", "catalogd binary to run (default: build ./cmd/catalogd)")
	flag.StringVar(&dsn, "dsn", dsn, "MariaDB/MySQL server to load the demo shop into (a throwaway database)")
	flag.DurationVar(&o.Duration, "duration", o.Duration, "how long to load")
	flag.IntVar(&o.Rate, "rate", o.Rate, "requests per second")
	flag.IntVar(&o.Workers, "workers", o.Workers, "concurrent clients at most")
	flag.DurationVar(&o.FaultEvery, "fault-every", o.FaultEvery, "period of the database faults (0: none)")
	flag.DurationVar(&o.FaultFor, "fault-for", o.FaultFor, "how long the database is down in each period")
	flag.DurationVar(&o.FaultOffset, "fault-offset", o.FaultOffset, "when in each period the database goes down")
	flag.DurationVar(&o.Sample, "sample", o.Sample, "how often memory and goroutines are read")
	flag.DurationVar(&o.CacheTTL, "cache-ttl", o.CacheTTL, "catalogd's --cache-ttl")
	verbose := flag.Bool("v", false, "show catalogd's log")
	flag.Parse()
	if *verbose {
		o.Log = os.Stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := soak(ctx, o, dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		code = 1
	}
	os.Exit(code)
}

// soak loads the demo shop into a throwaway database, runs, prints the
// report, and drops the database.
func soak(ctx context.Context, o Options, serverDSN string) (int, error) {
	cfg, err := mysql.ParseDSN(serverDSN)
	if err != nil {
		return 1, fmt.Errorf("-dsn: %w", err)
	}
	cfg.DBName = ""
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return 1, err
	}
	defer admin.Close()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "catalogd_soak_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci"); err != nil {
		return 1, fmt.Errorf("create database: %w", err)
	}
	defer func() {
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			fmt.Fprintln(os.Stderr, "soak: drop database:", err)
		}
	}()
	cfg.DBName = name
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return 1, err
	}
	defer db.Close()
	shop := seed.Demo()
	if err := shop.CreateSchema(ctx, db); err != nil {
		return 1, fmt.Errorf("schema: %w", err)
	}
	if err := shop.Flush(ctx, db); err != nil {
		return 1, fmt.Errorf("load the demo shop: %w", err)
	}
	o.DSN = cfg.FormatDSN()
	rep, err := Run(ctx, o)
	if err != nil {
		return 1, err
	}
	fmt.Print(rep.Markdown())
	if len(rep.Violations) > 0 {
		return 1, nil
	}
	return 0, nil
}

// Build builds catalogd into dir and returns the binary's path.
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "catalogd")
	cmd := exec.Command("go", "build", "-o", bin, "catalogd/cmd/catalogd")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build catalogd: %w", err)
	}
	return bin, nil
}

// Sample is one reading of catalogd's state.
type Sample struct {
	At         time.Duration
	Fault      bool
	Requests   int64 // answered since the previous sample
	RSSMiB     float64
	Goroutines float64
	DBOpen     float64
}

// Tally counts answers.
type Tally struct {
	Total, OK, NotModified, Client4xx int64
	Cold503, Warm503, S500, Other5xx  int64
	Transport                         int64
	Hit, Miss, Stale                  int64
}

func (t *Tally) add(a result) {
	t.Total++
	switch {
	case a.err != nil:
		t.Transport++
	case a.status == 304:
		t.NotModified++
	case a.status < 300:
		t.OK++
	case a.status < 500:
		t.Client4xx++
	case a.status == 503 && !a.hadCopy:
		t.Cold503++
	case a.status == 503:
		t.Warm503++
	case a.status == 500:
		t.S500++
	default:
		t.Other5xx++
	}
	switch a.cache {
	case "HIT":
		t.Hit++
	case "MISS":
		t.Miss++
	case "STALE":
		t.Stale++
	}
}

// Report is what a soak found.
type Report struct {
	Options               Options
	Elapsed               time.Duration
	Sent, Dropped         int64
	Inside, Outside       Tally
	Samples               []Sample
	Windows               [][2]time.Duration
	IdleGoroutinesBefore  float64
	IdleGoroutinesAfter   float64
	RSSBaseline, RSSAfter float64
	Examples              []string // first few violating answers
	Violations            []string
	URLs, ColdShare       int
}

// result is one answer.
type result struct {
	url           string
	sent, done    time.Duration
	status        int
	cache         string
	err           error
	hadCopy       bool // the URL had been answered (not 5xx) before: a cached copy exists
	body          string
	retryAfterSet bool
}

// Run starts catalogd on o.DSN through a fault proxy, loads it, injects the
// faults, and returns the report.
func Run(ctx context.Context, o Options) (*Report, error) {
	cfg, err := mysql.ParseDSN(o.DSN)
	if err != nil {
		return nil, err
	}
	proxy, err := faultproxy.Listen(cfg.Addr)
	if err != nil {
		return nil, err
	}
	defer proxy.Close()
	cfg.Addr = proxy.Addr()
	cfg.Timeout = time.Second

	if o.Binary == "" {
		dir, err := os.MkdirTemp("", "soak-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		if o.Binary, err = Build(dir); err != nil {
			return nil, err
		}
	}
	public, err := freeAddr()
	if err != nil {
		return nil, err
	}
	adminAddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(o.Binary)
	cmd.Env = append(cleanEnv(), "CATALOG_DSN="+cfg.FormatDSN(), "CATALOG_LISTEN="+public,
		"CATALOG_ADMIN_LISTEN="+adminAddr, "CATALOG_SITE_URL=http://localhost:8080", "CATALOG_ACCESS_LOG=false",
		"CATALOG_CACHE_TTL="+o.CacheTTL.String(), "CATALOG_QUERY_TIMEOUT=2s", "CATALOG_LOG_LEVEL=error")
	cmd.Stdout = io.Discard
	cmd.Stderr = io.Discard
	if o.Log != nil {
		cmd.Stderr = o.Log
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start catalogd: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()

	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		MaxIdleConns: o.Workers, MaxIdleConnsPerHost: o.Workers, IdleConnTimeout: time.Minute}}
	api := "http://" + public + "/wp-json/shop/v1"
	adm := "http://" + adminAddr
	if err := waitReady(ctx, client, adm, exited); err != nil {
		return nil, err
	}
	urls, err := discover(client, api, "http://"+public)
	if err != nil {
		return nil, err
	}

	rep := &Report{Options: o, URLs: len(urls), ColdShare: 5}
	pid := cmd.Process.Pid
	time.Sleep(time.Second)
	m, err := metrics(client, adm)
	if err != nil {
		return nil, err
	}
	rep.IdleGoroutinesBefore = m["go_goroutines"]

	// The load: a fixed rate of jobs handed to a bounded pool of clients;
	// a job that finds every client busy is dropped and counted.
	start := time.Now()
	var (
		mu      sync.Mutex
		results []result
		seen    = map[string]bool{} // answered without a 5xx
		sent    atomic.Int64
		dropped atomic.Int64
		answers atomic.Int64
		jobs    = make(chan string, o.Workers)
		wg      sync.WaitGroup
		faulty  atomic.Bool
	)
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range jobs {
				r := result{url: u, sent: time.Since(start)}
				mu.Lock()
				r.hadCopy = seen[u]
				mu.Unlock()
				resp, err := client.Get(u)
				if err != nil {
					r.err = err
				} else {
					body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
					resp.Body.Close()
					r.status, r.cache = resp.StatusCode, resp.Header.Get("X-Cache")
					r.retryAfterSet = resp.Header.Get("Retry-After") != ""
					if r.status >= 500 {
						r.body = string(body[:min(len(body), 300)])
					}
				}
				r.done = time.Since(start)
				answers.Add(1)
				mu.Lock()
				if r.err == nil && r.status < 500 {
					seen[u] = true
				}
				results = append(results, r)
				mu.Unlock()
			}
		}()
	}

	// The fault schedule.
	stopFaults := make(chan struct{})
	faultsDone := make(chan struct{})
	go func() {
		defer close(faultsDone)
		if o.FaultEvery <= 0 {
			return
		}
		for k := 0; ; k++ {
			down := start.Add(time.Duration(k)*o.FaultEvery + o.FaultOffset)
			select {
			case <-stopFaults:
				return
			case <-time.After(time.Until(down)):
			}
			if time.Since(start)+o.FaultFor > o.Duration {
				return // no fault that outlasts the load
			}
			proxy.SetDown(true)
			faulty.Store(true)
			from := time.Since(start)
			select {
			case <-stopFaults:
			case <-time.After(o.FaultFor):
			}
			proxy.SetDown(false)
			faulty.Store(false)
			mu.Lock()
			rep.Windows = append(rep.Windows, [2]time.Duration{from, time.Since(start)})
			mu.Unlock()
		}
	}()

	// The sampler.
	stopSampling := make(chan struct{})
	samplingDone := make(chan struct{})
	go func() {
		defer close(samplingDone)
		t := time.NewTicker(o.Sample)
		defer t.Stop()
		var last int64
		for {
			select {
			case <-stopSampling:
				return
			case <-t.C:
			}
			n := answers.Load()
			s := Sample{At: time.Since(start).Round(time.Second), Fault: faulty.Load(), Requests: n - last}
			last = n
			s.RSSMiB, _ = rssMiB(pid)
			if m, err := metrics(client, adm); err == nil {
				s.Goroutines, s.DBOpen = m["go_goroutines"], m["catalogd_db_connections_open"]
			}
			mu.Lock()
			rep.Samples = append(rep.Samples, s)
			mu.Unlock()
		}
	}()

	// The generator.
	rng := mrand.New(mrand.NewPCG(1, 2))
	interval := time.Second / time.Duration(o.Rate)
	next := start
	cold := 0
	for i := 0; time.Since(start) < o.Duration; i++ {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case err := <-exited:
			return nil, fmt.Errorf("catalogd exited during the soak: %v", err)
		default:
		}
		u := urls[rng.IntN(len(urls))]
		if rng.IntN(100) < rep.ColdShare {
			cold++
			u = fmt.Sprintf("%s/catalog/products/cold-%d", api, cold) // never seen: no copy to keep
		}
		sent.Add(1)
		select {
		case jobs <- u:
		default:
			dropped.Add(1)
		}
		next = next.Add(interval)
		time.Sleep(time.Until(next))
	}
	rep.Elapsed = time.Since(start)
	close(stopFaults)
	<-faultsDone
	proxy.SetDown(false)
	close(jobs)
	wg.Wait()
	close(stopSampling)
	<-samplingDone
	rep.Sent, rep.Dropped = sent.Load(), dropped.Load()

	// Idle again, database up: where do memory and goroutines settle?
	client.CloseIdleConnections()
	time.Sleep(3 * time.Second)
	if m, err := metrics(client, adm); err == nil {
		rep.IdleGoroutinesAfter = m["go_goroutines"]
		rep.Samples = append(rep.Samples, Sample{At: time.Since(start).Round(time.Second), RSSMiB: 0,
			Goroutines: m["go_goroutines"], DBOpen: m["catalogd_db_connections_open"]})
	}
	rep.RSSAfter, _ = rssMiB(pid)
	rep.Samples[len(rep.Samples)-1].RSSMiB = rep.RSSAfter
	rep.judge(results)
	return rep, nil
}

// judge tallies the answers inside and outside the fault windows and
// records the violations.
func (rep *Report) judge(results []result) {
	o := rep.Options
	inside := func(r result) bool {
		for _, w := range rep.Windows {
			if r.done >= w[0] && r.sent <= w[1]+o.Grace {
				return true
			}
		}
		return false
	}
	bad := func(format string, args ...any) {
		if len(rep.Examples) < 10 {
			rep.Examples = append(rep.Examples, fmt.Sprintf(format, args...))
		}
	}
	for _, r := range results {
		in := inside(r)
		if in {
			rep.Inside.add(r)
		} else {
			rep.Outside.add(r)
		}
		switch {
		case r.err == nil && r.status == 500:
			bad("%v %s: 500 %s", r.sent.Round(time.Millisecond), r.url, r.body)
		case r.err == nil && r.status >= 500 && r.status != 503:
			bad("%v %s: %d %s", r.sent.Round(time.Millisecond), r.url, r.status, r.body)
		case r.err == nil && r.status == 503 && !r.retryAfterSet:
			bad("%v %s: 503 without Retry-After", r.sent.Round(time.Millisecond), r.url)
		case in:
		case r.err != nil:
			bad("%v %s: %v", r.sent.Round(time.Millisecond), r.url, r.err)
		case r.status == 503 && r.hadCopy:
			bad("%v %s: 503 outside a fault window though a copy was cached", r.sent.Round(time.Millisecond), r.url)
		}
	}
	all := rep.Inside
	all.addTally(rep.Outside)
	if all.S500 > 0 {
		rep.Violations = append(rep.Violations, fmt.Sprintf("%d answers were 500", all.S500))
	}
	if all.Other5xx > 0 {
		rep.Violations = append(rep.Violations, fmt.Sprintf("%d answers were a 5xx other than 503", all.Other5xx))
	}
	if n := rep.Outside.Warm503; n > 0 {
		rep.Violations = append(rep.Violations, fmt.Sprintf("%d 503s outside the fault windows for keys with a cached copy", n))
	}
	if n := rep.Outside.Transport; n > 0 {
		rep.Violations = append(rep.Violations, fmt.Sprintf("%d transport errors outside the fault windows", n))
	}
	// Once the catalog is loaded, its answers come from memory: a database
	// outage changes none of them, so a 503 during one is a regression.
	if n := rep.Inside.Cold503 + rep.Inside.Warm503; n > 0 && len(rep.Windows) > 0 {
		rep.Violations = append(rep.Violations, fmt.Sprintf("%d 503s during the faults: answers come from the snapshot in memory", n))
	}
	if g := rep.IdleGoroutinesAfter; g > rep.IdleGoroutinesBefore+o.GoroutineSlack {
		rep.Violations = append(rep.Violations, fmt.Sprintf("goroutines did not end flat: %.0f idle before the load, %.0f after",
			rep.IdleGoroutinesBefore, g))
	}
	// The RSS baseline: the first sample after the first fault cycle, when
	// the cache is warm and the pool has been through one outage.
	for _, s := range rep.Samples {
		if len(rep.Windows) == 0 || s.At >= rep.Windows[0][1]+o.Grace {
			rep.RSSBaseline = s.RSSMiB
			break
		}
	}
	if limit := rep.RSSBaseline*(1+o.RSSGrowth) + o.RSSSlackMiB; rep.RSSBaseline > 0 && rep.RSSAfter > limit {
		rep.Violations = append(rep.Violations, fmt.Sprintf("RSS did not end flat: %.1f MiB after the first fault cycle, %.1f MiB at the end (limit %.1f)",
			rep.RSSBaseline, rep.RSSAfter, limit))
	}
}

func (t *Tally) addTally(u Tally) {
	t.Total += u.Total
	t.OK += u.OK
	t.NotModified += u.NotModified
	t.Client4xx += u.Client4xx
	t.Cold503 += u.Cold503
	t.Warm503 += u.Warm503
	t.S500 += u.S500
	t.Other5xx += u.Other5xx
	t.Transport += u.Transport
	t.Hit += u.Hit
	t.Miss += u.Miss
	t.Stale += u.Stale
}

// Markdown renders the report.
func (rep *Report) Markdown() string {
	o := rep.Options
	var b strings.Builder
	fmt.Fprintf(&b, "## catalogd soak: %v at %d req/s, database down %v every %v\n\n", o.Duration, o.Rate, o.FaultFor, o.FaultEvery)
	rate := float64(rep.Sent-rep.Dropped) / rep.Elapsed.Seconds()
	fmt.Fprintf(&b, "%d requests sent (%.1f/s achieved, %d dropped for want of a free client) over %d URLs plus %d%% never-seen slugs; %d fault windows (+%v grace).\n\n",
		rep.Sent, rate, rep.Dropped, rep.URLs, rep.ColdShare, len(rep.Windows), o.Grace)
	b.WriteString("| answers | total | 2xx | 304 | 4xx | 503 no copy | 503 with copy | 500 | other 5xx | transport errors | HIT | MISS | STALE |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	all := rep.Inside
	all.addTally(rep.Outside)
	for _, row := range []struct {
		name string
		t    Tally
	}{{"outside fault windows", rep.Outside}, {"inside fault windows", rep.Inside}, {"all", all}} {
		t := row.t
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", row.name, t.Total, t.OK,
			t.NotModified, t.Client4xx, t.Cold503, t.Warm503, t.S500, t.Other5xx, t.Transport, t.Hit, t.Miss, t.Stale)
	}
	b.WriteString("\n| t | database | answers | RSS (MiB) | goroutines | DB connections open |\n|---:|---|---:|---:|---:|---:|\n")
	for i, s := range rep.Samples {
		state := "up"
		if s.Fault {
			state = "**down**"
		}
		if i == len(rep.Samples)-1 {
			state = "up, idle after the load"
		}
		fmt.Fprintf(&b, "| %v | %s | %d | %.1f | %.0f | %.0f |\n", s.At, state, s.Requests, s.RSSMiB, s.Goroutines, s.DBOpen)
	}
	fmt.Fprintf(&b, "\nIdle goroutines: %.0f before the load, %.0f after (slack %.0f). RSS: %.1f MiB after the first fault cycle, %.1f MiB at the end (allowed %.0f%% + %.0f MiB).\n",
		rep.IdleGoroutinesBefore, rep.IdleGoroutinesAfter, o.GoroutineSlack, rep.RSSBaseline, rep.RSSAfter, o.RSSGrowth*100, o.RSSSlackMiB)
	if len(rep.Violations) == 0 {
		b.WriteString("\n**PASS**: no 500, no 5xx outside the fault windows but 503s for keys never answered, memory and goroutines flat.\n")
	} else {
		b.WriteString("\n**FAIL**:\n")
		for _, v := range rep.Violations {
			b.WriteString("- " + v + "\n")
		}
	}
	if len(rep.Examples) > 0 {
		b.WriteString("\nFirst offending answers:\n")
		for _, e := range rep.Examples {
			b.WriteString("- `" + strings.ReplaceAll(e, "`", "'") + "`\n")
		}
	}
	return b.String()
}

// discover lists the URLs of the load: every operation, pages and filters,
// every listed product, and the companion documents.
func discover(client *http.Client, api, site string) ([]string, error) {
	urls := []string{api + "/catalog", api + "/catalog/categories", site + "/llms.txt", site + "/openapi.json",
		site + "/.well-known/api-catalog", api + "/catalog/products/no-such-product", api + "/catalog/products?per_page=51"}
	var cats struct {
		Categories []struct {
			Slug string `json:"slug"`
		} `json:"categories"`
	}
	if err := getJSON(client, api+"/catalog/categories", &cats); err != nil {
		return nil, err
	}
	for _, c := range cats.Categories {
		urls = append(urls, api+"/catalog/products?category="+url.QueryEscape(c.Slug))
	}
	for _, f := range []string{"esx", "qbcore", "qbox", "standalone"} {
		urls = append(urls, api+"/catalog/products?framework="+f)
	}
	for _, per := range []int{1, 5, 20, 50} {
		for page := 1; ; page++ {
			u := fmt.Sprintf("%s/catalog/products?per_page=%d&page=%d", api, per, page)
			var l struct {
				Products []struct {
					Slug string `json:"slug"`
				} `json:"products"`
				TotalPages int `json:"total_pages"`
			}
			if err := getJSON(client, u, &l); err != nil {
				return nil, err
			}
			urls = append(urls, u)
			if per == 50 {
				for _, p := range l.Products {
					urls = append(urls, api+"/catalog/products/"+p.Slug)
				}
			}
			if page >= l.TotalPages || per == 1 && page >= 10 {
				break
			}
		}
	}
	sort.Strings(urls)
	return urls, nil
}

func getJSON(client *http.Client, u string, v any) error {
	resp, err := client.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// waitReady waits until /readyz answers 200.
func waitReady(ctx context.Context, client *http.Client, admin string, exited <-chan error) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := client.Get(admin + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-exited:
			return fmt.Errorf("catalogd exited before it was ready: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if time.Now().After(deadline) {
			return errors.New("catalogd not ready within 30s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// metrics reads the Prometheus page into series name → summed value.
func metrics(client *http.Client, admin string) (map[string]float64, error) {
	resp, err := client.Get(admin + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		name, _, _ := strings.Cut(fields[0], "{")
		if v, err := strconv.ParseFloat(fields[len(fields)-1], 64); err == nil && !math.IsNaN(v) {
			out[name] += v
		}
	}
	return out, sc.Err()
}

// rssMiB reads VmRSS of a process from /proc.
func rssMiB(pid int) (float64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err != nil {
				return 0, err
			}
			return kb / 1024, nil
		}
	}
	return 0, errors.New("no VmRSS")
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// cleanEnv is this process's environment without CATALOG_* settings.
func cleanEnv() []string {
	var out []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "CATALOG_") {
			out = append(out, e)
		}
	}
	return out
}
