package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

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
