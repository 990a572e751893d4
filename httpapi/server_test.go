package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
)

// now is the instant sales are evaluated at.
var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

const siteURL = "https://shop.example"

// The fixture shop's catalog-visible products, in ascending post ID order.
var visibleSlugs = []string{"police-radar", "gun-shop", "car-dealer", "free-thing"}

// newShop builds the fixture shop: a category tree (jobs > police,
// vehicles, and "empty" holding only a hidden product), four visible
// products (one variable, one without a price), a hidden one and a draft.
func newShop() *wpfixture.Shop {
	s := wpfixture.New("wp_", siteURL)
	s.Now = now
	s.Category("Jobs", "jobs", "", 1)
	s.Category("Police", "police", "jobs", 0)
	s.Category("Vehicles", "vehicles", "", 2)
	s.Category("Empty", "empty", "", 3)
	s.Add(wpfixture.Product{Title: "Police Radar", RegularPrice: "20", Categories: []string{"police"},
		Frameworks: []string{"qbcore", "esx"}, Excerpt: "<p>Radar for the <strong>police</strong>.</p>",
		Content: "<!-- wp:paragraph --><p>The full description.</p><!-- /wp:paragraph -->"})
	s.Add(wpfixture.Product{Title: "Gun Shop", Type: "variable", Categories: []string{"jobs"},
		Variations: []wpfixture.Variation{{Framework: "esx", RegularPrice: "10"}, {Framework: "qbox", RegularPrice: "15"}}})
	s.Add(wpfixture.Product{Title: "Car Dealer", RegularPrice: "30", Categories: []string{"vehicles"},
		Frameworks: []string{"qbcore"}})
	s.Add(wpfixture.Product{Title: "Free Thing", Categories: []string{"vehicles"}, Frameworks: []string{"standalone"}})
	s.Add(wpfixture.Product{Title: "Hidden Gem", RegularPrice: "5", Visibility: "hidden", Categories: []string{"empty"}})
	s.Add(wpfixture.Product{Title: "Draft Thing", Slug: "draft-thing", Status: "draft", RegularPrice: "7",
		Categories: []string{"vehicles"}})
	return s
}

// loadShop loads the fixture shop into a throwaway database and returns its
// DSN.
func loadShop(t testing.TB) string {
	t.Helper()
	dsn, _ := testdb.Load(t, newShop())
	return dsn
}

