package httpapi

import (
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
	routes []routeSeries // by routeID
	others sync.Map      // routeStatus → prometheus.Counter, for the statuses outside commonStatuses
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
		routes: make([]routeSeries, len(routeNames)),
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
		// No response names a category (see tags.go): there is no
		// category series to stay 0.
		for kind, f := range map[string]func() int64{"product": c.changes.products.Load, "kind": c.changes.kinds.Load} {
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

// routeID is a route label: an operation of the route table, or one of the
// two labels of requests no operation serves. The labels stay few.
type routeID int

const (
	routeOther     routeID = iota // outside the API's base path
	routeNone                     // under it, on no operation's path
	firstOperation                // the route table's first; the others follow in its order
)

// routeNames are the route label values: the operations' names (their
// operationId) as the route table gives them, after "other" and "noRoute".
var routeNames = func() []string {
	names := []string{routeOther: "other", routeNone: "noRoute"}
	for _, rt := range (&server{}).routes() { // only the names are read
		names = append(names, rt.name)
	}
	return names
}()

// routeOf names the operation whose path template, in the route table, a
// request's path matches, as the router would. It runs on every request,
// and a cache hit never reaches the router (whose matching walks regexps
// and allocates), so the templates are matched here.
func (s *server) routeOf(path string) routeID {
	rest, ok := strings.CutPrefix(path, s.base)
	if !ok {
		return routeOther
	}
	for i := range s.paths {
		if s.paths[i].matches(rest) {
			return firstOperation + routeID(i)
		}
	}
	return routeNone
}

// pathTemplate is a route's path template, split at its first variable:
// the literal part is compared whole, the rest segment by segment.
type pathTemplate struct {
	literal string // up to the first "{"
	rest    string // from it; "" when the template has no variable
}

// pathTemplates are the templates of the routes, in their order.
func pathTemplates(routes []route) []pathTemplate {
	out := make([]pathTemplate, len(routes))
	for i, rt := range routes {
		if j := strings.IndexByte(rt.path, '{'); j >= 0 {
			out[i] = pathTemplate{literal: rt.path[:j], rest: rt.path[j:]}
		} else {
			out[i] = pathTemplate{literal: rt.path}
		}
	}
	return out
}

// matches reports whether path has the template's segments, a "{name}"
// standing for any non-empty segment, as the router reads it.
func (t *pathTemplate) matches(path string) bool {
	if t.rest == "" {
		return path == t.literal
	}
	path, ok := strings.CutPrefix(path, t.literal)
	if !ok {
		return false
	}
	template := t.rest
	for {
		ts, tRest, tMore := strings.Cut(template, "/")
		ps, pRest, pMore := strings.Cut(path, "/")
		if tMore != pMore || ts != ps && (!strings.HasPrefix(ts, "{") || ps == "") {
			return false
		}
		if !tMore {
			return true
		}
		template, path = tRest, pRest
	}
}
