package httpapi_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"catalogd/catalog"
	"catalogd/httpapi"
)

// discard is a ResponseWriter that keeps nothing, so the benchmark measures
// the server, not a recorder.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkCachedHit is the hit path: a product list page served from the
// origin cache, gzipped, with every header, with the access log off and on
// (text lines to nowhere, as in production minus the output), and on
// through the slog handler, the fallback when Deps has no AccessLines. Its
// allocs/op is the figure the cache is judged by. The "fresh-header" run
// hands each request a new header map, as net/http does: what it adds is
// the map growing to the response's two dozen fields, net/http's cost of
// carrying them, which a handler cannot size ahead.
func BenchmarkCachedHit(b *testing.B) {
	dsn := loadShop(b)
	db := openDB(b, dsn, "wp_", 5*time.Second)
	cat := catalog.New(db, catalog.Config{Now: func() time.Time { return now }})
	for _, mode := range []string{"off", "on", "slog", "on-fresh-header"} {
		b.Run("access-log-"+mode, func(b *testing.B) {
			cache := httpapi.NewCache(httpapi.DefaultCacheConfig)
			d := httpapi.Deps{Catalog: cat, SiteURL: siteURL, Cache: cache,
				Metrics:   httpapi.NewMetrics(prometheus.NewRegistry(), cache),
				Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
				AccessLog: mode != "off"}
			if mode == "on" || mode == "on-fresh-header" {
				d.AccessLines = httpapi.NewAccessLog(io.Discard, httpapi.AccessLogOptions{})
			}
			h := httpapi.NewServer(d)
			req := httptest.NewRequest(http.MethodGet, base+"/catalog/products?per_page=20", nil)
			req.Header.Set("Accept-Encoding", "gzip")
			w := &discard{h: http.Header{}}
			h.ServeHTTP(w, req) // warm
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if mode == "on-fresh-header" {
					w.h = http.Header{}
				} else {
					clear(w.h)
				}
				h.ServeHTTP(w, req)
			}
			if w.h.Get("X-Cache") != "HIT" {
				b.Fatalf("not a hit: %v", w.h)
			}
		})
	}
}

// BenchmarkMiss is a miss: the list page computed from the snapshot and
// gzipped, with the origin cache off (every first request pays this). Its
// B/op is what drives the collector on a server answering misses, which
// at 100 000 products is what its tail latency follows.
func BenchmarkMiss(b *testing.B) {
	dsn := loadShop(b)
	db := openDB(b, dsn, "wp_", 5*time.Second)
	cat := catalog.New(db, catalog.Config{Now: func() time.Time { return now }})
	cfg := httpapi.DefaultCacheConfig
	cfg.TTL = 0
	cache := httpapi.NewCache(cfg)
	h := httpapi.NewServer(httpapi.Deps{Catalog: cat, SiteURL: siteURL, Cache: cache,
		Metrics: httpapi.NewMetrics(prometheus.NewRegistry(), cache),
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil))})
	req := httptest.NewRequest(http.MethodGet, base+"/catalog/products?per_page=20", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	w := &discard{h: http.Header{}}
	h.ServeHTTP(w, req) // the first snapshot
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
	if w.h.Get("X-Cache") == "HIT" || w.h.Get("Content-Encoding") != "gzip" {
		b.Fatalf("not a gzipped miss: %v", w.h)
	}
}
