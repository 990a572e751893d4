package purge

import (
	"net/http"
	"testing"
)

// Cached tells a copy the edge held from one it fetched for the
// question, by each target's own words only: a CDN above Varnish passes
// Varnish's X-Cache and Age on, and its own miss must not read as a hit
// (the CDN would keep its stale pages after an outage). Anything but a
// held copy makes a starting replica purge.
func TestCachedCopy(t *testing.T) {
	varnish, err := NewVarnish("http://127.0.0.1:6091", nil)
	if err != nil {
		t.Fatal(err)
	}
	fastly := NewFastly("https://api.fastly.com", "svc", FixedToken("t"), false, nil)
	cloudflare := NewCloudflare("https://api.cloudflare.com/client/v4", "zone", FixedToken("t"), 0, 0, nil)
	tests := []struct {
		name   string
		target Target
		header map[string]string
		want   bool
	}{
		{"the shipped VCL's hit", varnish, map[string]string{"X-Cache": "HIT"}, true},
		{"the shipped VCL's miss", varnish, map[string]string{"X-Cache": "MISS"}, false},
		{"Varnish: another cache's Age is not Varnish's word", varnish, map[string]string{"Age": "12"}, false},
		{"Fastly's hit", fastly, map[string]string{"X-Cache": "HIT, HIT"}, true},
		{"Fastly's edge missed behind a shield that hit", fastly, map[string]string{"X-Cache": "HIT, MISS"}, false},
		{"Fastly's edge hit, the shield had missed", fastly, map[string]string{"X-Cache": "MISS, HIT"}, true},
		{"Fastly's miss above Varnish's hit", fastly, map[string]string{"X-Cache": "HIT, MISS", "Age": "40"}, false},
		{"Cloudflare's hit", cloudflare, map[string]string{"CF-Cache-Status": "HIT"}, true},
		{"Cloudflare's stale copy", cloudflare, map[string]string{"CF-Cache-Status": "STALE"}, true},
		{"Cloudflare's miss", cloudflare, map[string]string{"CF-Cache-Status": "MISS"}, false},
		{"Cloudflare's miss above Varnish's hit", cloudflare,
			map[string]string{"CF-Cache-Status": "MISS", "X-Cache": "HIT", "Age": "40"}, false},
		{"Cloudflare's dynamic (not cached)", cloudflare, map[string]string{"CF-Cache-Status": "DYNAMIC"}, false},
		{"nothing said", cloudflare, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := tt.target.Cached(h); got != tt.want {
				t.Errorf("%s: Cached(%v) = %v, want %v", tt.target.Name(), tt.header, got, tt.want)
			}
		})
	}
}
