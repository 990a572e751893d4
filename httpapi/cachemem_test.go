package httpapi

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fillCache sends n requests for distinct keys through the cache, each
// answered like a handler of the API answers (JSON of varied size, the
// same headers), half of them asking for gzip as browsers and most clients
// do, and returns the cache.
func fillCache(t testing.TB, cfg CacheConfig, n int) *Cache {
	t.Helper()
	c := NewCache(cfg)
	words := strings.Fields("police radar dispatch system vehicle shop esx qbcore qbox standalone jobs " +
		"the a of for with and ui hud banking emergency services fire department price currency")
	rng := rand.New(rand.NewPCG(1, 2))
	h := c.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString(`{"products":[`)
		for size := 200 + rng.IntN(3000); b.Len() < size; {
			fmt.Fprintf(&b, `{"slug":"%s-%d","name":"%s %s","price":"%d.00"},`,
				words[rng.IntN(len(words))], rng.IntN(1e6), words[rng.IntN(len(words))], words[rng.IntN(len(words))], rng.IntN(100))
		}
		b.WriteString(`{}]}`)
		hd := w.Header()
		hd.Set("Content-Type", "application/json; charset=UTF-8")
		hd.Set("Content-Length", strconv.Itoa(b.Len()))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(b.String()))
	}), apiKey("/wp-json/shop/v1/catalog/products"), newCacheControl(DefaultFreshness))
	for i := 0; i < n; i++ {
		r := httptest.NewRequest(http.MethodGet, fmt.Sprintf("/wp-json/shop/v1/catalog/products?page=%d&per_page=20", i+1), nil)
		if i%2 == 0 {
			r.Header.Set("Accept-Encoding", "gzip, deflate, br")
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	return c
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The bytes the cache counts are the memory it holds: 10 000 entries grow
// the heap by at most a quarter more than Bytes() says, so --cache-max-mb
// bounds what the process keeps.
func TestCacheAccountsItsMemory(t *testing.T) {
	before := heapInUse()
	c := fillCache(t, CacheConfig{TTL: time.Hour, MaxEntries: 10_000, MaxBytes: 1 << 30}, 10_000)
	grown := int64(heapInUse()) - int64(before)
	accounted := c.Bytes()
	t.Logf("%d entries: heap grew %.1f MiB, accounted %.1f MiB (ratio %.2f)",
		c.Len(), float64(grown)/(1<<20), float64(accounted)/(1<<20), float64(grown)/float64(accounted))
	if c.Len() != 10_000 {
		t.Fatalf("cache holds %d entries, want 10000", c.Len())
	}
	if float64(grown) > 1.25*float64(accounted) {
		t.Errorf("the heap grew %d bytes for %d accounted: the cache's bound is off by more than 25%%", grown, accounted)
	}
	if float64(accounted) > 1.25*float64(grown) {
		t.Errorf("accounted %d bytes for a heap growth of %d: the cache keeps less than its bound allows", accounted, grown)
	}
	runtime.KeepAlive(c)
}

// The case: an 11 MB answer at the default settings is built once,
// then served from the cache, gzipped once for the clients that take gzip.
func TestElevenMegabyteResponseCached(t *testing.T) {
	c := NewCache(DefaultCacheConfig)
	body := make([]byte, 11<<20)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range body {
		body[i] = "abcdefghijklmnopqrstuvwxyz ,.:{}\""[rng.IntN(33)]
	}
	built := 0
	h := c.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		built++
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_, _ = w.Write(body)
	}), pathKey, newCacheControl(DefaultFreshness))
	for i := 0; i < 4; i++ {
		r := httptest.NewRequest(http.MethodGet, "/wp-json/shop/v1/catalog/products/manual", nil)
		r.Header.Set("Accept-Encoding", "gzip")
		w := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(w, r)
		t.Logf("request %d: %s, %s, %d bytes gzipped, %s", i+1, w.Header().Get("X-Cache"),
			w.Header().Get("Content-Encoding"), w.Body.Len(), time.Since(start).Round(time.Millisecond))
		if w.Header().Get("Content-Encoding") != "gzip" {
			t.Errorf("request %d not gzipped", i+1)
		}
	}
	if built != 1 {
		t.Errorf("the 11 MB response was built %d times for 4 requests, want once", built)
	}
}
