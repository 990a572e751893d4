package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// canonicalSlugs hands the handlers (and the cache) the stored form of a
// product slug in any accepted spelling, leaves everything else alone, and costs
// the common English-slug request no allocation.
func TestCanonicalSlugs(t *testing.T) {
	const products = "/wp-json/shop/v1/catalog/products"
	var seen *http.Request
	h := canonicalSlugs(products+"/", http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { seen = r }))
	tests := []struct {
		target, path, query string
		plain               bool // an English slug or none: no rewrite, no allocation
	}{
		{products + "/police-radar", products + "/police-radar", "", true},
		{products + "?category=jobs&page=2", products, "category=jobs&page=2", true},
		{"/wp-json/shop/v1/catalog", "/wp-json/shop/v1/catalog", "", true},
		{products + "/%d1%81%d0%ba", products + "/%d1%81%d0%ba", "", false},
		{products + "/%D1%81%D0%BA", products + "/%d1%81%d0%ba", "", false},
		{products + "/%25d1%2581%25D0%25BA", products + "/%d1%81%d0%ba", "", false},
		{products + "/%d1%81%25d0%25ba", products + "/%d1%81%d0%ba", "", false},
		{products + "/Police", products + "/Police", "", false},
		{products + "/a_b", products + "/a_b", "", true},
		{products + "/x/y", products + "/x/y", "", false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", tt.target, nil)
		h.ServeHTTP(nil, r)
		if seen.URL.Path != tt.path || seen.URL.RawQuery != tt.query {
			t.Errorf("%s: handler saw path %q query %q; want %q, %q", tt.target, seen.URL.Path, seen.URL.RawQuery, tt.path, tt.query)
		}
		if tt.plain {
			if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(nil, r) }); n != 0 {
				t.Errorf("%s: %v allocations, want none", tt.target, n)
			}
		}
	}
}