// openDB opens wpdb on dsn with the table prefix.
func openDB(t testing.TB, dsn, prefix string, timeout time.Duration) *wpdb.DB {
	t.Helper()
	db, err := wpdb.Open(dsn, wpdb.Options{Prefix: prefix, QueryTimeout: timeout})
	if err != nil {
		t.Fatalf("wpdb.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// serve wires the catalog on db into a server under the namespace and
// starts it on a real listener.
func serve(t *testing.T, db *wpdb.DB, ns string) *httptest.Server {
	t.Helper()
	cat := catalog.New(db, catalog.Config{Now: func() time.Time { return now }})
	h := httpapi.NewServer(httpapi.Deps{Catalog: cat, Namespace: ns, SiteURL: siteURL,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// response is what a client saw.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request through the server's real HTTP client.
func do(t *testing.T, srv *httptest.Server, method, path string, hdr map[string]string) response {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatalf("new request %s %s: %v", method, path, err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: body}
}

func get(t *testing.T, srv *httptest.Server, path string) response {
	t.Helper()
	return do(t, srv, http.MethodGet, path, nil)
}

// apiError is the contract's Error shape.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Data    struct {
		Status int               `json:"status"`
		Hint   string            `json:"hint"`
		Params map[string]string `json:"params"`
	} `json:"data"`
}

// checkError asserts the status, the code and the Error shape every error
// body must have, and returns the decoded body.
func checkError(t *testing.T, r response, status int, code string) apiError {
	t.Helper()
	if r.status != status {
		t.Errorf("status = %d, want %d; body %s", r.status, status, r.body)
	}
	var e apiError
	if err := json.Unmarshal(r.body, &e); err != nil {
		t.Fatalf("error body is not JSON: %v: %q", err, r.body)
	}
	if e.Code != code {
		t.Errorf("code = %q, want %q; body %s", e.Code, code, r.body)
	}
	if e.Message == "" {
		t.Errorf("message is empty; body %s", r.body)
	}
	if e.Data.Status != r.status {
		t.Errorf("data.status = %d, want the HTTP status %d", e.Data.Status, r.status)
	}
	if strings.TrimSpace(e.Data.Hint) == "" {
		t.Errorf("data.hint is empty; body %s", r.body)
	}
	if r.status == http.StatusBadRequest && len(e.Data.Params) == 0 {
		t.Errorf("a 400 without data.params; body %s", r.body)
	}
	return e
}

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

const base = "/wp-json/shop/v1"

// TestErrors walks the error table of decisions.md row by row.
func TestErrors(t *testing.T) {
	srv := serve(t, openDB(t, loadShop(t), "wp_", 5*time.Second), "shop")
	long := strings.Repeat("a", 201)
	products := base + "/catalog/products"
	tests := []struct {
		name   string
		method string // GET when empty
		path   string
		status int
		code   string
		params []string       // keys data.params must hold
		hint   *regexp.Regexp // the hint must match, when set
		check  func(t *testing.T, r response, e apiError)
	}{
		{name: "page=0", path: products + "?page=0", status: 400, code: "shop_invalid_page", params: []string{"page"}},
		{name: "page=-1", path: products + "?page=-1", status: 400, code: "shop_invalid_page", params: []string{"page"}},
		{name: "page=+1 (a space)", path: products + "?page=+1", status: 400, code: "shop_invalid_page", params: []string{"page"}},
		{name: "page=%2B1 (a plus)", path: products + "?page=%2B1", status: 400, code: "shop_invalid_page", params: []string{"page"}},
		{name: "page=1.5", path: products + "?page=1.5", status: 400, code: "shop_invalid_page", params: []string{"page"}},
		{name: "page empty", path: products + "?page=", status: 400, code: "shop_invalid_page", params: []string{"page"}},
		{name: "page=abc", path: products + "?page=abc", status: 400, code: "shop_invalid_page", params: []string{"page"}},
		{name: "page huge", path: products + "?page=99999999999999999999999", status: 400, code: "shop_invalid_page", params: []string{"page"}},
		{name: "page repeated", path: products + "?page=1&page=2", status: 400, code: "shop_invalid_page", params: []string{"page"}},
		{name: "page=%zz", path: products + "?page=%zz", status: 400, code: "shop_invalid_page", params: []string{"page"}},
		{name: "page beyond total_pages", path: products + "?per_page=3&page=5", status: 400, code: "shop_invalid_page",
			params: []string{"page"}, hint: regexp.MustCompile(`\b2\b`)},
		{name: "page=2 beyond the only page", path: products + "?page=2", status: 400, code: "shop_invalid_page",
			params: []string{"page"}, hint: regexp.MustCompile(`\b1\b`)},

		{name: "per_page=0", path: products + "?per_page=0", status: 400, code: "shop_invalid_per_page", params: []string{"per_page"}},
		{name: "per_page=51", path: products + "?per_page=51", status: 400, code: "shop_invalid_per_page", params: []string{"per_page"}},
		{name: "per_page=100", path: products + "?per_page=100", status: 400, code: "shop_invalid_per_page", params: []string{"per_page"}},
		{name: "per_page empty", path: products + "?per_page=", status: 400, code: "shop_invalid_per_page", params: []string{"per_page"}},
		{name: "per_page repeated", path: products + "?per_page=10&per_page=10", status: 400, code: "shop_invalid_per_page", params: []string{"per_page"}},

		{name: "category unknown", path: products + "?category=no-such-category", status: 400, code: "shop_invalid_category",
			params: []string{"category"}, hint: regexp.MustCompile(regexp.QuoteMeta(base + "/catalog/categories"))},
		{name: "category empty", path: products + "?category=", status: 400, code: "shop_invalid_category", params: []string{"category"}},

		{name: "framework=foo", path: products + "?framework=foo", status: 400, code: "shop_invalid_framework", params: []string{"framework"}},
		{name: "framework=ESX", path: products + "?framework=ESX", status: 400, code: "shop_invalid_framework", params: []string{"framework"}},

		{name: "slug uppercase", path: products + "/Police-Radar", status: 400, code: "shop_invalid_slug", params: []string{"slug"}},
		{name: "slug a.b", path: products + "/a.b", status: 400, code: "shop_invalid_slug", params: []string{"slug"}},
		{name: "slug of 201 characters", path: products + "/" + long, status: 400, code: "shop_invalid_slug", params: []string{"slug"}},

		{name: "order: page, per_page, framework", path: products + "?page=abc&per_page=100&framework=foo", status: 400,
			code: "shop_invalid_page", params: []string{"page", "per_page", "framework"}},
		{name: "order: per_page, category, framework", path: products + "?per_page=0&category=&framework=foo", status: 400,
			code: "shop_invalid_per_page", params: []string{"per_page", "category", "framework"}},
		// An unknown category slug offends as much as an empty one: it
		// comes before framework in the order.
		{name: "order: unknown category before framework", path: products + "?category=no-such-category&framework=foo", status: 400,
			code: "shop_invalid_category", params: []string{"category", "framework"}},

		{name: "unknown slug", path: products + "/no-such-product", status: 404, code: "shop_product_not_found",
			hint: regexp.MustCompile(regexp.QuoteMeta(base + "/catalog/products")),
			check: func(t *testing.T, r response, e apiError) {
				if !strings.Contains(e.Message, "no-such-product") {
					t.Errorf("message %q does not name the slug", e.Message)
				}
			}},
		{name: "slug of 200 characters", path: products + "/" + long[:200], status: 404, code: "shop_product_not_found"},
		{name: "draft's slug", path: products + "/draft-thing", status: 404, code: "shop_product_not_found"},
		{name: "variation's slug", path: products + "/gun-shop-esx", status: 404, code: "shop_product_not_found"},

		{name: "no route in the namespace", path: base + "/nope", status: 404, code: "shop_no_route"},
		{name: "namespace root", path: base, status: 404, code: "shop_no_route"},
		{name: "namespace root, index.php form", path: "/index.php" + base, status: 404, code: "shop_no_route"},
		{name: "no route, rest_route form", path: "/?rest_route=/shop/v1/nope", status: 404, code: "shop_no_route"},
		{name: "invalid page, rest_route form", path: "/index.php?rest_route=/shop/v1/catalog/products&page=0", status: 400,
			code: "shop_invalid_page", params: []string{"page"}},
		{name: "empty rest_route is the path's", path: "/?rest_route=", status: 404, code: "shop_not_found"},
		{name: "index.php without wp-json", path: "/index.php/shop/v1/catalog", status: 404, code: "shop_not_found"},
		{name: "below a product", path: products + "/police-radar/extra", status: 404, code: "shop_no_route"},
		{name: "site path", path: "/some/page", status: 404, code: "shop_not_found"},
		{name: "site root", path: "/", status: 404, code: "shop_not_found"},
		{name: "other namespace", path: "/wp-json/other/v1/catalog", status: 404, code: "shop_not_found"},
	}
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		for _, p := range []string{base + "/catalog", base + "/catalog/categories", products, products + "/police-radar"} {
			tests = append(tests, struct {
				name   string
				method string
				path   string
				status int
				code   string
				params []string
				hint   *regexp.Regexp
				check  func(t *testing.T, r response, e apiError)
			}{name: method + " " + p, method: method, path: p, status: 405, code: "shop_method_not_allowed",
				check: func(t *testing.T, r response, _ apiError) {
					if allow := r.header.Get("Allow"); !strings.Contains(allow, "GET") {
						t.Errorf("Allow = %q, want it to contain GET", allow)
					}
				}})
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = http.MethodGet
			}
			r := do(t, srv, method, tc.path, nil)
			checkHeaders(t, r)
			e := checkError(t, r, tc.status, tc.code)
			for _, p := range tc.params {
				if e.Data.Params[p] == "" {
					t.Errorf("data.params has no message for %q: %v", p, e.Data.Params)
				}
			}
			if tc.hint != nil && !tc.hint.MatchString(e.Data.Hint) {
				t.Errorf("hint %q does not match %s", e.Data.Hint, tc.hint)
			}
			if tc.check != nil {
				tc.check(t, r, e)
			}
		})
	}
}

// apiPaths are the four operations that ask the catalog.
var apiPaths = []string{base + "/catalog", base + "/catalog/categories", base + "/catalog/products",
	base + "/catalog/products/" + fakeSlug}

// When the catalog cannot load the shop, every operation answers 503 with
// Retry-After, and the cause (address, dial) stays in the log.
func TestDatabaseUnreachable(t *testing.T) {
	srv := serveFake(t, newFake().failWith(errUnavailable()), nil)
	for _, p := range apiPaths {
		t.Run(p, func(t *testing.T) {
			r := get(t, srv, p)
			checkHeaders(t, r)
			checkError(t, r, http.StatusServiceUnavailable, "shop_unavailable")
			if n, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || n < 1 {
				t.Errorf("Retry-After = %q, want a positive number of seconds", r.header.Get("Retry-After"))
			}
			for _, leak := range []string{"dial", "tcp", "127.0.0.1", "3306", "connection refused", "wpdb"} {
				if strings.Contains(string(r.body), leak) {
					t.Errorf("503 body contains %q: %s", leak, r.body)
				}
			}
		})
	}
}

// A catalog failure, a plain error from below and a panic all answer the
// same 500, whose body names nothing of the cause: no SQL, table, database,
// package, source path or stack.
func TestInternalErrorShowsNoInternals(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(*fakeService) *fakeService
	}{
		{"catalog internal error", func(f *fakeService) *fakeService { return f.failWith(errInternal()) }},
		{"plain error", func(f *fakeService) *fakeService { return f.failWith(errPlain()) }},
		{"panic", func(f *fakeService) *fakeService { return f.panicWith(errPlain()) }},
		{"panic with a string", func(f *fakeService) *fakeService {
			return f.panicWith("SELECT x FROM wp_posts at /work/secret.go:12")
		}},
	} {
		srv := serveFake(t, tc.fail(newFake()), nil)
		for _, p := range apiPaths {
			t.Run(tc.name+" "+p, func(t *testing.T) {
				r := get(t, srv, p)
				checkHeaders(t, r)
				checkError(t, r, http.StatusInternalServerError, "shop_internal_error")
				body := string(r.body)
				for _, leak := range []string{"nope_", "1146", "Error ", "SELECT", "FROM", "SQL", "doesn't exist",
					"catalogd_test", "wpdb", "wp_posts", "secret", ".go", "/work", "goroutine", "catalog:"} {
					if strings.Contains(body, leak) {
						t.Errorf("500 body contains %q: %s", leak, body)
					}
				}
			})
		}
	}
}

