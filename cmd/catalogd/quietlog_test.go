package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/demoshop"
	"catalogd/internal/faultproxy"
	"catalogd/internal/testdb"
)

// loudLine matches a log line at WARN or ERROR, text or JSON.
var loudLine = regexp.MustCompile(`(?m)^.*(level=(WARN|ERROR)|"level":"(WARN|ERROR)").*$`)

// The demo's start, as make demo runs it: the demo shop in a throwaway
// database read as a user that can write (root there), with
// CATALOG_ALLOW_WRITABLE_USER=true as the Makefile's demo passes. Nothing
// is logged at WARN or ERROR through start-up and a visitor's first
// requests (a page, a product, a 404, a bad query), the writable user is
// said at INFO, and no statement counts as errored: every errored query
// would have its log line.
func TestDemoStartIsQuiet(t *testing.T) {
	dsn, _ := testdb.Load(t, demoshop.Shop())
	r := start(t, dsn, "CATALOG_ALLOW_WRITABLE_USER=true", "CATALOG_SITE_URL=http://localhost:8080")
	r.waitBaseline(t)
	for path, want := range map[string]int{
		"/catalog": 200, "/catalog/products": 200, "/catalog/categories": 200,
		"/catalog/products/no-such-product": 404, "/catalog/products?per_page=0": 400,
	} {
		if a := r.fetch(r.API + path); a.err != nil || a.status != want {
			t.Errorf("GET %s: %d %v, want %d", path, a.status, a.err, want)
		}
	}
	m := r.fetch(r.AdminURL + "/metrics")
	if m.status != http.StatusOK {
		t.Fatalf("/metrics: %d %v", m.status, m.err)
	}
	if errored := regexp.MustCompile(`(?m)^catalogd_db_query_duration_seconds_count\{outcome="error"\} (\S+)$`).FindSubmatch(m.body); errored != nil && string(errored[1]) != "0" {
		t.Errorf("/metrics counts %s errored queries after a normal start", errored[1])
	}
	log := r.Stderr.String()
	if loud := loudLine.FindAllString(log, -1); len(loud) > 0 {
		t.Errorf("a normal demo start logged at WARN or ERROR:\n%s", strings.Join(loud, "\n"))
	}
	if cfg, err := mysql.ParseDSN(dsn); err == nil && cfg.User == "root" &&
		!regexp.MustCompile(`level=INFO msg="the database user can write, as --allow-writable-user allows`).MatchString(log) {
		t.Errorf("the writable user is not said at INFO:\n%s", log)
	}
}

// Without CATALOG_ALLOW_WRITABLE_USER, a user that can write is warned
// about, as production must hear; a SELECT-only user is not.
func TestWritableUserIsWarned(t *testing.T) {
	dsn, _ := testdb.Load(t, jobsShop())
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		grants []string
		warned bool
	}{
		{"can write", []string{"SELECT, INSERT ON `" + cfg.DBName + "`.*"}, true},
		{"SELECT only", []string{"SELECT ON `" + cfg.DBName + "`.*"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := testdb.NewUser(t, dsn, tt.grants...)
			r := start(t, u.DSN, "CATALOG_ACCESS_LOG=false")
			r.waitBaseline(t)
			log := r.Stderr.String()
			warned := regexp.MustCompile(`(?m)^.*level=WARN msg="the database user can write; give catalogd a SELECT-only user.*--allow-writable-user`).MatchString(log)
			if warned != tt.warned {
				t.Errorf("warned %v, want %v; log:\n%s", warned, tt.warned, log)
			}
			if !tt.warned {
				if loud := loudLine.FindAllString(log, -1); len(loud) > 0 {
					t.Errorf("a read-only user's start logged at WARN or ERROR:\n%s", strings.Join(loud, "\n"))
				}
			}
		})
	}
}

// A start behind a proxy's health probe (the shipped Varnish VCL's HEAD of
// the index, once a second): the probes before the first snapshot is in
// answer 503 and are said once at INFO as not ready yet, never warned
// about as a catalog unavailable; the access log writes a probe's line
// only when its status changes (the first 503, the first 200), while every
// other request keeps its line.
func TestStartBehindAProbeIsQuiet(t *testing.T) {
	dsn, _ := testdb.Load(t, jobsShop())
	proxy := faultproxy.Start(t, dbAddr(t, dsn))
	proxy.SetDown(true) // the first load waits for it: the probes come first
	r := start(t, throughProxy(t, dsn, proxy.Addr()), "CATALOG_SITE_URL="+faultSite)
	send := func(method, path, ua string) int {
		t.Helper()
		req, err := http.NewRequest(method, r.API+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("User-Agent", ua)
		resp, err := r.Client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	probe := func() int { return send(http.MethodHead, "/catalog", "varnish-probe") }
	const n = 20
	for i := 0; i < n; i++ {
		if got := probe(); got != http.StatusServiceUnavailable {
			t.Fatalf("probe %d before the first load: %d, want 503", i+1, got)
		}
	}
	if got := send(http.MethodGet, "/catalog/products", "agent/1"); got != http.StatusServiceUnavailable {
		t.Errorf("GET before the first load: %d, want 503", got)
	}
	proxy.SetDown(false)
	r.poll(t, 15*time.Second, "the probe never answered 200", func() bool { return probe() == http.StatusOK })
	for i := 0; i < n; i++ {
		if got := probe(); got != http.StatusOK {
			t.Fatalf("probe %d after the first load: %d, want 200", i+1, got)
		}
	}
	if got := send(http.MethodGet, "/catalog/products", "agent/2"); got != http.StatusOK {
		t.Errorf("GET after the first load: %d, want 200", got)
	}
	// The lines are written by catalogd's batching writer: wait for the last.
	r.poll(t, 5*time.Second, "the last request's line", func() bool { return strings.Contains(r.Stderr.String(), "ua=agent/2") })
	log := r.Stderr.String()
	var probes []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "ua=varnish-probe") {
			probes = append(probes, l)
		}
	}
	if len(probes) != 2 || !strings.Contains(probes[0], "status=503") || !strings.Contains(probes[1], "status=200") {
		t.Errorf("%d+ probes wrote the access-log lines:\n%s\nwant two: the first 503, the first 200", 2*n, strings.Join(probes, "\n"))
	}
	for _, ua := range []string{"ua=agent/1", "ua=agent/2"} {
		if strings.Count(log, ua) != 1 {
			t.Errorf("the request with %s is not logged once:\n%s", ua, log)
		}
	}
	if got := regexp.MustCompile(`(?m)^.*level=INFO msg="not ready yet: .*$`).FindAllString(log, -1); len(got) != 1 {
		t.Errorf("not ready yet said %d times, want once:\n%s", len(got), log)
	}
	// The database away at start is warned about (by the follower, and the
	// driver's word on the proxy's closed connections); the 503s it caused
	// are not.
	for _, l := range loudLine.FindAllString(log, -1) {
		if strings.Contains(l, "unavailable") || strings.Contains(l, "503") {
			t.Errorf("a start behind a probe warned about its 503s: %s", l)
		}
	}
}
