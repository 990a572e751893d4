package httpapi_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/httpapi"
)

// checkHeaders asserts the headers every response carries, errors
// included, and the Cache-Control of 200s and 5xx.
func checkHeaders(t *testing.T, r response) {
	t.Helper()
	h := r.header
	if r.status != http.StatusNoContent {
		if got := h.Get("Content-Type"); got != "application/json; charset=UTF-8" {
			t.Errorf("Content-Type = %q, want application/json; charset=UTF-8", got)
		}
	}
	for _, name := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
		"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		v := h.Get(name)
		if _, err := strconv.Atoi(v); err != nil {
			t.Errorf("%s = %q, want an integer", name, v)
		}
	}
	for _, name := range []string{"Limit", "Remaining", "Reset"} {
		if a, b := h.Get("RateLimit-"+name), h.Get("X-RateLimit-"+name); a != b {
			t.Errorf("RateLimit-%s = %q but X-RateLimit-%s = %q", name, a, name, b)
		}
	}
	if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options = %q, want nosniff", got)
	}
	if got := h.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("Access-Control-Allow-Origin = %q, want *", got)
	}
	if got, want := h.Get("Link"), `<`+siteURL+`/openapi.json>; rel="service-desc"`; got != want {
		t.Errorf("Link = %q, want %q", got, want)
	}
	switch cc := h.Get("Cache-Control"); {
	case r.status == http.StatusOK && cc != defaultCacheControl:
		t.Errorf("Cache-Control of a 200 = %q, want %q", cc, defaultCacheControl)
	case r.status >= 500 && cc != "no-store":
		t.Errorf("Cache-Control of a %d = %q, want no-store", r.status, cc)
	}
}

func TestRateLimitCountsDown(t *testing.T) {
	srv := serve(t, openDB(t, loadShop(t), "wp_", 5*time.Second), "shop")
	var prev int
	for i, p := range []string{base + "/catalog", "/some/page", base + "/catalog/products?page=0", base + "/catalog/products"} {
		r := get(t, srv, p)
		checkHeaders(t, r)
		limit, _ := strconv.Atoi(r.header.Get("RateLimit-Limit"))
		rem, _ := strconv.Atoi(r.header.Get("RateLimit-Remaining"))
		reset, _ := strconv.Atoi(r.header.Get("RateLimit-Reset"))
		if limit != 60 {
			t.Errorf("RateLimit-Limit = %d, want 60", limit)
		}
		if reset < 1 || reset > 60 {
			t.Errorf("RateLimit-Reset = %d, want 1 to 60", reset)
		}
		if i == 0 && rem != limit-1 {
			t.Errorf("first request: RateLimit-Remaining = %d, want %d", rem, limit-1)
		}
		if i > 0 && rem != prev-1 {
			t.Errorf("request %d (%s): RateLimit-Remaining = %d, want %d", i+1, p, rem, prev-1)
		}
		prev = rem
	}
}

// volatile headers differ between two requests by design.
var volatile = map[string]bool{"Date": true, "Ratelimit-Remaining": true, "X-Ratelimit-Remaining": true,
	"Ratelimit-Reset": true, "X-Ratelimit-Reset": true}

func TestHEAD(t *testing.T) {
	srv := serve(t, openDB(t, loadShop(t), "wp_", 5*time.Second), "shop")
	for _, p := range []string{base + "/catalog", base + "/catalog/categories", base + "/catalog/products",
		base + "/catalog/products/police-radar", base + "/catalog/products/no-such-product",
		base + "/catalog/products?page=0", base + "/nope", "/some/page"} {
		t.Run(p, func(t *testing.T) {
			// The same Accept-Encoding for both: Go's client asks GETs for
			// gzip on its own (and hides it), which HEADs it does not.
			plain := map[string]string{"Accept-Encoding": "identity"}
			g := do(t, srv, http.MethodGet, p, plain)
			h := do(t, srv, http.MethodHead, p, plain)
			if h.status != g.status {
				t.Errorf("HEAD status = %d, GET status = %d", h.status, g.status)
			}
			if len(g.body) == 0 {
				t.Errorf("GET body is empty")
			}
			if len(h.body) != 0 {
				t.Errorf("HEAD body = %q, want empty", h.body)
			}
			checkHeaders(t, h)
			names := func(hd http.Header) []string {
				var out []string
				for k := range hd {
					if !volatile[k] {
						out = append(out, k)
					}
				}
				sort.Strings(out)
				return out
			}
			if gn, hn := names(g.header), names(h.header); !slices.Equal(gn, hn) {
				t.Errorf("header names differ:\nGET  %v\nHEAD %v", gn, hn)
			}
			for k, v := range g.header {
				if !volatile[k] && !slices.Equal(v, h.header[k]) {
					t.Errorf("%s: GET %q, HEAD %q", k, v, h.header[k])
				}
			}
		})
	}
}

