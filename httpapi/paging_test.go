package httpapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestProductListPagingHeaders: the product list carries WordPress's paging
// headers (X-WP-Total, X-WP-TotalPages, Link rel first/prev/next/last) with
// absolute links in the cache key's canonical query, beside the
// rel="service-desc" link every response has; a browser script may read
// them; a cache hit carries them too; and a link is the cache key of the
// page it names.
func TestProductListPagingHeaders(t *testing.T) {
	c := serveCached(t, newShop(), func() time.Time { return now })
	list := siteURL + base + "/catalog/products"
	desc := "<" + siteURL + "/openapi.json>; rel=\"service-desc\""
	cases := []struct {
		name, query       string
		total, totalPages string
		first, prev, next string // queries; "" when absent
		last              string
		lastIsThisRequest bool // the request means what its last link says
	}{
		{name: "defaults, one page", query: "", total: "4", totalPages: "1",
			first: "?page=1", last: "?page=1"},
		{name: "first of four", query: "?per_page=1", total: "4", totalPages: "4",
			first: "?page=1&per_page=1", next: "?page=2&per_page=1", last: "?page=4&per_page=1"},
		{name: "middle page", query: "?per_page=1&page=3", total: "4", totalPages: "4",
			first: "?page=1&per_page=1", prev: "?page=2&per_page=1", next: "?page=4&per_page=1", last: "?page=4&per_page=1"},
		{name: "last page, spelled loosely, unknown parameter dropped", query: "?utm_source=x&per_page=01&page=2&category=jobs",
			total: "2", totalPages: "2", first: "?category=jobs&page=1&per_page=1", prev: "?category=jobs&page=1&per_page=1",
			last: "?category=jobs&page=2&per_page=1", lastIsThisRequest: true},
		{name: "filters in canonical order", query: "?framework=qbcore&category=vehicles&per_page=1", total: "1", totalPages: "1",
			first: "?category=vehicles&framework=qbcore&page=1&per_page=1", last: "?category=vehicles&framework=qbcore&page=1&per_page=1"},
		{name: "no product: no page to link", query: "?category=empty", total: "0", totalPages: "0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := []string{desc}
			for _, l := range []struct{ q, rel string }{{tc.first, "first"}, {tc.prev, "prev"}, {tc.next, "next"}, {tc.last, "last"}} {
				if l.q != "" {
					want = append(want, "<"+list+l.q+">; rel=\""+l.rel+"\"")
				}
			}
			for _, method := range []string{http.MethodGet, http.MethodGet, http.MethodHead} { // a miss, then hits
				r := do(t, c.srv, method, base+"/catalog/products"+tc.query, nil)
				if r.status != http.StatusOK {
					t.Fatalf("%s: status %d: %s", method, r.status, r.body)
				}
				if got := r.header.Values("Link"); !slices.Equal(got, want) {
					t.Errorf("%s (%s) Link =\n  %s\nwant\n  %s", method, r.header.Get("X-Cache"),
						strings.Join(got, "\n  "), strings.Join(want, "\n  "))
				}
				if a, b := r.header.Get("X-WP-Total"), r.header.Get("X-WP-TotalPages"); a != tc.total || b != tc.totalPages {
					t.Errorf("%s: X-WP-Total %q, X-WP-TotalPages %q; want %q, %q", method, a, b, tc.total, tc.totalPages)
				}
				exposed := r.header.Get("Access-Control-Expose-Headers")
				for _, h := range []string{"Link", "X-WP-Total", "X-WP-TotalPages"} {
					if !slices.Contains(strings.Split(exposed, ", "), h) {
						t.Errorf("Access-Control-Expose-Headers %q lacks %s", exposed, h)
					}
				}
			}
			if tc.lastIsThisRequest {
				// The link's query is the canonical key: the page it names,
				// already served under another spelling, is a hit.
				if r := get(t, c.srv, base+"/catalog/products"+tc.last); r.header.Get("X-Cache") != "HIT" {
					t.Errorf("GET the last link: X-Cache %q, want HIT", r.header.Get("X-Cache"))
				}
			}
		})
	}
}
