package main

import (
	"net/http"
	"testing"
)

// cachedCopy tells a copy the edge held from one it fetched for the
// question, by each edge's own words: only a held copy says what the edge
// holds, so anything else makes a starting replica purge.
func TestCachedCopy(t *testing.T) {
	tests := []struct {
		name   string
		header map[string]string
		want   bool
	}{
		{"the shipped VCL's hit", map[string]string{"X-Cache": "HIT"}, true},
		{"the shipped VCL's miss", map[string]string{"X-Cache": "MISS"}, false},
		{"Fastly's hit", map[string]string{"X-Cache": "HIT, HIT"}, true},
		{"Fastly's edge missed behind a shield that hit", map[string]string{"X-Cache": "HIT, MISS"}, false},
		{"Fastly's edge hit, the shield had missed", map[string]string{"X-Cache": "MISS, HIT"}, true},
		{"Cloudflare's hit", map[string]string{"CF-Cache-Status": "HIT"}, true},
		{"Cloudflare's stale copy", map[string]string{"CF-Cache-Status": "STALE"}, true},
		{"Cloudflare's miss", map[string]string{"CF-Cache-Status": "MISS"}, false},
		{"Cloudflare's dynamic (not cached)", map[string]string{"CF-Cache-Status": "DYNAMIC"}, false},
		{"another cache's Age", map[string]string{"Age": "12"}, true},
		{"an Age of 0: just fetched", map[string]string{"Age": "0"}, false},
		{"nothing said", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := cachedCopy(h); got != tt.want {
				t.Errorf("cachedCopy(%v) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
}
