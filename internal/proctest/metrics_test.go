package proctest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Scrape sums each series over its labels and gives histograms their
// _count and _sum, as the process tests read them.
func TestScrape(t *testing.T) {
	reg := prometheus.NewRegistry()
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "requests_total"}, []string{"route"})
	entries := prometheus.NewGauge(prometheus.GaugeOpts{Name: "entries"})
	latency := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "latency_seconds"})
	reg.MustRegister(requests, entries, latency)
	requests.WithLabelValues("a").Add(2)
	requests.WithLabelValues("b").Add(3)
	entries.Set(7)
	latency.Observe(0.5)
	latency.Observe(1.5)
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()

	m, err := Scrape(srv.Client(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{"requests_total": 5, "entries": 7, "latency_seconds_count": 2,
		"latency_seconds_sum": 2} {
		if got, ok := m[name]; !ok || got != want {
			t.Errorf("%s = %v (found %v), want %v", name, got, ok, want)
		}
	}
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	if _, err := Scrape(notFound.Client(), notFound.URL); err == nil {
		t.Error("a 404 scraped without an error")
	}
}
