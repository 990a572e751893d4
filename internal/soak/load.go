package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"catalogd/internal/faultproxy"
	"catalogd/internal/proctest"
)

// dbOpen is the metric of the database connections catalogd holds open.
const dbOpen = "go_sql_open_connections"

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

// load is one soak's traffic: a fixed rate of jobs handed to a bounded pool
// of clients (a job that finds every client busy is dropped and counted),
// the fault schedule, and the sampler.
type load struct {
	o     Options
	c     *proctest.Catalogd
	proxy *faultproxy.Proxy
	urls  []string
	rep   *Report
	start time.Time

	mu      sync.Mutex // guards results, seen, rep.Windows and rep.Samples
	results []result
	seen    map[string]bool // answered without a 5xx
	answers atomic.Int64
	faulty  atomic.Bool
}

func newLoad(o Options, c *proctest.Catalogd, proxy *faultproxy.Proxy, urls []string, rep *Report) *load {
	return &load{o: o, c: c, proxy: proxy, urls: urls, rep: rep, seen: map[string]bool{}}
}

// run sends the load for o.Duration with the faults and the sampler
// running beside it, and fills the report's counts, windows and samples.
func (l *load) run(ctx context.Context) error {
	l.start = time.Now()
	l.rep.start = l.start
	jobs := make(chan string, l.o.Workers)
	var workers sync.WaitGroup
	for range l.o.Workers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for u := range jobs {
				l.get(u)
			}
		}()
	}
	stopFaults, faultsDone := make(chan struct{}), make(chan struct{})
	go func() { defer close(faultsDone); l.faults(stopFaults) }()
	stopSampling, samplingDone := make(chan struct{}), make(chan struct{})
	go func() { defer close(samplingDone); l.sample(stopSampling) }()
	err := l.generate(ctx, jobs)
	l.rep.Elapsed = time.Since(l.start)
	close(stopFaults)
	<-faultsDone
	l.proxy.SetDown(false)
	close(jobs)
	workers.Wait()
	close(stopSampling)
	<-samplingDone
	return err
}

// generate hands out jobs at o.Rate until o.Duration has passed.
func (l *load) generate(ctx context.Context, jobs chan<- string) error {
	rng := mrand.New(mrand.NewPCG(1, 2))
	interval := time.Second / time.Duration(l.o.Rate)
	next := l.start
	cold := 0
	for time.Since(l.start) < l.o.Duration {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-l.c.Done():
			return fmt.Errorf("catalogd exited during the soak: %v", l.c.Exited())
		default:
		}
		u := l.urls[rng.IntN(len(l.urls))]
		if rng.IntN(100) < l.rep.ColdShare {
			cold++
			u = fmt.Sprintf("%s/catalog/products/cold-%d", l.c.API, cold) // never seen: no copy to keep
		}
		l.rep.Sent++
		select {
		case jobs <- u:
		default:
			l.rep.Dropped++
		}
		next = next.Add(interval)
		time.Sleep(time.Until(next)) // the pace of the load, not a wait for catalogd
	}
	return nil
}

// get sends one request and records its answer.
func (l *load) get(u string) {
	r := result{url: u, sent: time.Since(l.start)}
	l.mu.Lock()
	r.hadCopy = l.seen[u]
	l.mu.Unlock()
	resp, err := l.c.Client.Get(u)
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
	r.done = time.Since(l.start)
	l.answers.Add(1)
	l.mu.Lock()
	if r.err == nil && r.status < 500 {
		l.seen[u] = true
	}
	l.results = append(l.results, r)
	l.mu.Unlock()
}

// faults takes the database down for o.FaultFor every o.FaultEvery, at
// o.FaultOffset into each period, until stop is closed; no fault outlasts
// the load.
func (l *load) faults(stop <-chan struct{}) {
	if l.o.FaultEvery <= 0 {
		return
	}
	for k := 0; ; k++ {
		down := l.start.Add(time.Duration(k)*l.o.FaultEvery + l.o.FaultOffset)
		select {
		case <-stop:
			return
		case <-time.After(time.Until(down)):
		}
		if time.Since(l.start)+l.o.FaultFor > l.o.Duration {
			return
		}
		l.proxy.SetDown(true)
		l.faulty.Store(true)
		from := time.Since(l.start)
		select {
		case <-stop:
		case <-time.After(l.o.FaultFor):
		}
		l.proxy.SetDown(false)
		l.faulty.Store(false)
		l.mu.Lock()
		l.rep.Windows = append(l.rep.Windows, [2]time.Duration{from, time.Since(l.start)})
		l.mu.Unlock()
	}
}

// sample reads catalogd's memory, goroutines and connections every
// o.Sample until stop is closed.
func (l *load) sample(stop <-chan struct{}) {
	t := time.NewTicker(l.o.Sample)
	defer t.Stop()
	var last int64
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		n := l.answers.Load()
		s := Sample{At: time.Since(l.start).Round(time.Second), Fault: l.faulty.Load(), Requests: n - last}
		last = n
		s.RSSMiB, _ = l.c.RSSMiB()
		if m, err := l.c.Metrics(); err == nil {
			s.Goroutines, s.DBOpen = m["go_goroutines"], m[dbOpen]
		}
		l.mu.Lock()
		l.rep.Samples = append(l.rep.Samples, s)
		l.mu.Unlock()
	}
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
