package httpapi

import (
	"slices"
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
	routeProducts, routeProduct := routeByName(t, "listProducts"), routeByName(t, "getProduct")
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

// routeByName is the route label of the operation named name.
func routeByName(t *testing.T, name string) routeID {
	t.Helper()
	i := slices.Index(routeNames, name)
	if i < 0 {
		t.Fatalf("no route %q in %v", name, routeNames)
	}
	return routeID(i)
}

// Every request is labelled with the operation the router would give it,
// by the route table's templates: "noRoute" under the base path for paths
// no operation has, "other" outside it.
func TestRouteOf(t *testing.T) {
	s := &server{base: "/wp-json/shop/v1"}
	s.paths = pathTemplates(s.routes())
	for _, tt := range []struct{ path, want string }{
		{"/wp-json/shop/v1/catalog", "getCatalogIndex"},
		{"/wp-json/shop/v1/catalog/categories", "listCategories"},
		{"/wp-json/shop/v1/catalog/products", "listProducts"},
		{"/wp-json/shop/v1/catalog/products/police-radar", "getProduct"},
		{"/wp-json/shop/v1/catalog/products/%d1%81", "getProduct"},
		{"/wp-json/shop/v1/catalog/products/a/b", "noRoute"},
		{"/wp-json/shop/v1/catalog/products/", "noRoute"},
		{"/wp-json/shop/v1/catalog/categories/jobs", "noRoute"},
		{"/wp-json/shop/v1/catalogue", "noRoute"},
		{"/wp-json/shop/v1", "noRoute"},
		{"/wp-json/shop/v1x", "noRoute"},
		{"/wp-json/shop/v2/catalog", "other"},
		{"/openapi.json", "other"},
		{"/", "other"},
	} {
		if got := routeNames[s.routeOf(tt.path)]; got != tt.want {
			t.Errorf("routeOf(%q) = %s, want %s", tt.path, got, tt.want)
		}
	}
}

// BenchmarkRouteOf is the route label's cost on every request, cache hits
// included: tens of nanoseconds, no allocation.
func BenchmarkRouteOf(b *testing.B) {
	s := &server{base: "/wp-json/shop/v1"}
	s.paths = pathTemplates(s.routes())
	for _, p := range []string{"/wp-json/shop/v1/catalog/products", "/wp-json/shop/v1/catalog/products/police-radar"} {
		b.Run(p[len(s.base):], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.routeOf(p)
			}
		})
	}
}
