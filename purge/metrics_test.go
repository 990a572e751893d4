package purge

import (
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// gauge reads a gauge.
func gauge(t *testing.T, g prometheus.Gauge) float64 {
	t.Helper()
	var m dto.Metric
	if err := g.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetGauge().GetValue()
}

// catalogd_edge_purge_failing is what an alert on a failing target reads:
// 0 before the first purge, 1 from a refused round (a revoked token) until
// a round works again, 0 then. The overflow series is there at 0 from the
// start, so that an increase() over it counts the first overflow.
func TestFailingGauge(t *testing.T) {
	varnish := newStandIn(t, func(n int, _ recorded, w http.ResponseWriter) {
		if n == 0 {
			http.Error(w, "purge not allowed", http.StatusForbidden)
		}
	})
	v, _ := NewVarnish(varnish.URL, nil)
	reg := prometheus.NewRegistry()
	clock := newFakeClock()
	p, _ := run(t, clock, Options{Metrics: NewMetrics(reg)}, v)
	m := p.workers[0].m.m
	failing := m.failing.WithLabelValues(v.Name())
	if got := gauge(t, failing); got != 0 {
		t.Errorf("failing before any purge = %v, want 0", got)
	}
	if n := series(t, reg, "catalogd_edge_purge_kind_purges_total"); n != 1 {
		t.Errorf("kind purge series before any purge: %d, want the overflow's at 0", n)
	}

	p.Add([]string{"shop-product-1"}, clock.Now())
	step(t, clock, VarnishInterval)
	eventually(t, "the refused round counted", func() bool { return gauge(t, failing) == 1 })
	if s := p.Status()[0]; s.LastErr == "" {
		t.Errorf("the status has no error while the gauge says failing")
	}

	p.Add([]string{"shop-product-2"}, clock.Now())
	step(t, clock, clock.LastAsked()) // the pause after a refusal
	eventually(t, "the round that works counted", func() bool { return gauge(t, failing) == 0 })
	if n := varnish.count(); n != 2 {
		t.Errorf("%d purge requests, want the refused one and the one that worked", n)
	}
}
