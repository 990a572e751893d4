package purge

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the purger's, by target.
type Metrics struct {
	requests, tags, failures *prometheus.CounterVec
	kinds                    *prometheus.CounterVec
	lag                      *prometheus.HistogramVec
	pending, failing, pace   *prometheus.GaugeVec
}

// NewMetrics registers the purger's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "catalogd_edge_purge_requests_total",
			Help: "Purge requests sent to an edge cache, by target."}, []string{"target"}),
		tags: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "catalogd_edge_purge_tags_total",
			Help: "Purge tags sent to an edge cache (in requests acknowledged or not), by target."}, []string{"target"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "catalogd_edge_purge_failures_total",
			Help: "Purge requests that failed (no answer, or an answer other than success), by target."}, []string{"target"}),
		kinds: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "catalogd_edge_purge_kind_purges_total",
			Help: "Purges of every response by its kind tag, by target and why: start (what changed while catalogd was down is unknown), resync (the change feed lost its place), overflow (too many tags waiting)."},
			[]string{"target", "why"}),
		lag: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "catalogd_edge_purge_lag_seconds",
			Help:    "Time from a change applied in catalogd to its purge acknowledged by the edge cache, by target.",
			Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}}, []string{"target"}),
		pending: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "catalogd_edge_purge_pending_tags",
			Help: "Purge tags waiting to be sent, by target."}, []string{"target"}),
		failing: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "catalogd_edge_purge_failing",
			Help: "1 while a target's last purge round failed (as /readyz says \"failing\"), 0 once one works again, by target."},
			[]string{"target"}),
	}
	m.pace = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "catalogd_edge_purge_pace_seconds",
		Help: "The least time between two purge requests to a target: its interval, or longer as its rate limit answers (429, Retry-After, quota headers) taught, by target."},
		[]string{"target"})
	reg.MustRegister(m.requests, m.tags, m.failures, m.kinds, m.lag, m.pending, m.failing, m.pace)
	return m
}

// targetMetrics are one target's; a nil one counts nothing.
type targetMetrics struct {
	m    *Metrics
	name string
}

func (m *Metrics) target(name string) *targetMetrics {
	// Every series exists from the start, at zero: a dashboard sees the
	// target before its first purge, and an alert's increase() counts the
	// first overflow (a series born at 1 has no increase to show).
	m.requests.WithLabelValues(name)
	m.tags.WithLabelValues(name)
	m.failures.WithLabelValues(name)
	m.pending.WithLabelValues(name)
	m.failing.WithLabelValues(name)
	m.kinds.WithLabelValues(name, whyOverflow)
	m.pace.WithLabelValues(name)
	return &targetMetrics{m: m, name: name}
}

func (t *targetMetrics) request(tags int, err error) {
	if t == nil {
		return
	}
	t.m.requests.WithLabelValues(t.name).Inc()
	t.m.tags.WithLabelValues(t.name).Add(float64(tags))
	if err != nil {
		t.m.failures.WithLabelValues(t.name).Inc()
	}
}

// roundDone says whether the target's last round failed.
func (t *targetMetrics) roundDone(failed bool) {
	if t == nil {
		return
	}
	v := 0.0
	if failed {
		v = 1
	}
	t.m.failing.WithLabelValues(t.name).Set(v)
}

func (t *targetMetrics) kindPurge(why string) {
	if t == nil {
		return
	}
	t.m.kinds.WithLabelValues(t.name, why).Inc()
}

func (t *targetMetrics) lagObserve(d time.Duration) {
	if t == nil {
		return
	}
	t.m.lag.WithLabelValues(t.name).Observe(d.Seconds())
}

func (t *targetMetrics) pendingSet(n int) {
	if t == nil {
		return
	}
	t.m.pending.WithLabelValues(t.name).Set(float64(n))
}

func (t *targetMetrics) paceSet(d time.Duration) {
	if t == nil {
		return
	}
	t.m.pace.WithLabelValues(t.name).Set(d.Seconds())
}
