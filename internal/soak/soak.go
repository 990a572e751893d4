// Package soak drives a catalogd binary over the demo shop at a fixed
// request rate, reaching the database through a fault proxy that takes it
// away on a schedule (down 5s every 20s by default), and reports in
// Markdown: requests by status and cache state inside and outside the
// fault windows, and catalogd's memory (VmRSS), goroutines and database
// connections over time. A soak fails on any 500, on any 503 inside the
// fault windows (once loaded, the catalog answers from memory: the
// database's absence changes no answer), on any 5xx or transport error
// outside them other than a 503 for a request that never had an answer to
// keep, and when memory or goroutines do not end flat.
//
// The load is in load.go, the verdict in judge.go, the report in
// report.go; cmd/soak is the command (`make soak`), TestSoak the
// one-minute run CI makes (`make soak-ci`).
package soak

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/faultproxy"
	"catalogd/internal/proctest"
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

// Build builds catalogd into dir and returns the binary's path.
func Build(dir string) (string, error) {
	if err := proctest.Build(dir, map[string]string{"catalogd": "catalogd/cmd/catalogd"}); err != nil {
		return "", err
	}
	return filepath.Join(dir, "catalogd"), nil
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
	cfg.Addr, cfg.Timeout = proxy.Addr(), time.Second
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
	c, err := proctest.Start(o.Binary, proctest.Options{DSN: cfg.FormatDSN(), Stdout: io.Discard, Stderr: stderr(o.Log),
		Env: []string{"CATALOG_SITE_URL=http://localhost:8080", "CATALOG_ACCESS_LOG=false",
			"CATALOG_CACHE_TTL=" + o.CacheTTL.String(), "CATALOG_QUERY_TIMEOUT=2s", "CATALOG_LOG_LEVEL=error"},
		PollEvery: 100 * time.Millisecond})
	if err != nil {
		return nil, fmt.Errorf("start catalogd: %w", err)
	}
	defer c.Stop(20 * time.Second)
	if _, _, err := c.WaitReadyz(http.StatusOK, 30*time.Second); err != nil {
		return nil, err
	}
	c.Client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		MaxIdleConns: o.Workers, MaxIdleConnsPerHost: o.Workers, IdleConnTimeout: time.Minute}}
	urls, err := discover(c.Client, c.API, "http://"+c.Public)
	if err != nil {
		return nil, err
	}
	rep := &Report{Options: o, URLs: len(urls), ColdShare: 5}
	if rep.IdleGoroutinesBefore, err = idleGoroutines(c, time.Second, nil); err != nil {
		return nil, err
	}
	l := newLoad(o, c, proxy, urls, rep)
	if err := l.run(ctx); err != nil {
		return nil, err
	}
	rep.idleAfter(c)
	rep.judge(l.results)
	return rep, nil
}

// stderr is where catalogd's log goes: w, or nowhere.
func stderr(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// idleGoroutines closes the client's idle connections and reads catalogd's
// goroutines until they are steady (two readings alike) or enough (when
// given) holds, for at most within; it returns the last reading.
func idleGoroutines(c *proctest.Catalogd, within time.Duration, enough func(float64) bool) (float64, error) {
	c.Client.CloseIdleConnections()
	last, g := -1.0, 0.0
	err := c.Poll(within, func() bool {
		m, err := c.Metrics()
		if err != nil {
			return false
		}
		g = m["go_goroutines"]
		steady := g == last
		last = g
		if enough != nil {
			return enough(g)
		}
		return steady
	})
	if err != nil && c.Exited() != nil {
		return 0, err
	}
	return g, nil // not steady within the time: the last reading is the figure
}

// idleAfter reads, once the load is over and the database up, where memory
// and goroutines settle: the report's last sample.
func (rep *Report) idleAfter(c *proctest.Catalogd) {
	flat := func(g float64) bool { return g <= rep.IdleGoroutinesBefore+rep.Options.GoroutineSlack }
	g, err := idleGoroutines(c, 3*time.Second, flat)
	s := Sample{At: time.Duration(0)}
	if err == nil {
		rep.IdleGoroutinesAfter = g
		s.Goroutines = g
		if m, err := c.Metrics(); err == nil {
			s.DBOpen = m[dbOpen]
		}
	}
	rep.RSSAfter, _ = c.RSSMiB()
	s.RSSMiB = rep.RSSAfter
	s.At = rep.end()
	rep.Samples = append(rep.Samples, s)
}
