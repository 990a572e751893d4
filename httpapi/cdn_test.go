package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
)

// directives parses a Cache-Control value into seconds per directive.
func directives(t *testing.T, cc string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, d := range strings.Split(cc, ", ") {
		k, v, ok := strings.Cut(d, "=")
		if !ok {
			out[k] = -1
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("Cache-Control %q: %s is not whole seconds", cc, d)
		}
		out[k] = n
	}
	return out
}

// A product whose sale starts in five minutes may be kept by no cache,
// fresh or stale, past the start; served again from catalogd's cache a
// little later, its lifetimes are counted from then, not frozen at store.
func TestCacheControlEndsAtSaleStart(t *testing.T) {
	s := newShop()
	var clock atomic.Int64 // the server's time, advanced by the test
	clock.Store(now.UnixNano())
	at := func() time.Time { return time.Unix(0, clock.Load()) }
	start := now.Add(5 * time.Minute)
	s.Now = now
	s.Add(wpfixture.Product{Title: "Flash Sale", RegularPrice: "10", SalePrice: "5", SaleFrom: start})
	c := serveCached(t, s, at)

	check := func(path string) map[string]int {
		t.Helper()
		r := get(t, c.srv, path)
		d := directives(t, r.header.Get("Cache-Control"))
		lifetime := max(d["max-age"], d["s-maxage"]) + max(d["stale-while-revalidate"], d["stale-if-error"])
		if left := start.Sub(at()); time.Duration(lifetime)*time.Second > left {
			t.Errorf("%s (%s): Cache-Control %q lets a cache keep it %ds, past the sale start in %s",
				path, r.header.Get("X-Cache"), r.header.Get("Cache-Control"), lifetime, left.Round(time.Second))
		}
		if d["public"] != -1 || d["s-maxage"] < 1 {
			t.Errorf("%s: Cache-Control %q: want public with an s-maxage", path, r.header.Get("Cache-Control"))
		}
		return d
	}
	for _, path := range []string{base + "/catalog/products/flash-sale", base + "/catalog/products?per_page=50"} {
		first := check(path)
		clock.Add(int64(1100 * time.Millisecond))
		again := check(path)
		if again["s-maxage"] >= first["s-maxage"] {
			t.Errorf("%s: s-maxage %d then %d a second later from the cache; want it counted down",
				path, first["s-maxage"], again["s-maxage"])
		}
	}
	// A product without sale dates keeps the configured lifetimes.
	if r := get(t, c.srv, base+"/catalog/products/police-radar"); r.header.Get("Cache-Control") !=
		"public, max-age=600, s-maxage=600, stale-while-revalidate=60, stale-if-error=86400" {
		t.Errorf("no sale ahead: Cache-Control %q", r.header.Get("Cache-Control"))
	}
	// Errors: a 4xx briefly, a 5xx never.
	if r := get(t, c.srv, base+"/catalog/products/no-such-thing"); r.header.Get("Cache-Control") != "public, max-age=60" {
		t.Errorf("404: Cache-Control %q", r.header.Get("Cache-Control"))
	}
}

// Last-Modified comes beside the ETag, and If-Modified-Since is answered
// as RFC 9110 §13.2.2 orders the preconditions: If-None-Match decides when
// sent; If-Modified-Since only without it, only for GET and HEAD, to the
// second.
func TestIfModifiedSince(t *testing.T) {
	s := newShop()
	dsn, raw := testdb.Load(t, s)
	saved := now.Add(-90 * time.Minute)
	if _, err := raw.Exec(`UPDATE wp_posts SET post_modified_gmt = ? WHERE post_name = 'police-radar'`, saved.Format(time.DateTime)); err != nil {
		t.Fatal(err)
	}
	clock := now.Add(-2 * time.Hour) // catalogd loads the shop before the save
	cat := catalog.New(openDB(t, dsn, "wp_", 5*time.Second), catalog.Config{Now: func() time.Time { return clock }})
	if _, err := cat.Index(t.Context()); err != nil {
		t.Fatal(err)
	}
	clock = now
	srv := httptest.NewServer(httpapi.NewServer(httpapi.Deps{Catalog: cat, SiteURL: siteURL,
		Cache: httpapi.NewCache(httpapi.DefaultCacheConfig), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)

	path := base + "/catalog/products/police-radar"
	first := get(t, srv, path)
	lm := first.header.Get("Last-Modified")
	if lm != saved.Format(http.TimeFormat) {
		t.Fatalf("Last-Modified = %q, want the product's save %q", lm, saved.Format(http.TimeFormat))
	}
	etag := first.header.Get("ETag")
	fmtT := func(t time.Time) string { return t.Format(http.TimeFormat) }
	tests := []struct {
		name   string
		method string
		hdr    map[string]string
		want   int
	}{
		{"the same date", "GET", map[string]string{"If-Modified-Since": lm}, 304},
		{"a later date", "GET", map[string]string{"If-Modified-Since": fmtT(saved.Add(time.Hour))}, 304},
		{"a second earlier", "GET", map[string]string{"If-Modified-Since": fmtT(saved.Add(-time.Second))}, 200},
		{"HEAD", "HEAD", map[string]string{"If-Modified-Since": lm}, 304},
		{"not a date", "GET", map[string]string{"If-Modified-Since": "yesterday"}, 200},
		{"RFC 850 date", "GET", map[string]string{"If-Modified-Since": saved.Format(time.RFC850)}, 304},
		{"If-None-Match differs: it wins", "GET", map[string]string{"If-None-Match": `"other"`, "If-Modified-Since": lm}, 200},
		{"If-None-Match matches: it wins", "GET", map[string]string{"If-None-Match": etag,
			"If-Modified-Since": fmtT(saved.Add(-time.Hour))}, 304},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, srv, tt.method, path, tt.hdr)
			if r.status != tt.want {
				t.Fatalf("%d, want %d", r.status, tt.want)
			}
			if r.status == 304 && (r.header.Get("Last-Modified") != lm || r.header.Get("ETag") == "" || r.header.Get("Cache-Control") == "") {
				t.Errorf("304 lacks its validators or Cache-Control: %v", r.header)
			}
		})
	}
	// A product not saved since catalogd loaded the shop: the load time,
	// since its terms and settings have no time of their own.
	if r := get(t, srv, base+"/catalog/products/car-dealer"); r.header.Get("Last-Modified") != fmtT(now.Add(-2*time.Hour)) {
		t.Errorf("unsaved product: Last-Modified %q, want the load time", r.header.Get("Last-Modified"))
	}
	// A 4xx carries none: there is nothing it shows.
	if r := get(t, srv, base+"/catalog/products/nope"); r.header.Get("Last-Modified") != "" {
		t.Errorf("404 with Last-Modified %q", r.header.Get("Last-Modified"))
	}
}

