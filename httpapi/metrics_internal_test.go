package httpapi

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Requests are counted by route and status, the common statuses (kept by
// index) and the rare ones alike, and /metrics lists only the series that
// were answered.
func TestMetricsCountByRouteAndStatus(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg, nil)
	answered := []struct {
		route  routeID
		status int
		times  int
	}{
		{routeProducts, 200, 3},
		{routeProducts, 304, 2},
		{routeProduct, 404, 1},
		{routeOther, 418, 2}, // no common status
		{routeNone, 404, 1},
	}
	for _, a := range answered {
		for range a.times {
			m.observe(a.route, a.status, time.Millisecond)
		}
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[[2]string]float64{}
	latency := map[string]uint64{}
	for _, f := range families {
		for _, s := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch f.GetName() {
			case "catalogd_http_requests_total":
				got[[2]string{labels["route"], labels["status"]}] = s.GetCounter().GetValue()
			case "catalogd_http_request_duration_seconds":
				latency[labels["route"]] = s.GetHistogram().GetSampleCount()
			}
		}
	}
	want := map[[2]string]float64{
		{"listProducts", "200"}: 3, {"listProducts", "304"}: 2, {"getProduct", "404"}: 1,
		{"other", "418"}: 2, {"noRoute", "404"}: 1,
	}
	if len(got) != len(want) {
		t.Errorf("request series %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("requests{route=%q,status=%q} = %v, want %v", k[0], k[1], got[k], v)
		}
	}
	wantLatency := map[string]uint64{"listProducts": 5, "getProduct": 1, "other": 2, "noRoute": 1}
	if len(latency) != len(wantLatency) {
		t.Errorf("latency series %v, want %v", latency, wantLatency)
	}
	for k, v := range wantLatency {
		if latency[k] != v {
			t.Errorf("latency{route=%q} count = %d, want %d", k, latency[k], v)
		}
	}
}