func TestPreflight(t *testing.T) {
	srv := serve(t, openDB(t, loadShop(t), "wp_", 5*time.Second), "shop")
	for _, p := range []string{base + "/catalog", base + "/catalog/products", base + "/catalog/products/police-radar"} {
		t.Run(p, func(t *testing.T) {
			r := do(t, srv, http.MethodOptions, p, map[string]string{"Origin": "https://other.example",
				"Access-Control-Request-Method": "GET"})
			if r.status != http.StatusNoContent {
				t.Fatalf("status = %d, want 204; body %s", r.status, r.body)
			}
			if m := r.header.Get("Access-Control-Allow-Methods"); !strings.Contains(m, "GET") {
				t.Errorf("Access-Control-Allow-Methods = %q, want it to contain GET", m)
			}
			if len(r.body) != 0 {
				t.Errorf("body = %q, want empty", r.body)
			}
			checkHeaders(t, r)
		})
	}
}

// Every route's every response carries the Link to the OpenAPI document the
// README promises, whether it came from the handler (MISS), the cache (HIT)
// or a 304, and a handler's own Link (the API catalog's rel="api-catalog")
// is added beside it rather than replacing it.
func TestLinkHeaderOnEveryRoute(t *testing.T) {
	cat := catalog.New(openDB(t, loadShop(t), "wp_", 5*time.Second), catalog.Config{Now: func() time.Time { return now }})
	srv := httptest.NewServer(httpapi.NewServer(httpapi.Deps{Catalog: cat, SiteURL: siteURL,
		Cache: httpapi.NewCache(httpapi.DefaultCacheConfig), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	serviceDesc := `<` + siteURL + `/openapi.json>; rel="service-desc"`
	links := func(r response) string { return strings.Join(r.header.Values("Link"), ", ") }
	for _, p := range []string{base + "/catalog", base + "/catalog/categories", base + "/catalog/products",
		base + "/catalog/products/police-radar", base + "/catalog/products/no-such-product",
		base + "/catalog/products?page=0", base + "/nope", "/some/page", "/openapi.json",
		"/.well-known/openapi.json", "/.well-known/api-catalog", "/llms.txt"} {
		t.Run(p, func(t *testing.T) {
			var etag string
			for _, method := range []string{"GET", "HEAD", "GET", "OPTIONS", "POST"} {
				r := do(t, srv, method, p, nil)
				if !strings.Contains(links(r), serviceDesc) {
					t.Errorf("%s (%d, X-Cache %s): Link = %q, want it to hold %s",
						method, r.status, r.header.Get("X-Cache"), links(r), serviceDesc)
				}
				if p == "/.well-known/api-catalog" && (method == "GET" || method == "HEAD") &&
					!strings.Contains(links(r), `rel="api-catalog"`) {
					t.Errorf("%s: the API catalog's own Link is gone: %q", method, links(r))
				}
				if method == "GET" && r.status == http.StatusOK {
					etag = r.header.Get("ETag")
				}
			}
			if etag != "" {
				r := do(t, srv, "GET", p, map[string]string{"If-None-Match": etag})
				if r.status != http.StatusNotModified || !strings.Contains(links(r), serviceDesc) {
					t.Errorf("304: %d, Link = %q", r.status, links(r))
				}
			}
		})
	}
}
