package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"catalogd/api"
	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
	"catalogd/wpdb/poll"
)

// cached is a server with the origin cache on, over a shop in a throwaway
// database.
type cached struct {
	srv   *httptest.Server
	raw   *sql.DB
	db    *wpdb.DB
	cat   *catalog.Catalog
	cache *httpapi.Cache
}

func serveCached(t *testing.T, shop *wpfixture.Shop, clock func() time.Time) *cached {
	t.Helper()
	dsn, raw := testdb.Load(t, shop)
	db := openDB(t, dsn, "wp_", 2*time.Second)
	cat := catalog.New(db, catalog.Config{Now: clock})
	cache := newTestCache(clock)
	h := httpapi.NewServer(httpapi.Deps{Catalog: cat, SiteURL: siteURL, Cache: cache,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &cached{srv: srv, raw: raw, db: db, cat: cat, cache: cache}
}

// newTestCache is the default origin cache on clock: the catalog's and the
// cache's clock are one.
func newTestCache(clock func() time.Time) *httpapi.Cache {
	cfg := httpapi.DefaultCacheConfig
	cfg.Now = clock
	return httpapi.NewCache(cfg)
}

// watch keeps c's catalog in step with its database through the poll
// source until the test ends, dropping what each change touched from the
// cache, and returns once the first whole read is in: a change made after
// is one the poller sees.
func (c *cached) watch(t *testing.T, every time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	feed := poll.New(c.db, catalog.ShopReads, poll.Options{Interval: every,
		// Tests poll every few tens of milliseconds: the cheap rounds
		// alone would spend the default budget, and the product scan
		// would come seconds apart. Here it may use a whole core.
		Budget: 1})
	if err := feed.Start(ctx); err != nil {
		t.Fatal(err)
	}
	first := make(chan struct{})
	var once sync.Once
	go c.cat.Follow(ctx, feed, catalog.AppliedFunc(func(a catalog.Applied) {
		c.cache.Apply(a)
		once.Do(func() { close(first) })
	}))
	select {
	case <-first:
	case <-time.After(10 * time.Second):
		t.Fatal("no first whole read within 10s")
	}
}

func price(t *testing.T, r response) string {
	t.Helper()
	var p struct {
		Price  *string `json:"price"`
		OnSale bool    `json:"on_sale"`
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	if p.Price == nil {
		return "null"
	}
	return fmt.Sprintf("%s on_sale=%v", *p.Price, p.OnSale)
}

// A price edited the way WooCommerce's admin saves it (meta, the post's
// modified time, the product transient version) shows within one poll.
func TestPriceEditSeenWithinPollInterval(t *testing.T) {
	c := serveCached(t, newShop(), time.Now)
	c.watch(t, 100*time.Millisecond)

	path := base + "/catalog/products/police-radar"
	if r := get(t, c.srv, path); price(t, r) != "20.00 on_sale=false" || r.header.Get("X-Cache") != "MISS" {
		t.Fatalf("first: %s, %s", price(t, r), r.header.Get("X-Cache"))
	}
	if r := get(t, c.srv, path); r.header.Get("X-Cache") != "HIT" {
		t.Fatalf("second request not served from the cache: %s", r.header.Get("X-Cache"))
	}
	for _, q := range []string{
		`UPDATE wp_postmeta m JOIN wp_posts p ON p.ID = m.post_id SET m.meta_value = '17' WHERE p.post_name = 'police-radar' AND m.meta_key IN ('_price', '_regular_price')`,
		`UPDATE wp_posts SET post_modified = NOW(), post_modified_gmt = UTC_TIMESTAMP() + INTERVAL 1 SECOND WHERE post_name = 'police-radar'`,
		`INSERT INTO wp_options (option_name, option_value, autoload) VALUES ('_transient_product-transient-version', UNIX_TIMESTAMP(), 'yes') ON DUPLICATE KEY UPDATE option_value = UNIX_TIMESTAMP() + 1`,
	} {
		if _, err := c.raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		r := get(t, c.srv, path)
		if price(t, r) == "17.00 on_sale=false" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("edited price not served 3s after the edit: %s (%s)", price(t, r), r.header.Get("X-Cache"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// When the catalog cannot answer (its database gone, nothing loaded),
// cached copies keep serving, a cold key gets 503 with Retry-After, and
// everything recovers when it answers again. The failure comes from a fake:
// a catalog that loaded keeps answering from memory when the database goes.
func TestDatabaseOutage(t *testing.T) {
	svc := newFake()
	cache := newTestCache(func() time.Time { return now })
	srv := serveFake(t, svc, cache)
	warm := base + "/catalog/products"
	if r := get(t, srv, warm); r.status != http.StatusOK {
		t.Fatalf("warm-up: %d %s", r.status, r.body)
	}
	cache.Invalidate() // even an invalidated copy beats an error
	svc.failWith(errUnavailable())

	r := get(t, srv, warm)
	if r.status != http.StatusOK || r.header.Get("X-Cache") != "STALE" {
		t.Errorf("warm key during outage: %d %s, want 200 STALE", r.status, r.header.Get("X-Cache"))
	}
	// Its change was logged for purging: no cache downstream may keep it.
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("stale copy: Cache-Control %q, want no-store", cc)
	}
	cold := get(t, srv, base+"/catalog/categories")
	e := checkError(t, cold, http.StatusServiceUnavailable, "shop_unavailable")
	if cold.header.Get("Retry-After") == "" || e.Data.Hint == "" {
		t.Errorf("503 without Retry-After or hint: %v", cold.header)
	}
	for _, leak := range []string{"dial", "tcp", "127.0.0.1", "connection", "sql"} {
		if strings.Contains(strings.ToLower(string(cold.body)), leak) {
			t.Errorf("503 body leaks %q: %s", leak, cold.body)
		}
	}

	// No error was cached: both keys answer fresh at once.
	svc.heal()
	if r := get(t, srv, base+"/catalog/categories"); r.status != http.StatusOK {
		t.Errorf("cold key after recovery: %d %s", r.status, r.body)
	}
	if r := get(t, srv, warm); r.status != http.StatusOK || r.header.Get("X-Cache") != "MISS" ||
		r.header.Get("Cache-Control") == "no-store" {
		t.Errorf("warm key after recovery: %d %s, Cache-Control %q, want 200 MISS and storable",
			r.status, r.header.Get("X-Cache"), r.header.Get("Cache-Control"))
	}
}

// countingCatalog counts the product lists a catalog is asked for.
type countingCatalog struct {
	catalog.Service
	lists atomic.Int64
}

func (c *countingCatalog) Products(ctx context.Context, q api.ListQuery) (*catalog.ProductList, error) {
	c.lists.Add(1)
	return c.Service.Products(ctx, q)
}

// A hundred concurrent identical cold requests ask the catalog once: those
// that miss share one fill, those after it hit.
func TestConcurrentMissesOneFill(t *testing.T) {
	clock := func() time.Time { return now }
	dsn, _ := testdb.Load(t, newShop())
	cat := &countingCatalog{Service: catalog.New(openDB(t, dsn, "wp_", 2*time.Second), catalog.Config{Now: clock})}
	srv := serveFake(t, cat, newTestCache(clock))
	path := base + "/catalog/products?per_page=3&page=2"

	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			resp, err := srv.Client().Get(srv.URL + path)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("status %d", resp.StatusCode)
			}
		}()
	}
	close(start)
	wg.Wait()
	if n := cat.lists.Load(); n != 1 {
		t.Errorf("100 concurrent requests for one page asked the catalog %d times, want once", n)
	}
}

func TestETagAndGzip(t *testing.T) {
	c := serveCached(t, newShop(), func() time.Time { return now })
	path := base + "/catalog/products"
	plain := do(t, c.srv, http.MethodGet, path, map[string]string{"Accept-Encoding": "identity"})
	etag := plain.header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || plain.header.Get("Content-Encoding") != "" {
		t.Fatalf("plain: ETag %q, Content-Encoding %q", etag, plain.header.Get("Content-Encoding"))
	}
	if plain.header.Get("Vary") != "Accept-Encoding" {
		t.Errorf("Vary = %q", plain.header.Get("Vary"))
	}

	nm := do(t, c.srv, http.MethodGet, path, map[string]string{"If-None-Match": etag})
	if nm.status != http.StatusNotModified || len(nm.body) != 0 {
		t.Errorf("If-None-Match: %d with %d bytes, want 304 and none", nm.status, len(nm.body))
	}
	// The rate-limit and common headers come on a 304 too (Go's server
	// drops Content-Type there, as RFC 9110 §15.4.5 allows).
	for _, h := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "X-RateLimit-Remaining",
		"Access-Control-Allow-Origin", "X-Content-Type-Options", "Link", "Vary"} {
		if nm.header.Get(h) == "" {
			t.Errorf("304 lacks %s", h)
		}
	}
	if nm.header.Get("ETag") == "" || nm.header.Get("Cache-Control") != plain.header.Get("Cache-Control") ||
		nm.header.Get("Last-Modified") != plain.header.Get("Last-Modified") {
		t.Errorf("304 lacks ETag or Cache-Control: %v", nm.header)
	}
	if r := do(t, c.srv, http.MethodGet, path, map[string]string{"If-None-Match": `"other"`}); r.status != http.StatusOK {
		t.Errorf("a different ETag: %d, want 200", r.status)
	}

	gz := do(t, c.srv, http.MethodGet, path, map[string]string{"Accept-Encoding": "gzip"})
	if gz.header.Get("Content-Encoding") != "gzip" || gz.header.Get("ETag") == etag {
		t.Fatalf("gzip: Content-Encoding %q, ETag %q (plain %q)", gz.header.Get("Content-Encoding"), gz.header.Get("ETag"), etag)
	}
	zr, err := gzip.NewReader(strings.NewReader(string(gz.body)))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil || string(unzipped) != string(plain.body) {
		t.Errorf("gzip body does not unzip to the plain body (%v)", err)
	}
	if r := do(t, c.srv, http.MethodGet, path, map[string]string{"Accept-Encoding": "gzip;q=0"}); r.header.Get("Content-Encoding") != "" {
		t.Error("gzip;q=0 still got gzip")
	}
	if r := do(t, c.srv, http.MethodGet, path, map[string]string{"Accept-Encoding": "gzip",
		"If-None-Match": gz.header.Get("ETag")}); r.status != http.StatusNotModified {
		t.Errorf("If-None-Match with the gzip ETag: %d", r.status)
	}
}

// A cached response expires at the next sale start among its products,
// with no edit at all. The catalog's and the cache's clock is moved past
// the start, not waited for.
func TestCachedResponseExpiresAtSaleStart(t *testing.T) {
	var clock atomic.Int64 // Unix nanoseconds
	clock.Store(now.UnixNano())
	s := newShop()
	start := now.Add(time.Minute) // well within the cache's ten minutes
	s.Add(wpfixture.Product{Title: "Flash Sale", RegularPrice: "10", SalePrice: "5", SaleFrom: start})
	c := serveCached(t, s, func() time.Time { return time.Unix(0, clock.Load()).UTC() })
	path := base + "/catalog/products/flash-sale"
	if got := price(t, get(t, c.srv, path)); got != "10.00 on_sale=false" {
		t.Fatalf("before the sale: %s", got)
	}
	if r := get(t, c.srv, path); r.header.Get("X-Cache") != "HIT" {
		t.Fatalf("not cached before the sale: %s", r.header.Get("X-Cache"))
	}
	clock.Store(start.Add(100 * time.Millisecond).UnixNano())
	// _price still holds the regular price (the sale job has not run):
	// on_sale flips by the clock, as on the storefront.
	if got := price(t, get(t, c.srv, path)); got != "10.00 on_sale=true" {
		t.Errorf("after the sale start: %s, want on_sale=true", got)
	}
}

func TestCacheBoundedByBytes(t *testing.T) {
	cache := httpapi.NewCache(httpapi.CacheConfig{TTL: time.Minute, MaxEntries: 1000, MaxBytes: 64 << 10})
	c := serveCached(t, newShop(), func() time.Time { return now })
	h := httpapi.NewServer(httpapi.Deps{Catalog: c.cat, SiteURL: siteURL, Cache: cache,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	for i := 0; i < 200; i++ {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, fmt.Sprintf("%s/catalog/products/no-such-%d", base, i), nil))
		if rec.Code != http.StatusNotFound {
			t.Fatalf("status %d", rec.Code)
		}
	}
	if cache.Bytes() > 64<<10 || cache.Len() == 0 || cache.Len() >= 200 {
		t.Errorf("cache holds %d entries in %d bytes; want some, within 65536 bytes", cache.Len(), cache.Bytes())
	}
}

// Spelling a number differently, or adding a parameter an operation does
// not read, is no new cache entry: the answer is the same, so is the key.
// Otherwise anyone could make every request a miss (a database round and
// an eviction) with page=01, page=001, …
func TestCacheKeyIgnoresSpelling(t *testing.T) {
	c := serveCached(t, newShop(), func() time.Time { return now })
	products := base + "/catalog/products"
	for _, group := range [][]string{
		{products + "?page=2&per_page=1", products + "?page=02&per_page=1", products + "?page=0000002&per_page=01",
			products + "?per_page=001&page=%302", products + "?page=2&per_page=1&utm_source=x",
			"/?rest_route=/shop/v1/catalog/products&page=02&per_page=1", "/index.php" + products + "?page=2&per_page=01"},
		{products + "?page=0", products + "?page=00", products + "?page=-1", products + "?page=x",
			products + "?page=99999999999999999999999", products + "?page=1.0"},
		{products + "?per_page=51", products + "?per_page=051", products + "?per_page=0", products + "?per_page=+5"},
		{products + "?page=1&page=2", products + "?page=01&page=3"},
		{products + "?framework=ESX", products + "?framework=nope", products + "?framework="},
		{base + "/catalog", base + "/catalog?page=2", base + "/catalog?per_page=007&category=x"},
		{base + "/catalog/products/police-radar", base + "/catalog/products/police-radar?page=3"},
	} {
		first := get(t, c.srv, group[0])
		for _, other := range group[1:] {
			r := get(t, c.srv, other)
			if r.header.Get("X-Cache") != "HIT" || r.status != first.status || string(r.body) != string(first.body) {
				t.Errorf("%s after %s: %d %s, want the same answer (%d) from the cache",
					other, group[0], r.status, r.header.Get("X-Cache"), first.status)
			}
		}
	}
	// Requests that differ in meaning never share an entry.
	for _, pair := range [][2]string{{products + "?page=2", products + "?page=3"},
		{products + "?page=1&page=2", products + "?page=1"}, {products + "?page=0", products + "?per_page=0"},
		{products + "?category=jobs", products + "?category=vehicles"},
		{"/?rest_route=/shop/v1/catalog", "/?rest_route=/shop/v1/catalog/categories"}} {
		a, b := get(t, c.srv, pair[0]), get(t, c.srv, pair[1])
		if string(a.body) == string(b.body) {
			t.Errorf("%s and %s answer the same: %s", pair[0], pair[1], a.body)
		}
	}
}

// randomText is n bytes of text that compresses as badly as the inline
// images (data: URIs) shops paste into descriptions.
func randomText(n int) string {
	b := make([]byte, n*3/4)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return base64.StdEncoding.EncodeToString(b)
}

// A large response is cached while it fits the per-entry bound, and its
// gzip copy is made only once a client takes gzip; a response over the
// bound is answered from the database and plain, so that no request makes
// the server compress megabytes again and again.
func TestLargeResponses(t *testing.T) {
	s := newShop()
	s.Add(wpfixture.Product{Title: "Big Manual", RegularPrice: "1", Content: "<p>" + randomText(700<<10) + "</p>"})
	s.Add(wpfixture.Product{Title: "Huge Manual", RegularPrice: "1", Content: "<p>" + randomText(1500<<10) + "</p>"})
	c := serveCached(t, s, func() time.Time { return now })
	cache := httpapi.NewCache(httpapi.CacheConfig{TTL: time.Minute, MaxEntries: 100, MaxBytes: 4 << 20}) // 1 MiB per entry
	srv := httptest.NewServer(httpapi.NewServer(httpapi.Deps{Catalog: c.cat, SiteURL: siteURL, Cache: cache,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	plain := map[string]string{"Accept-Encoding": "identity"}
	gz := map[string]string{"Accept-Encoding": "gzip"}

	path := base + "/catalog/products/big-manual"
	first := do(t, srv, http.MethodGet, path, plain)
	if first.status != http.StatusOK || first.header.Get("X-Cache") != "MISS" {
		t.Fatalf("first: %d %s", first.status, first.header.Get("X-Cache"))
	}
	if r := do(t, srv, http.MethodGet, path, plain); r.header.Get("X-Cache") != "HIT" {
		t.Errorf("a %d KiB response within the bound is not cached: %s", len(first.body)>>10, r.header.Get("X-Cache"))
	}
	if held := cache.Bytes(); held > int64(len(first.body))*11/10 {
		t.Errorf("after plain requests only the cache holds %d bytes for a %d-byte body: a gzip copy nobody asked for",
			held, len(first.body))
	}
	r := do(t, srv, http.MethodGet, path, gz)
	if r.header.Get("X-Cache") != "HIT" || r.header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip request: %s, Content-Encoding %q", r.header.Get("X-Cache"), r.header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if unzipped, err := io.ReadAll(zr); err != nil || !bytes.Equal(unzipped, first.body) {
		t.Errorf("the gzip copy does not unzip to the body (%v)", err)
	}

	huge := base + "/catalog/products/huge-manual"
	for i := 0; i < 2; i++ {
		r := do(t, srv, http.MethodGet, huge, gz)
		if r.status != http.StatusOK || r.header.Get("X-Cache") != "MISS" || r.header.Get("Content-Encoding") != "" {
			t.Errorf("over the bound, request %d: %d %s, Content-Encoding %q; want 200 MISS, plain",
				i+1, r.status, r.header.Get("X-Cache"), r.header.Get("Content-Encoding"))
		}
	}
}

// With the cache off, a response is served from the pool's buffers and
// they go back once it is out: under concurrent requests for several
// pages, alike and not, plain and gzip, every client still gets its own
// page's bytes whole (a buffer given back early would be written over by
// the next request's body), and a page shared by a flight is the same
// for every waiter.
func TestCacheOffServesOwnBytes(t *testing.T) {
	clock := func() time.Time { return now }
	dsn, _ := testdb.Load(t, newShop())
	cat := catalog.New(openDB(t, dsn, "wp_", 2*time.Second), catalog.Config{Now: clock})
	cfg := httpapi.DefaultCacheConfig
	cfg.Now, cfg.TTL = clock, 0
	srv := serveFake(t, cat, httpapi.NewCache(cfg))
	paths := []string{base + "/catalog/products?per_page=1&page=1", base + "/catalog/products?per_page=2&page=2",
		base + "/catalog/products?per_page=50", base + "/catalog/categories", base + "/catalog",
		base + "/catalog/products?category=no-such-category"}
	plain := map[string][]byte{}
	for _, p := range paths {
		r := do(t, srv, http.MethodGet, p, map[string]string{"Accept-Encoding": "identity"})
		if r.header.Get("X-Cache") != "MISS" {
			t.Fatalf("%s: X-Cache %q with the cache off, want MISS", p, r.header.Get("X-Cache"))
		}
		plain[p] = r.body
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 40 {
				p := paths[(i+j)%len(paths)]
				gz := (i+j)%2 == 0
				enc := map[string]string{"Accept-Encoding": "identity"}
				if gz {
					enc["Accept-Encoding"] = "gzip"
				}
				r := do(t, srv, http.MethodGet, p, enc)
				body := r.body
				if r.header.Get("Content-Encoding") == "gzip" {
					zr, err := gzip.NewReader(bytes.NewReader(r.body))
					if err != nil {
						t.Errorf("%s: %v", p, err)
						return
					}
					if body, err = io.ReadAll(zr); err != nil {
						t.Errorf("%s: gzip body: %v", p, err)
						return
					}
				}
				if !bytes.Equal(body, plain[p]) {
					t.Errorf("%s (gzip %v): %d bytes unlike the page's %d", p, gz, len(body), len(plain[p]))
					return
				}
			}
		})
	}
	wg.Wait()
}