// keysOf decodes a JSON object and returns its keys.
func keysOf(t *testing.T, raw []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %q", err, raw)
	}
	return m
}

func productSlugs(t *testing.T, body []byte) []string {
	t.Helper()
	var l catalog.ProductList
	if err := json.Unmarshal(body, &l); err != nil {
		t.Fatalf("not a ProductList: %v: %s", err, body)
	}
	out := []string{}
	for _, p := range l.Products {
		out = append(out, p.Slug)
	}
	return out
}

var productRequired = []string{"slug", "name", "url", "price", "currency", "in_stock", "purchasable"}

func TestSuccess(t *testing.T) {
	srv := serve(t, openDB(t, loadShop(t), "wp_", 5*time.Second), "shop")
	list := func(want []string, total, pages int) func(t *testing.T, body []byte) {
		return func(t *testing.T, body []byte) {
			t.Helper()
			var l catalog.ProductList
			if err := json.Unmarshal(body, &l); err != nil {
				t.Fatal(err)
			}
			if got := productSlugs(t, body); !slices.Equal(got, want) {
				t.Errorf("products = %v, want %v", got, want)
			}
			if l.Total != total || l.TotalPages != pages {
				t.Errorf("total, total_pages = %d, %d, want %d, %d", l.Total, l.TotalPages, total, pages)
			}
		}
	}
	products := base + "/catalog/products"
	tests := []struct {
		name  string
		path  string
		check func(t *testing.T, body []byte)
	}{
		{"index", base + "/catalog", func(t *testing.T, body []byte) {
			var idx catalog.Index
			if err := json.Unmarshal(body, &idx); err != nil {
				t.Fatal(err)
			}
			if idx.ProductCount != 4 || idx.CatalogVisibleProductCount != 4 || idx.PublishedProductCount != 5 {
				t.Errorf("product_count, catalog_visible, published = %d, %d, %d, want 4, 4, 5",
					idx.ProductCount, idx.CatalogVisibleProductCount, idx.PublishedProductCount)
			}
			if idx.CategoryCount != 3 {
				t.Errorf("category_count = %d, want 3", idx.CategoryCount)
			}
			if want := siteURL + base + "/catalog/products"; idx.Endpoints.Products != want {
				t.Errorf("endpoints.products = %q, want %q", idx.Endpoints.Products, want)
			}
			for _, k := range []string{"name", "currency", "product_count", "category_count", "endpoints"} {
				if _, ok := keysOf(t, body)[k]; !ok {
					t.Errorf("index has no %q", k)
				}
			}
		}},
		{"categories", base + "/catalog/categories", func(t *testing.T, body []byte) {
			var cl catalog.CategoryList
			if err := json.Unmarshal(body, &cl); err != nil {
				t.Fatal(err)
			}
			counts := map[string]int{}
			for _, c := range cl.Categories {
				counts[c.Slug] = c.Count
			}
			want := map[string]int{"jobs": 2, "police": 1, "vehicles": 2}
			if len(counts) != len(want) {
				t.Errorf("categories = %v, want %v", counts, want)
			}
			for k, v := range want {
				if counts[k] != v {
					t.Errorf("count of %s = %d, want %d (all: %v)", k, counts[k], v, counts)
				}
			}
		}},
		{"products", products, list(visibleSlugs, 4, 1)},
		{"products trailing slash", products + "/", list(visibleSlugs, 4, 1)},
		{"unknown parameters ignored", products + "?foo=bar&utm_source=x&_=1", list(visibleSlugs, 4, 1)},
		// WordPress accepts every REST route in two more spellings.
		{"rest_route form", "/?rest_route=/shop/v1/catalog/products&per_page=3&page=2", list([]string{"free-thing"}, 4, 2)},
		{"rest_route form, encoded, on any path", "/shop/?rest_route=%2Fshop%2Fv1%2Fcatalog%2Fproducts%2F&category=jobs",
			list([]string{"police-radar", "gun-shop"}, 2, 1)},
		{"rest_route wins over the path, the last one counts", products + "/police-radar?rest_route=/x&rest_route=shop/v1/catalog/products",
			list(visibleSlugs, 4, 1)},
		{"index.php form", "/index.php" + products + "?framework=qbox", list([]string{"gun-shop"}, 1, 1)},
		{"page 2 of 2", products + "?per_page=3&page=2", list([]string{"free-thing"}, 4, 2)},
		{"per_page=50", products + "?per_page=50&page=1", list(visibleSlugs, 4, 1)},
		{"category includes descendants", products + "?category=jobs", list([]string{"police-radar", "gun-shop"}, 2, 1)},
		{"framework", products + "?framework=qbcore", list([]string{"police-radar", "car-dealer"}, 2, 1)},
		{"framework from a variation", products + "?framework=qbox", list([]string{"gun-shop"}, 1, 1)},
		{"category AND framework", products + "?category=jobs&framework=qbcore", list([]string{"police-radar"}, 1, 1)},
		{"category AND framework, no match", products + "?category=vehicles&framework=esx", list([]string{}, 0, 0)},
		{"category with no visible product", products + "?category=empty", list([]string{}, 0, 0)},
		{"product", products + "/police-radar", func(t *testing.T, body []byte) {
			var p catalog.Product
			if err := json.Unmarshal(body, &p); err != nil {
				t.Fatal(err)
			}
			if p.Slug != "police-radar" || p.Price == nil || *p.Price != "20.00" {
				t.Errorf("slug, price = %q, %v; want police-radar, 20.00", p.Slug, p.Price)
			}
		}},
		{"product trailing slash", products + "/police-radar/", func(t *testing.T, body []byte) {
			if s := string(keysOf(t, body)["slug"]); s != `"police-radar"` {
				t.Errorf("slug = %s", s)
			}
		}},
		{"hidden but published product", products + "/hidden-gem", func(t *testing.T, body []byte) {
			if s := string(keysOf(t, body)["slug"]); s != `"hidden-gem"` {
				t.Errorf("slug = %s", s)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := get(t, srv, tc.path)
			if r.status != http.StatusOK {
				t.Fatalf("status = %d, want 200; body %s", r.status, r.body)
			}
			checkHeaders(t, r)
			tc.check(t, r.body)
		})
	}
}

func TestShapes(t *testing.T) {
	srv := serve(t, openDB(t, loadShop(t), "wp_", 5*time.Second), "shop")

	t.Run("list", func(t *testing.T) {
		r := get(t, srv, base+"/catalog/products")
		if r.status != http.StatusOK {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		top := keysOf(t, r.body)
		for _, k := range []string{"products", "page", "per_page", "total", "total_pages"} {
			if _, ok := top[k]; !ok {
				t.Errorf("ProductList has no %q", k)
			}
		}
		for _, k := range []string{"page", "per_page", "total", "total_pages"} {
			if _, err := strconv.Atoi(string(top[k])); err != nil {
				t.Errorf("%s = %s, want an integer", k, top[k])
			}
		}
		var items []json.RawMessage
		if err := json.Unmarshal(top["products"], &items); err != nil {
			t.Fatalf("products is not an array: %v", err)
		}
		if len(items) != len(visibleSlugs) {
			t.Fatalf("%d products, want %d", len(items), len(visibleSlugs))
		}
		for i, raw := range items {
			p := keysOf(t, raw)
			if _, ok := p["description"]; ok {
				t.Errorf("product %d of the list has a description key", i)
			}
			for _, k := range productRequired {
				if _, ok := p[k]; !ok {
					t.Errorf("product %d of the list has no %q", i, k)
				}
			}
			if string(p["slug"]) == `"free-thing"` && string(p["price"]) != "null" {
				t.Errorf("price of free-thing in the list = %s, want null", p["price"])
			}
		}
	})

	for _, slug := range []string{"police-radar", "free-thing"} {
		t.Run("single "+slug, func(t *testing.T) {
			r := get(t, srv, base+"/catalog/products/"+slug)
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			p := keysOf(t, r.body)
			for _, k := range append([]string{"description", "summary"}, productRequired...) {
				if _, ok := p[k]; !ok {
					t.Errorf("single product has no %q", k)
				}
			}
			price := string(p["price"])
			if slug == "free-thing" && price != "null" {
				t.Errorf("price = %s, want null", price)
			}
			if slug == "police-radar" && price != `"20.00"` {
				t.Errorf("price = %s, want \"20.00\"", price)
			}
			if slug == "police-radar" && !strings.Contains(string(p["description"]), "The full description.") {
				t.Errorf("description = %s", p["description"])
			}
		})
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

func TestCustomNamespace(t *testing.T) {
	srv := serve(t, openDB(t, loadShop(t), "wp_", 5*time.Second), "acme")
	acme := "/wp-json/acme/v1"
	t.Run("index", func(t *testing.T) {
		r := get(t, srv, acme+"/catalog")
		if r.status != http.StatusOK {
			t.Fatalf("status = %d, want 200; body %s", r.status, r.body)
		}
		var idx catalog.Index
		if err := json.Unmarshal(r.body, &idx); err != nil {
			t.Fatal(err)
		}
		if want := siteURL + acme + "/catalog"; idx.Endpoints.Catalog != want {
			t.Errorf("endpoints.catalog = %q, want %q", idx.Endpoints.Catalog, want)
		}
	})
	t.Run("list", func(t *testing.T) {
		r := get(t, srv, acme+"/catalog/products")
		if r.status != http.StatusOK {
			t.Fatalf("status = %d, want 200; body %s", r.status, r.body)
		}
		if got := productSlugs(t, r.body); !slices.Equal(got, visibleSlugs) {
			t.Errorf("products = %v, want %v", got, visibleSlugs)
		}
	})
	for _, tc := range []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", acme + "/catalog/products?page=0", 400, "acme_invalid_page"},
		{"GET", acme + "/catalog/products?category=nope", 400, "acme_invalid_category"},
		{"GET", acme + "/catalog/products/no-such-product", 404, "acme_product_not_found"},
		{"GET", acme + "/nope", 404, "acme_no_route"},
		{"GET", base + "/catalog", 404, "acme_not_found"},
		{"POST", acme + "/catalog", 405, "acme_method_not_allowed"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := do(t, srv, tc.method, tc.path, nil)
			checkHeaders(t, r)
			e := checkError(t, r, tc.status, tc.code)
			if strings.Contains(e.Data.Hint, "/wp-json/shop/") {
				t.Errorf("hint names the default namespace: %q", e.Data.Hint)
			}
		})
	}
}

// TestErrorBodyIsJSONForAnyAccept checks that a browser-like Accept header
// still gets the JSON error (the API namespace never answers HTML).
func TestErrorBodyIsJSONForAnyAccept(t *testing.T) {
	srv := serve(t, openDB(t, loadShop(t), "wp_", 5*time.Second), "shop")
	r := do(t, srv, http.MethodGet, base+"/catalog/products/no-such-product",
		map[string]string{"Accept": "text/html,application/xhtml+xml"})
	checkHeaders(t, r)
	checkError(t, r, http.StatusNotFound, "shop_product_not_found")
	if bytes.Contains(bytes.ToLower(r.body), []byte("<html")) {
		t.Errorf("HTML in the error body: %s", r.body)
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