// Every cacheable answer names what a purge needs in Surrogate-Key;
// a change catalogd sees lists the tags it invalidated at /changes, and
// counts them on /metrics.
func TestPurgeTags(t *testing.T) {
	dsn, raw := testdb.Load(t, newShop())
	id := func(q, name string) string {
		t.Helper()
		var n int64
		if err := raw.QueryRow(q, name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return strconv.FormatInt(n, 10)
	}
	product := func(slug string) string {
		return "shop-product-" + id(`SELECT ID FROM wp_posts WHERE post_name = ?`, slug)
	}
	cat := catalog.New(openDB(t, dsn, "wp_", 5*time.Second), catalog.Config{Now: func() time.Time { return now }})
	cache := httpapi.NewCache(httpapi.DefaultCacheConfig)
	reg := prometheus.NewRegistry()
	srv := httptest.NewServer(httpapi.NewServer(httpapi.Deps{Catalog: cat, SiteURL: siteURL, Cache: cache,
		Metrics: httpapi.NewMetrics(reg, cache), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)

	tests := []struct {
		path string
		want []string
	}{
		{"/catalog", []string{"shop-index"}},
		{"/catalog/categories", []string{"shop-categories"}}, // a term change purges it by its kind
		{"/catalog/products?per_page=2", []string{"shop-list", product("police-radar"), product("gun-shop")}},
		{"/catalog/products?category=vehicles", []string{"shop-list", product("car-dealer"), product("free-thing")}},
		{"/catalog/products/police-radar", []string{"shop-product", product("police-radar")}},
		// The API description names the site's URL: a --site-url change or
		// an upgrade is purged by kind at start, and a shop-docs purge
		// reaches it.
		{"/openapi.json", []string{"shop-docs"}},
		{"/.well-known/openapi.json", []string{"shop-docs"}},
		{"/.well-known/api-catalog", []string{"shop-docs"}},
		{"/llms.txt", []string{"shop-docs", product("police-radar")}}, // its example product,
		{"/catalog/products/nope", []string{"shop-miss"}},             // a product published purges it
	}
	for _, tt := range tests {
		path := base + tt.path
		if !strings.HasPrefix(tt.path, "/catalog") {
			path = tt.path
		}
		r := get(t, srv, path)
		// One header by default: Surrogate-Key (Fastly, Varnish).
		if sk := r.header.Get("Surrogate-Key"); sk != strings.Join(tt.want, " ") {
			t.Errorf("%s: Surrogate-Key %q, want %q", tt.path, sk, strings.Join(tt.want, " "))
		}
		if ct := r.header.Get("Cache-Tag"); ct != "" {
			t.Errorf("%s: Cache-Tag %q sent beside Surrogate-Key, unasked", tt.path, ct)
		}
	}

	type page struct {
		Next     uint64 `json:"next"`
		Complete bool   `json:"complete"`
		Changes  []struct {
			Seq  uint64   `json:"seq"`
			Tags []string `json:"tags"`
		} `json:"changes"`
	}
	changes := func(query string) (int, page) {
		t.Helper()
		w := httptest.NewRecorder()
		cache.ChangesHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/changes"+query, nil))
		var p page
		if w.Code == 200 {
			if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
				t.Fatalf("/changes%s: %v: %s", query, err, w.Body)
			}
		}
		return w.Code, p
	}
	// Without since: this run's changes (none yet) and the cursor, which
	// starts at the run's start time, above any earlier run's.
	_, p := changes("")
	if !p.Complete || len(p.Changes) != 0 || p.Next < uint64(time.Now().Add(-time.Hour).UnixMicro()) {
		t.Fatalf("before any change: %+v", p)
	}
	base := p.Next
	since := func(n uint64) string { return fmt.Sprintf("?since=%d", n) }

	cache.Invalidate() // what the poller calls when the shop changes
	_, p = changes(since(base))
	if !p.Complete || len(p.Changes) != 1 || p.Next != base+1 {
		t.Fatalf("after a change: %+v", p)
	}
	// A shop-wide change may alter any response, whichever replica filled
	// the edge with it: the kinds name them all, the pages this cache
	// held among them (TestShopWideChangePurgesEveryReplicasPages).
	if tags := p.Changes[0].Tags; !slices.Equal(tags, httpapi.NewTags("shop").Kinds()) {
		t.Errorf("change names %q, want the kinds", tags)
	}
	nKinds := len(httpapi.NewTags("shop").Kinds())
	if v := metric(t, reg, "catalogd_purge_tags_total", "kind"); v != float64(nKinds) {
		t.Errorf(`catalogd_purge_tags_total{kind="kind"} = %v, want %d`, v, nKinds)
	}
	// No response names a category: a series of them would stay 0.
	if got, want := kinds(t, reg, "catalogd_purge_tags_total"), []string{"kind", "product"}; !slices.Equal(got, want) {
		t.Errorf("catalogd_purge_tags_total's kinds %q, want %q", got, want)
	}

	if _, p := changes(since(base + 1)); !p.Complete || len(p.Changes) != 0 || p.Next != base+1 {
		t.Errorf("nothing new: %+v", p)
	}
	cache.Invalidate()
	if _, p := changes(since(base + 1)); len(p.Changes) != 1 || len(p.Changes[0].Tags) != nKinds {
		t.Errorf("second change: %+v", p)
	}
	for _, other := range []string{"?since=0", "?since=99", since(base - 1), since(base + 99)} {
		if _, p := changes(other); p.Complete {
			t.Errorf("%s, a cursor from another run (or none of this one's), said complete: %+v", other, p)
		}
	}
	// The same tags named again coalesce into the newest change: 300
	// changes are one, and a cursor from before them all is complete.
	for i := 0; i < 300; i++ {
		cache.Invalidate()
	}
	if _, p := changes(since(base + 1)); !p.Complete || len(p.Changes) != 1 || p.Changes[0].Seq != base+302 {
		t.Errorf("300 changes of the same tags: complete %v with %d changes, want true with one, the newest", p.Complete, len(p.Changes))
	}
	if code, _ := changes("?since=x"); code != http.StatusBadRequest {
		t.Errorf("since=x: %d, want 400", code)
	}

	// With the origin cache off, the same: every product page by its kind.
	off := httpapi.NewCache(httpapi.CacheConfig{})
	httpapi.NewServer(httpapi.Deps{Catalog: cat, Cache: off})
	off.Invalidate()
	w := httptest.NewRecorder()
	off.ChangesHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/changes", nil))
	if !strings.Contains(w.Body.String(), `"shop-product"`) {
		t.Errorf("cache off: the change does not purge every product page: %s", w.Body)
	}
}

// metric is the value of the counter with the kind label among reg's.
// kinds are the values of the kind label of the metric's series, sorted.
func kinds(t *testing.T, reg *prometheus.Registry, name string) []string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if mf.GetName() == name && l.GetName() == "kind" {
					out = append(out, l.GetValue())
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func metric(t *testing.T, reg *prometheus.Registry, name, kind string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if mf.GetName() == name && l.GetName() == "kind" && l.GetValue() == kind {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no %s{kind=%q}", name, kind)
	return 0
}

// defaultCacheControl is a 200's Cache-Control under DefaultFreshness when
// no sale date is near.
const defaultCacheControl = "public, max-age=600, s-maxage=600, stale-while-revalidate=60, stale-if-error=86400"

// The configured lifetimes are what a 200 says, all four 0 included (every
// cache must ask again); only leaving them unset gives the defaults.
func TestConfiguredLifetimes(t *testing.T) {
	db := openDB(t, loadShop(t), "wp_", 5*time.Second)
	tests := []struct {
		name string
		f    *httpapi.Freshness
		want string
	}{
		{"unset", nil, defaultCacheControl},
		{"all zero", &httpapi.Freshness{}, "public, max-age=0, s-maxage=0"},
		{"browsers only", &httpapi.Freshness{MaxAge: time.Minute}, "public, max-age=60, s-maxage=0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := catalog.New(db, catalog.Config{Now: func() time.Time { return now }})
			srv := httptest.NewServer(httpapi.NewServer(httpapi.Deps{Catalog: cat, SiteURL: siteURL, Freshness: tt.f,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
			t.Cleanup(srv.Close)
			if r := get(t, srv, base+"/catalog/products/police-radar"); r.header.Get("Cache-Control") != tt.want {
				t.Errorf("Cache-Control %q, want %q", r.header.Get("Cache-Control"), tt.want)
			}
		})
	}
}
