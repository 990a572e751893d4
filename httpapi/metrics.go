package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the public server's Prometheus series.
type Metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	// The series each route has answered, resolved at their first use and
	// then read by index: the hit path hashes no label values and takes no
	// lock. A series is only made when first used, so /metrics lists what
	// was answered, as the vectors alone would.
	routes [numRoutes]routeSeries
	others sync.Map // routeStatus → prometheus.Counter, for the statuses outside commonStatuses
}

// routeSeries are one route's resolved series.
type routeSeries struct {
	latency  atomic.Pointer[prometheus.Observer]
	byStatus [len(commonStatuses)]atomic.Pointer[prometheus.Counter]
}

// commonStatuses are the statuses the API answers, whose series are kept by
// index.
var commonStatuses = [...]int{200, 204, 304, 400, 404, 405, 429, 500, 503}

// statusSlot is the index of status in commonStatuses, or -1.
func statusSlot(status int) int {
	for i, s := range commonStatuses {
		if s == status {
			return i
		}
	}
	return -1
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

func (m *Metrics) observe(route routeID, status int, d time.Duration) {
	if m == nil {
		return
	}
	rs := &m.routes[route]
	if i := statusSlot(status); i >= 0 {
		c := rs.byStatus[i].Load()
		if c == nil {
			// Two first requests may both resolve it: WithLabelValues gives
			// both the same series.
			r := m.requests.WithLabelValues(routeNames[route], strconv.Itoa(status))
			c = &r
			rs.byStatus[i].Store(c)
		}
		(*c).Inc()
	} else {
		key := routeStatus{routeNames[route], status}
		c, ok := m.others.Load(key)
		if !ok {
			c, _ = m.others.LoadOrStore(key, m.requests.WithLabelValues(routeNames[route], strconv.Itoa(status)))
		}
		c.(prometheus.Counter).Inc()
	}
	o := rs.latency.Load()
	if o == nil {
		r := m.latency.WithLabelValues(routeNames[route])
		o = &r
		rs.latency.Store(o)
	}
	(*o).Observe(d.Seconds())
}

// routeID is an operation, for labels that stay few.
type routeID int

const (
	routeOther routeID = iota
	routeIndex
	routeCategories
	routeProducts
	routeProduct
	routeNone
	numRoutes
)

// routeNames are the route label values.
var routeNames = [numRoutes]string{routeOther: "other", routeIndex: "getCatalogIndex",
	routeCategories: "listCategories", routeProducts: "listProducts", routeProduct: "getProduct", routeNone: "noRoute"}

// routeOf names the operation a path belongs to.
func (s *server) routeOf(path string) routeID {
	rest, ok := strings.CutPrefix(path, s.base)
	switch {
	case !ok:
		return routeOther
	case rest == "/catalog":
		return routeIndex
	case rest == "/catalog/categories":
		return routeCategories
	case rest == "/catalog/products":
		return routeProducts
	case strings.HasPrefix(rest, "/catalog/products/") && !strings.Contains(rest[len("/catalog/products/"):], "/"):
		return routeProduct
	}
	return routeNone
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
