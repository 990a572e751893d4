package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the public server's Prometheus series.
type Metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	// Resolved series, by route and status: the hit path looks them up
	// without hashing label values every time.
	counters sync.Map // routeStatus → prometheus.Counter
	timers   sync.Map // route → prometheus.Observer
}

type routeStatus struct {
	route  string
	status int
}

// NewMetrics registers the request and cache series on reg. The cache's
// series read c when scraped.
func NewMetrics(reg prometheus.Registerer, c *Cache) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "catalogd_http_requests_total", Help: "Requests answered, by route and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "catalogd_http_request_duration_seconds", Help: "Time to answer a request, by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route"}),
	}
	reg.MustRegister(m.requests, m.latency)
	if c != nil {
		counter := func(name, help string, f func() int64) {
			reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
				func() float64 { return float64(f()) }))
		}
		counter("catalogd_cache_hits_total", "Responses served fresh from the origin cache.", c.stats.hits.Load)
		counter("catalogd_cache_misses_total", "Requests the origin cache could not answer fresh.", c.stats.misses.Load)
		counter("catalogd_cache_evictions_total", "Responses pushed out of the origin cache by its bounds.", c.stats.evictions.Load)
		counter("catalogd_cache_stale_served_total", "Stale copies served because the database failed.", c.stats.stale.Load)
		counter("catalogd_cache_invalidations_total", "Times a change in the shop cleared the cache.", func() int64 { return int64(c.gen.Load()) })
		for kind, f := range map[string]func() int64{"product": c.changes.products.Load,
			"category": c.changes.categories.Load, "kind": c.changes.kinds.Load} {
			reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "catalogd_purge_tags_total",
				Help:        "Purge tags named by the changes catalogd saw (see /changes on the admin listener), by kind of tag.",
				ConstLabels: prometheus.Labels{"kind": kind}}, func() float64 { return float64(f()) }))
		}
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "catalogd_cache_bytes", Help: "Bytes the origin cache's responses hold (bodies, gzip copies, headers, keys, bookkeeping).",
		}, func() float64 { return float64(c.Bytes()) }))
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "catalogd_cache_entries", Help: "Responses held by the origin cache.",
		}, func() float64 { return float64(c.Len()) }))
	}
	return m
}

func (m *Metrics) observe(route string, status int, d time.Duration) {
	if m == nil {
		return
	}
	key := routeStatus{route, status}
	c, ok := m.counters.Load(key)
	if !ok {
		c, _ = m.counters.LoadOrStore(key, m.requests.WithLabelValues(route, strconv.Itoa(status)))
	}
	c.(prometheus.Counter).Inc()
	o, ok := m.timers.Load(route)
	if !ok {
		o, _ = m.timers.LoadOrStore(route, m.latency.WithLabelValues(route))
	}
	o.(prometheus.Observer).Observe(d.Seconds())
}

// routeOf names the operation a path belongs to, for labels that stay few.
func (s *server) routeOf(path string) string {
	rest, ok := strings.CutPrefix(path, s.base)
	switch {
	case !ok:
		return "other"
	case rest == "/catalog":
		return "getCatalogIndex"
	case rest == "/catalog/categories":
		return "listCategories"
	case rest == "/catalog/products":
		return "listProducts"
	case strings.HasPrefix(rest, "/catalog/products/") && !strings.Contains(rest[len("/catalog/products/"):], "/"):
		return "getProduct"
	}
	return "noRoute"
}

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}
