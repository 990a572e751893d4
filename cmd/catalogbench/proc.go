package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"catalogd/internal/proctest"
)

// A catalogd under measurement, and the HTTP client that measures it.

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

// readyTimeout is how long start waits for each of catalogd's first answers
// (-ready-timeout): the largest shops load for minutes.
var readyTimeout = 60 * time.Second

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
		err := c.Poll(readyTimeout, func() bool {
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
