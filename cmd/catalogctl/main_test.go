package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"catalogd/api"

	"catalogd/deploy/seed"
	"catalogd/internal/testdb"
	"catalogd/internal/testnet"
)

// The binaries under test, built by TestMain: catalogctl, and catalogd to
// run it against.
var ctlBinary, serverBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "catalogctl-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		os.Exit(1)
	}
	ctlBinary = filepath.Join(dir, "catalogctl")
	serverBinary = filepath.Join(dir, "catalogd")
	if err := testnet.Build(dir, map[string]string{"catalogctl": ".", "catalogd": "../catalogd"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the catalogctl binary.
type result struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

// ctl runs the catalogctl binary with the arguments in env (nil: the
// test's environment without CATALOG_*).
func ctl(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, ctlBinary, args...)
	if env == nil {
		env = testnet.Environ()
	}
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("catalogctl %q still ran after 60s; stderr:\n%s", args, r.stderr)
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run catalogctl %q: %v", args, err)
	}
	return r
}

// expect checks the exit code and that each stream holds the strings.
func (r result) expect(t *testing.T, code int, stdout, stderr []string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	for _, s := range stdout {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
		}
	}
	for _, s := range stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
}

// --- against a real catalogd serving the demo shop ---

// startDemo loads the demo shop into a throwaway database, starts catalogd
// on it and returns the API's base URL once /readyz answers 200.
func startDemo(t *testing.T) string {
	t.Helper()
	dsn, _ := testdb.Load(t, seed.Demo())
	public, admin := testnet.FreeAddr(t), testnet.FreeAddr(t)
	cmd := exec.Command(serverBinary)
	// A high advisory limit: the suite makes more requests in a minute
	// than the default 60, and --all would then wait out the window.
	cmd.Env = testnet.Environ("CATALOG_DSN="+dsn, "CATALOG_LISTEN="+public, "CATALOG_ADMIN_LISTEN="+admin,
		"CATALOG_RATE_LIMIT=100000", "CATALOG_ACCESS_LOG=false")
	logs := &testnet.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start catalogd: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := client.Get("http://" + admin + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return "http://" + public + "/wp-json/shop/v1"
			}
		}
		select {
		case <-done:
			t.Fatalf("catalogd exited before it was ready; stderr:\n%s", logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz not 200 within 10s (last error %v); stderr:\n%s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestAgainstCatalogd(t *testing.T) {
	base := startDemo(t)
	env := testnet.Environ("CATALOG_BASE_URL=" + base)

	// The index's count is what --all must deliver.
	r := ctl(t, env, "catalog", "--json")
	r.expect(t, 0, nil, nil)
	var idx api.Index
	if err := json.Unmarshal([]byte(r.stdout), &idx); err != nil {
		t.Fatalf("catalog --json is not the index: %v\n%s", err, r.stdout)
	}
	if idx.ProductCount < 51 {
		t.Fatalf("product_count = %d; the demo has more than one page of 50", idx.ProductCount)
	}

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
		check  func(t *testing.T, r result)
	}{
		{
			name: "catalog", args: []string{"catalog"},
			stdout: []string{"Northwind Scripts", "Premium FiveM scripts", "EUR",
				fmt.Sprintf("%d in the catalog, %d published", idx.ProductCount, idx.PublishedProductCount),
				fmt.Sprintf("Categories:  %d", idx.CategoryCount), "/catalog/products/{slug}"},
		},
		{
			name: "products with a framework, 5 a page", args: []string{"products", "--framework", "qbox", "--per-page", "5"},
			stdout: []string{"SLUG", "NAME", "PRICE", "STOCK", "FRAMEWORKS", "police-mdt", "20.00 EUR", "in stock"},
			check: func(t *testing.T, r result) {
				rows, footer := tableOf(t, r.stdout)
				if len(rows) != 5 {
					t.Errorf("%d rows, want 5:\n%s", len(rows), r.stdout)
				}
				for _, row := range rows {
					if !strings.Contains(row, "qbox") && !strings.Contains(row, "…") {
						t.Errorf("row without qbox: %q", row)
					}
				}
				m := regexp.MustCompile(`^page 1 of (\d+), (\d+) products$`).FindStringSubmatch(footer)
				if m == nil {
					t.Fatalf("paging line = %q, want page 1 of N, M products", footer)
				}
				pages, _ := strconv.Atoi(m[1])
				total, _ := strconv.Atoi(m[2])
				if want := (total + 4) / 5; pages != want || total <= 5 {
					t.Errorf("paging line %q: %d pages for %d products at 5 a page, want %d", footer, pages, total, want)
				}
			},
		},
		{
			name: "products --all --json is the whole catalog", args: []string{"products", "--all", "--json"},
			check: func(t *testing.T, r result) {
				var all struct {
					Products []api.Product `json:"products"`
					Total    int           `json:"total"`
				}
				if err := json.Unmarshal([]byte(r.stdout), &all); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, r.stdout)
				}
				if len(all.Products) != idx.ProductCount || all.Total != idx.ProductCount {
					t.Errorf("%d products, total %d; want the index's product_count %d", len(all.Products), all.Total, idx.ProductCount)
				}
				seen := map[string]bool{}
				for _, p := range all.Products {
					if seen[p.Slug] {
						t.Errorf("product %s twice", p.Slug)
					}
					seen[p.Slug] = true
				}
			},
		},
		{
			name: "products --all as a table", args: []string{"products", "--all"},
			check: func(t *testing.T, r result) {
				rows, footer := tableOf(t, r.stdout)
				if len(rows) != idx.ProductCount || footer != fmt.Sprintf("%d products", idx.ProductCount) {
					t.Errorf("%d rows, footer %q; want %d rows and %q", len(rows), footer, idx.ProductCount,
						fmt.Sprintf("%d products", idx.ProductCount))
				}
			},
		},
		{
			name: "products in a category, JSON", args: []string{"products", "--category", "police", "--json"},
			check: func(t *testing.T, r result) {
				var l api.ProductList
				if err := json.Unmarshal([]byte(r.stdout), &l); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, r.stdout)
				}
				if len(l.Products) == 0 || l.Page != 1 || l.PerPage != api.DefaultPerPage {
					t.Errorf("list = %d products, page %d, per_page %d", len(l.Products), l.Page, l.PerPage)
				}
				for _, p := range l.Products {
					if !contains(p.Categories, "police") {
						t.Errorf("%s is not in police: %v", p.Slug, p.Categories)
					}
				}
			},
		},
		{
			name: "product", args: []string{"product", "dispatch-system"},
			stdout: []string{"Dispatch System", "http://localhost:8080/product/dispatch-system/",
				"10.00 EUR (on sale)", "Regular price:  14.00 EUR", "On sale:        yes", "in stock",
				"Purchasable:    yes", "ems, police", "qbcore, qbox", "dispatch-system.jpg",
				"One dispatch for all emergency services", "Panic button\nCall history per unit\nSound alerts"},
			check: func(t *testing.T, r result) {
				_, text, ok := strings.Cut(r.stdout, "\nSummary:\n")
				if !ok {
					t.Fatalf("no summary:\n%s", r.stdout)
				}
				for _, l := range strings.Split(text, "\n") {
					if n := utf8.RuneCountInString(l); n > 80 {
						t.Errorf("text line of %d runes, want at most 80: %q", n, l)
					}
				}
				if !strings.Contains(text, "\n\nFeatures\n\n") {
					t.Errorf("paragraphs not kept:\n%s", text)
				}
			},
		},
		{
			name: "product as JSON", args: []string{"product", "dispatch-system", "--json"},
			check: func(t *testing.T, r result) {
				var p api.Product
				if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, r.stdout)
				}
				if p.Price == nil || *p.Price != "10.00" || !p.OnSale || p.Description == nil {
					t.Errorf("product = %+v", p)
				}
			},
		},
		{
			name: "no such product", args: []string{"product", "no-such-thing"}, code: 3,
			stderr: []string{"catalogctl: ", "404 shop_product_not_found", `"no-such-thing"`,
				"hint: List the products to find the English slug: http://localhost:8080/wp-json/shop/v1/catalog/products"},
		},
		{
			name: "unknown category: the server's 400", args: []string{"products", "--category", "no-such-category"}, code: 2,
			stderr: []string{"400 shop_invalid_category", "hint: Use a slug from"},
		},
		{
			name: "page beyond the last: the server's 400", args: []string{"products", "--page", "999"}, code: 2,
			stderr: []string{"400 shop_invalid_page", "hint: The last page is"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ctl(t, env, tt.args...)
			r.expect(t, tt.code, tt.stdout, tt.stderr)
			if tt.code == 0 && r.stderr != "" {
				t.Errorf("stderr not empty on success:\n%s", r.stderr)
			}
			if tt.code != 0 && r.stdout != "" {
				t.Errorf("stdout not empty on failure:\n%s", r.stdout)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

// tableOf splits the products output into its rows and the line under
// them, and checks the header and that every line fits 80 columns.
func tableOf(t *testing.T, out string) (rows []string, footer string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "SLUG") {
		t.Fatalf("not a table:\n%s", out)
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("line of %d runes, want at most 80: %q", n, l)
		}
	}
	return lines[1 : len(lines)-1], lines[len(lines)-1]
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// --- against servers that misbehave ---

// fakeAPI is an httptest server that counts requests and keeps their
// user agents and queries.
type fakeAPI struct {
	srv     *httptest.Server
	mu      sync.Mutex
	reqs    []*http.Request
	handler func(n int, w http.ResponseWriter, r *http.Request)
}

func newFakeAPI(t *testing.T, h func(n int, w http.ResponseWriter, r *http.Request)) *fakeAPI {
	t.Helper()
	f := &fakeAPI{handler: h}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.reqs = append(f.reqs, r.Clone(context.Background()))
		n := len(f.reqs)
		f.mu.Unlock()
		if f.handler == nil {
			http.Error(w, "no handler", http.StatusTeapot)
			return
		}
		f.handler(n, w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) base() string { return f.srv.URL + "/wp-json/shop/v1" }

func (f *fakeAPI) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.reqs...)
}

func ptr(s string) *string { return &s }

func fakeProduct(slug string) api.Product {
	return api.Product{Slug: slug, Name: strings.ToUpper(slug[:1]) + slug[1:], URL: "https://shop.example/product/" + slug + "/",
		Price: ptr("5.00"), RegularPrice: ptr("5.00"), Currency: "EUR", InStock: true, Purchasable: true,
		Categories: []string{"jobs"}, Frameworks: []string{"esx"}, Summary: "A fake product."}
}

var fakeIndex = api.Index{Name: "Test Shop", Currency: "EUR", ProductCount: 3, PublishedProductCount: 3,
	CatalogVisibleProductCount: 3, CategoryCount: 1, Endpoints: api.Endpoints{Catalog: "https://shop.example/c"}}

func writeJSONAnswer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// apiError writes the contract's Error.
func apiError(w http.ResponseWriter, status int, code, msg, hint string) {
	writeJSONAnswer(w, status, map[string]any{"code": code, "message": msg,
		"data": map[string]any{"status": status, "hint": hint}})
}

// pagedProducts serves a list of three products in two pages, whatever
// per_page says, with the rate-limit window used up after page 1.
func pagedProducts(n int, w http.ResponseWriter, r *http.Request) {
	page := r.URL.Query().Get("page")
	l := api.ProductList{Page: 1, PerPage: 50, Total: 3, TotalPages: 2,
		Products: []api.Product{fakeProduct("alpha"), fakeProduct("bravo")}}
	w.Header().Set("RateLimit-Limit", "2")
	w.Header().Set("RateLimit-Remaining", "0")
	w.Header().Set("RateLimit-Reset", "1")
	if page == "2" {
		l.Page, l.Products = 2, []api.Product{fakeProduct("charlie")}
		w.Header().Set("RateLimit-Remaining", "1")
	}
	writeJSONAnswer(w, 200, l)
}

// linkedPages serves a list of total_pages pages of one product each, every
// page linking the next as next(n) says ("" for none), beside the
// rel="service-desc" link every answer has, in one comma-joined field.
func linkedPages(totalPages int, next func(n int, r *http.Request) string) func(n int, w http.ResponseWriter, r *http.Request) {
	return func(n int, w http.ResponseWriter, r *http.Request) {
		link := `<https://shop.example/openapi.json>; rel="service-desc"`
		if u := next(n, r); u != "" {
			link += `, <` + u + `>; title="next, page"; rel="next"`
		}
		w.Header().Set("Link", link)
		writeJSONAnswer(w, 200, api.ProductList{Page: n, PerPage: 50, Total: totalPages, TotalPages: totalPages,
			Products: []api.Product{fakeProduct(fmt.Sprintf("p%d", n))}})
	}
}

func TestMisbehavingServers(t *testing.T) {
	tests := []struct {
		name       string
		handler    func(n int, w http.ResponseWriter, r *http.Request)
		args       []string
		code       int
		requests   int // 0: not checked
		stdout     []string
		stderr     []string
		minElapsed time.Duration
		maxElapsed time.Duration
		check      func(t *testing.T, r result, reqs []*http.Request)
	}{
		{
			name: "no answer within --timeout",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
			},
			args: []string{"--timeout", "200ms", "catalog"}, code: 2, requests: 1,
			stderr:     []string{"catalogctl: GET ", "no complete answer within --timeout 200ms"},
			minElapsed: 200 * time.Millisecond, maxElapsed: 4 * time.Second,
		},
		{
			name: "body stalls past --timeout",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(200)
				_, _ = io.WriteString(w, `{"name":"Test Shop",`)
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
			},
			args: []string{"--timeout", "200ms", "catalog"}, code: 2,
			stderr: []string{"reading the answer", "no complete answer within --timeout 200ms"}, maxElapsed: 4 * time.Second,
		},
		{
			name: "500 with the contract's error",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				apiError(w, 500, "shop_internal_error", "The catalog could not be read.", "")
			},
			args: []string{"catalog"}, code: 2, requests: 1,
			stderr: []string{"500 shop_internal_error: The catalog could not be read."},
		},
		{
			name: "500 in plain text",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				http.Error(w, "upstream broke", 500)
			},
			args: []string{"product", "k9-unit"}, code: 2, requests: 1,
			stderr: []string{"500 Internal Server Error: the answer is text/plain, not the API's JSON error"},
		},
		{
			name: "429 with Retry-After 1, then 200",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					w.Header().Set("Retry-After", "1")
					apiError(w, 429, "shop_rate_limited", "Too many requests.", "Wait.")
					return
				}
				writeJSONAnswer(w, 200, fakeIndex)
			},
			args: []string{"catalog"}, code: 0, requests: 2, minElapsed: time.Second,
			stdout: []string{"Test Shop", "EUR"}, stderr: []string{"429 from the server; retry 1 of 3 in 1s"},
		},
		{
			name: "503 with only RateLimit-Reset, then 200",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					w.Header().Set("RateLimit-Reset", "1")
					apiError(w, 503, "shop_unavailable", "Down.", "")
					return
				}
				writeJSONAnswer(w, 200, fakeProduct("k9-unit"))
			},
			args: []string{"product", "k9-unit"}, code: 0, requests: 2, minElapsed: time.Second,
			stdout: []string{"K9-unit", "5.00 EUR"},
		},
		{
			name: "503 for ever: bounded retries",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "0")
				apiError(w, 503, "shop_unavailable", "The catalog database is not reachable right now.",
					"Retry after the number of seconds in the Retry-After header.")
			},
			args: []string{"products"}, code: 2, requests: 1 + maxRetries,
			stderr: []string{"503 shop_unavailable", "gave up after 3 retries", "hint: Retry after",
				"retry 1 of 3", "retry 3 of 3"},
		},
		{
			name: "an HTML page instead of JSON",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=UTF-8")
				_, _ = io.WriteString(w, "<!doctype html><html><body>Welcome to our shop</body></html>")
			},
			args: []string{"catalog"}, code: 2, requests: 1,
			stderr: []string{"the answer is an HTML page, not the API's JSON; check --base-url"},
		},
		{
			name: "an HTML page labelled as JSON",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, "<html><body>oops</body></html>")
			},
			args: []string{"products"}, code: 2,
			stderr: []string{"the answer is an HTML page, not the API's JSON"},
		},
		{
			name: "JSON cut short",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"slug":"k9-unit","name":"K9 Unit","price":"4.0`)
			},
			args: []string{"product", "k9-unit"}, code: 2,
			stderr: []string{"the answer is not the API's JSON: unexpected end of JSON input"},
		},
		{
			name: "connection closed before Content-Length bytes",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					panic(err)
				}
				defer conn.Close()
				body := `{"name":"Test Shop","currency":"EUR",`
				fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
					len(body)+200, body)
				_ = buf.Flush()
			},
			args: []string{"catalog"}, code: 2,
			stderr: []string{"reading the answer: the connection closed before the answer was complete"},
		},
		{
			name: "JSON without the contract's fields",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				writeJSONAnswer(w, 200, map[string]any{"status": "ok"})
			},
			args: []string{"catalog"}, code: 2,
			stderr: []string{`the answer is not the API's JSON: field "name" is missing`},
		},
		{
			name: "a product in the list without its fields",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				writeJSONAnswer(w, 200, map[string]any{"products": []any{map[string]any{"slug": "x"}},
					"page": 1, "per_page": 20, "total": 1, "total_pages": 1})
			},
			args: []string{"products"}, code: 2,
			stderr: []string{`product 1: field "name" is missing`},
		},
		{
			name: "400 with the contract's error",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				apiError(w, 400, "shop_invalid_category", `No product category has the slug "nope".`,
					"Use a slug from https://shop.example/wp-json/shop/v1/catalog/categories.")
			},
			args: []string{"products", "--category", "nope"}, code: 2, requests: 1,
			stderr: []string{"400 shop_invalid_category", "hint: Use a slug from https://shop.example/"},
		},
		{
			name: "404 with the contract's error",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				apiError(w, 404, "shop_product_not_found", `No published product has the slug "gone".`, "List the products.")
			},
			args: []string{"product", "gone"}, code: 3, requests: 1,
			stderr: []string{"404 shop_product_not_found", "hint: List the products."},
		},
		{
			name: "404 as an HTML page: a wrong base URL",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(404)
				_, _ = io.WriteString(w, "<html>Not Found</html>")
			},
			args: []string{"catalog"}, code: 3,
			stderr: []string{"404 Not Found: the answer is an HTML page", "hint: Check --base-url"},
		},
		{
			name:    "--all waits out the rate-limit window",
			handler: pagedProducts,
			args:    []string{"products", "--all"}, code: 0, requests: 2, minElapsed: time.Second,
			stdout: []string{"alpha", "bravo", "charlie", "\n3 products\n"},
			stderr: []string{"rate-limit window used up; waiting 1s before page 2"},
			check: func(t *testing.T, r result, reqs []*http.Request) {
				for i, req := range reqs {
					q := req.URL.Query()
					if q.Get("per_page") != "50" || q.Get("page") != strconv.Itoa(i+1) {
						t.Errorf("request %d: query %q, want per_page=50&page=%d", i+1, req.URL.RawQuery, i+1)
					}
				}
			},
		},
		{
			name:    "--all --json is one object",
			handler: pagedProducts,
			args:    []string{"products", "--all", "--json", "--framework", "esx"}, code: 0, requests: 2,
			check: func(t *testing.T, r result, reqs []*http.Request) {
				var all map[string]json.RawMessage
				if err := json.Unmarshal([]byte(r.stdout), &all); err != nil {
					t.Fatalf("not one JSON object: %v\n%s", err, r.stdout)
				}
				var products []api.Product
				_ = json.Unmarshal(all["products"], &products)
				if len(products) != 3 || string(all["total"]) != "3" || len(all) != 2 {
					t.Errorf("got %s", r.stdout)
				}
				if q := reqs[1].URL.Query(); q.Get("framework") != "esx" {
					t.Errorf("page 2 lost the filter: %q", reqs[1].URL.RawQuery)
				}
			},
		},
		{
			name: "--all follows rel=next as the server spells it",
			handler: linkedPages(3, func(n int, r *http.Request) string {
				if n < 3 {
					return fmt.Sprintf("/wp-json/shop/v1/catalog/products?cursor=c%d&framework=esx", n+1) // relative
				}
				return ""
			}),
			args: []string{"products", "--all", "--framework", "esx"}, code: 0, requests: 3,
			stdout: []string{"p1", "p2", "p3", "\n3 products\n"},
			check: func(t *testing.T, r result, reqs []*http.Request) {
				if q := reqs[0].URL.Query(); q.Get("page") != "1" || q.Get("per_page") != "50" || q.Get("framework") != "esx" {
					t.Errorf("request 1: query %q, want page=1, per_page=50, framework=esx", reqs[0].URL.RawQuery)
				}
				for i, want := range []string{"cursor=c2&framework=esx", "cursor=c3&framework=esx"} {
					if got := reqs[i+1].URL.RawQuery; got != want {
						t.Errorf("request %d: query %q, want the link's %q", i+2, got, want)
					}
				}
			},
		},
		{
			name: "--all does not follow a next link to another host",
			handler: linkedPages(2, func(n int, r *http.Request) string {
				return "http://elsewhere.example/collect?page=2"
			}),
			args: []string{"products", "--all"}, code: 2, requests: 1,
			stderr: []string{"the next page's link http://elsewhere.example/collect?page=2 leaves the API at http://127.0.0.1:", "not following it"},
		},
		{
			name: "--all does not follow a next link elsewhere on its own host",
			handler: linkedPages(2, func(n int, r *http.Request) string {
				return "http://" + r.Host + "/wp-admin/admin-ajax.php?page=2"
			}),
			args: []string{"products", "--all"}, code: 2, requests: 1,
			stderr: []string{"/wp-admin/admin-ajax.php?page=2 leaves the API at http://127.0.0.1:", "not following it"},
		},
		{
			name: "--all reads the list's own path at its own address when the server names its site URL",
			handler: linkedPages(2, func(n int, r *http.Request) string {
				if n == 1 {
					return "https://shop.example/wp-json/shop/v1/catalog/products?page=2&per_page=50"
				}
				return ""
			}),
			args: []string{"products", "--all"}, code: 0, requests: 2,
			stdout: []string{"p1", "p2", "\n2 products\n"},
			check: func(t *testing.T, r result, reqs []*http.Request) {
				if got := reqs[1].URL.RawQuery; got != "page=2&per_page=50" {
					t.Errorf("request 2: query %q, want page=2&per_page=50", got)
				}
			},
		},
		{
			name: "--all stops when the next link repeats a page",
			handler: linkedPages(3, func(n int, r *http.Request) string {
				return "http://" + r.Host + "/wp-json/shop/v1/catalog/products?page=1&per_page=50"
			}),
			args: []string{"products", "--all"}, code: 2, requests: 1,
			stderr: []string{"names a page already read", "paging loops"},
		},
		{
			name: "--all stops past total_pages",
			handler: linkedPages(2, func(n int, r *http.Request) string {
				return fmt.Sprintf("http://%s/wp-json/shop/v1/catalog/products?page=%d&per_page=50", r.Host, n+1)
			}),
			args: []string{"products", "--all"}, code: 2, requests: 2,
			stderr: []string{"a next page after 2 pages, but total_pages is 2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeAPI(t, tt.handler)
			r := ctl(t, nil, append([]string{"--base-url", fake.base()}, tt.args...)...)
			r.expect(t, tt.code, tt.stdout, tt.stderr)
			if tt.code != 0 {
				if r.stdout != "" {
					t.Errorf("stdout not empty on failure:\n%s", r.stdout)
				}
				if !strings.HasPrefix(r.stderr, "catalogctl: ") {
					t.Errorf("stderr does not start with catalogctl: %q", r.stderr)
				}
			}
			reqs := fake.requests()
			if tt.requests > 0 && len(reqs) != tt.requests {
				t.Errorf("%d requests, want %d", len(reqs), tt.requests)
			}
			if r.elapsed < tt.minElapsed {
				t.Errorf("took %v, want at least %v", r.elapsed, tt.minElapsed)
			}
			if tt.maxElapsed > 0 && r.elapsed > tt.maxElapsed {
				t.Errorf("took %v, want at most %v", r.elapsed, tt.maxElapsed)
			}
			if tt.check != nil {
				tt.check(t, r, reqs)
			}
		})
	}
}

func TestUnreachableServer(t *testing.T) {
	r := ctl(t, nil, "--base-url", "http://"+testnet.FreeAddr(t)+"/wp-json/shop/v1", "catalog")
	r.expect(t, 2, nil, []string{"catalogctl: GET http://", "the request failed", "connection refused"})
}

// --- usage errors: exit 1 and no request ---

func TestUsageErrorsSendNoRequest(t *testing.T) {
	fake := newFakeAPI(t, nil)
	tests := []struct {
		name   string
		args   []string // after --base-url, unless they set their own
		env    []string
		stderr string
	}{
		{"no command", nil, nil, "no command given"},
		{"unknown command", []string{"frobnicate"}, nil, `unknown command "frobnicate"`},
		{"help for an unknown command", []string{"help", "frobnicate"}, nil, `unknown command "frobnicate"`},
		{"unknown global flag", []string{"--verbose", "catalog"}, nil, "flag provided but not defined: -verbose"},
		{"global flag after the command", []string{"catalog", "--timeout", "1s"}, nil, "not defined: -timeout"},
		{"unknown products flag", []string{"products", "--sort", "name"}, nil, "not defined: -sort"},
		{"bad bool value", []string{"products", "--json=maybe"}, nil, "invalid boolean value"},
		{"catalog with an argument", []string{"catalog", "extra"}, nil, "catalog takes no arguments"},
		{"products with an argument", []string{"products", "police"}, nil, "products takes no arguments"},
		{"product without slug", []string{"product"}, nil, "product needs a slug"},
		{"product with --json only", []string{"product", "--json"}, nil, "product needs a slug"},
		{"product with two slugs", []string{"product", "k9-unit", "ems-job"}, nil, "product takes one slug"},
		{"slug with capitals", []string{"product", "Dispatch-System"}, nil, `"Dispatch-System" is not a product slug`},
		{"slug with a space", []string{"product", "dispatch system"}, nil, "is not a product slug"},
		{"slug with a path", []string{"product", "../catalog"}, nil, "is not a product slug"},
		{"slug with a query", []string{"product", "k9-unit?x=1"}, nil, "is not a product slug"},
		{"slug with a stray percent", []string{"product", "100%-cotton"}, nil, "is not a product slug"},
		{"empty slug", []string{"product", ""}, nil, "is not a product slug"},
		{"slug too long", []string{"product", strings.Repeat("a", api.MaxSlugLength+1)}, nil, "is not a product slug"},
		{"per-page 0", []string{"products", "--per-page", "0"}, nil, "--per-page must be a plain whole number from 1 to 50"},
		{"per-page 51", []string{"products", "--per-page", "51"}, nil, "--per-page must be"},
		{"per-page -1", []string{"products", "--per-page=-1"}, nil, "--per-page must be"},
		{"per-page not a number", []string{"products", "--per-page", "ten"}, nil, "--per-page must be"},
		{"per-page fraction", []string{"products", "--per-page", "2.5"}, nil, "--per-page must be"},
		{"per-page empty", []string{"products", "--per-page", ""}, nil, "--per-page must be"},
		{"page 0", []string{"products", "--page", "0"}, nil, "--page must be a plain whole number of at least 1"},
		{"page negative", []string{"products", "--page=-2"}, nil, "--page must be"},
		{"page and per-page both bad", []string{"products", "--page", "0", "--per-page", "99"}, nil, "--page must be a plain whole number of at least 1; --per-page must be"},
		{"unknown framework", []string{"products", "--framework", "vrp"}, nil, "--framework must be one of esx, qbcore, qbox, standalone"},
		{"framework in capitals", []string{"products", "--framework", "ESX"}, nil, "--framework must be one of"},
		{"empty framework", []string{"products", "--framework", ""}, nil, "--framework must be one of"},
		{"empty category", []string{"products", "--category", ""}, nil, "category must be a category slug"},
		{"--all with --page", []string{"products", "--all", "--page", "2"}, nil, "leave out --page and --per-page"},
		{"--all with --per-page", []string{"products", "--per-page", "10", "--all"}, nil, "leave out --page and --per-page"},
		{"base URL with another scheme", []string{"--base-url", "ftp://shop.example/wp-json/shop/v1", "catalog"}, nil, `--base-url "ftp://shop.example/wp-json/shop/v1": want an http:// or https:// URL`},
		{"base URL without scheme", []string{"--base-url", "shop.example/wp-json/shop/v1", "catalog"}, nil, "want an http:// or https:// URL"},
		{"base URL without host", []string{"--base-url", "http:///wp-json/shop/v1", "catalog"}, nil, "the URL has no host"},
		{"base URL with a bad port", []string{"--base-url", "http://shop.example:port/", "catalog"}, nil, "not a URL"},
		{"base URL with a query", []string{"--base-url", fake.base() + "?x=1", "catalog"}, nil, "must not have a query or fragment"},
		{"base URL empty", []string{"--base-url", "", "catalog"}, nil, "want an http:// or https:// URL"},
		{"base URL from the environment", []string{"catalog"}, testnet.Environ("CATALOG_BASE_URL=not a url"), `CATALOG_BASE_URL "not a url"`},
		{"timeout zero", []string{"--timeout", "0s", "catalog"}, nil, "--timeout must be positive"},
		{"timeout not a duration", []string{"--timeout", "soon", "catalog"}, nil, `invalid value "soon" for flag -timeout`},
		{"user agent with a line break", []string{"--user-agent", "x\r\nX-Evil: 1", "catalog"}, nil, "--user-agent must not contain control characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if !contains(args, "--base-url") && tt.env == nil {
				args = append([]string{"--base-url", fake.base()}, args...)
			}
			r := ctl(t, tt.env, args...)
			r.expect(t, 1, nil, []string{tt.stderr, "--help' for usage."})
			if !strings.HasPrefix(r.stderr, "catalogctl: ") {
				t.Errorf("stderr does not start with catalogctl: %q", r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout not empty:\n%s", r.stdout)
			}
			if n := len(fake.requests()); n != 0 {
				t.Fatalf("a usage error sent %d requests", n)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	fake := newFakeAPI(t, nil)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"Usage:", "catalog", "products", "product <slug>", "--base-url URL", "CATALOG_BASE_URL", "--timeout", "--user-agent", "Examples:", "Exit codes:"}},
		{[]string{"-h"}, []string{"Usage:", "Examples:"}},
		{[]string{"help"}, []string{"Usage:", "Examples:"}},
		{[]string{"help", "products"}, []string{"products [--framework F]", "--per-page N", "--all", "Examples:", "catalogctl products --framework qbox --per-page 5"}},
		{[]string{"products", "--help"}, []string{"--framework F", "esx, qbcore", "standalone", "--category C", "--page N", "--json", "Examples:"}},
		{[]string{"product", "-h"}, []string{"product <slug> [--json]", "Examples:", "catalogctl product dispatch-system"}},
		{[]string{"product", "dispatch-system", "--help"}, []string{"product <slug> [--json]"}},
		{[]string{"catalog", "--help"}, []string{"catalog [--json]", "Examples:"}},
		{[]string{"--version"}, []string{"catalogctl " + version}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := ctl(t, nil, append([]string{"--base-url", fake.base()}, tt.args...)...)
			r.expect(t, 0, tt.want, nil)
			if r.stderr != "" {
				t.Errorf("stderr not empty:\n%s", r.stderr)
			}
			for _, l := range strings.Split(r.stdout, "\n") {
				if n := utf8.RuneCountInString(l); n > 80 {
					t.Errorf("help line of %d runes: %q", n, l)
				}
			}
			if n := len(fake.requests()); n != 0 {
				t.Fatalf("help sent %d requests", n)
			}
		})
	}
}

func TestRequestHeaders(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		wantUA string
	}{
		{"own user agent", nil, "catalogctl/" + version},
		{"--user-agent is added", []string{"--user-agent", "my-script/2"}, "catalogctl/" + version + " my-script/2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeAPI(t, func(n int, w http.ResponseWriter, r *http.Request) { writeJSONAnswer(w, 200, fakeIndex) })
			args := append(append([]string{"--base-url", fake.base()}, tt.args...), "catalog")
			ctl(t, nil, args...).expect(t, 0, []string{"Test Shop"}, nil)
			reqs := fake.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if ua := r.UserAgent(); ua != tt.wantUA || !strings.HasPrefix(ua, "catalogctl/") {
				t.Errorf("User-Agent = %q, want %q", ua, tt.wantUA)
			}
			if r.Method != http.MethodGet || r.URL.Path != "/wp-json/shop/v1/catalog" || r.Header.Get("Accept") != "application/json" {
				t.Errorf("request = %s %s Accept %q", r.Method, r.URL.Path, r.Header.Get("Accept"))
			}
		})
	}
}

// A slug WordPress stored percent-encoded is accepted as the list shows it,
// with uppercase hex and decoded to UTF-8, as the server accepts it, and
// every spelling sends the same request.
func TestNonASCIISlug(t *testing.T) {
	const stored = "%d1%81%d0%ba%d1%80%d0%b8%d0%bf%d1%82" // скрипт
	for _, arg := range []string{stored, strings.ToUpper(stored), "скрипт"} {
		t.Run(arg, func(t *testing.T) {
			fake := newFakeAPI(t, func(n int, w http.ResponseWriter, r *http.Request) {
				writeJSONAnswer(w, 200, fakeProduct(stored))
			})
			ctl(t, nil, "--base-url", fake.base(), "product", arg).expect(t, 0, []string{"Slug:", stored}, nil)
			reqs := fake.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			// What the server's router sees once net/http decoded the path.
			if got := reqs[0].URL.Path; got != "/wp-json/shop/v1/catalog/products/"+stored {
				t.Errorf("requested %q (raw %q), want the stored form", got, reqs[0].URL.RawPath)
			}
		})
	}
}

func TestBaseURLFromEnvironment(t *testing.T) {
	fake := newFakeAPI(t, func(n int, w http.ResponseWriter, r *http.Request) { writeJSONAnswer(w, 200, fakeIndex) })
	other := newFakeAPI(t, func(n int, w http.ResponseWriter, r *http.Request) { writeJSONAnswer(w, 200, fakeIndex) })
	env := testnet.Environ("CATALOG_BASE_URL=" + fake.base() + "/")
	ctl(t, env, "catalog").expect(t, 0, []string{"Test Shop"}, nil)
	ctl(t, env, "--base-url", other.base(), "catalog").expect(t, 0, []string{"Test Shop"}, nil)
	if a, o := len(fake.requests()), len(other.requests()); a != 1 || o != 1 {
		t.Errorf("requests: %d from the variable, %d from the flag; want 1 each (the flag wins)", a, o)
	}
	if p := fake.requests()[0].URL.Path; p != "/wp-json/shop/v1/catalog" {
		t.Errorf("path %q: the trailing slash of the base URL was not trimmed", p)
	}
}

// --- in-process: the waits, through the injectable sleep ---

func TestWaitsUseTheInjectedSleep(t *testing.T) {
	date := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name      string
		handler   func(n int, w http.ResponseWriter, r *http.Request)
		args      []string
		code      int
		wantSleep []time.Duration // each within a second of these
	}{
		{
			name:    "rate-limit window between pages",
			handler: pagedProducts,
			args:    []string{"products", "--all"}, wantSleep: []time.Duration{time.Second},
		},
		{
			name: "reset of 7s",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					w.Header().Set("RateLimit-Remaining", "0")
					w.Header().Set("RateLimit-Reset", "7")
				}
				writeJSONAnswer(w, 200, api.ProductList{Page: n, PerPage: 50, Total: 2, TotalPages: 2,
					Products: []api.Product{fakeProduct(fmt.Sprintf("p%d", n))}})
			},
			args: []string{"products", "--all"}, wantSleep: []time.Duration{7 * time.Second},
		},
		{
			name: "Retry-After is capped at 60s",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					w.Header().Set("Retry-After", "3600")
					apiError(w, 429, "shop_rate_limited", "Slow down.", "")
					return
				}
				writeJSONAnswer(w, 200, fakeIndex)
			},
			args: []string{"catalog"}, wantSleep: []time.Duration{60 * time.Second},
		},
		{
			name: "Retry-After as a date",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					w.Header().Set("Retry-After", date)
					apiError(w, 503, "shop_unavailable", "Down.", "")
					return
				}
				writeJSONAnswer(w, 200, fakeIndex)
			},
			args: []string{"catalog"}, wantSleep: []time.Duration{30 * time.Second},
		},
		{
			name: "three retries, then exit 2",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "5")
				apiError(w, 503, "shop_unavailable", "Down.", "")
			},
			args: []string{"catalog"}, code: 2,
			wantSleep: []time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second},
		},
		{
			name: "no header: a short doubling backoff",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				apiError(w, 503, "shop_unavailable", "Down.", "")
			},
			args: []string{"catalog"}, code: 2,
			wantSleep: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeAPI(t, tt.handler)
			var slept []time.Duration
			var stdout, stderr bytes.Buffer
			c := &cli{getenv: func(string) string { return "" }, stdout: &stdout, stderr: &stderr,
				sleep: func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
			start := time.Now()
			code := c.main(context.Background(), append([]string{"--base-url", fake.base()}, tt.args...))
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			if len(slept) != len(tt.wantSleep) {
				t.Fatalf("slept %v, want %v", slept, tt.wantSleep)
			}
			for i, d := range slept {
				if math.Abs(float64(d-tt.wantSleep[i])) > float64(time.Second) {
					t.Errorf("sleep %d = %v, want %v", i+1, d, tt.wantSleep[i])
				}
			}
			if el := time.Since(start); el > 2*time.Second {
				t.Errorf("took %v: the real clock was used", el)
			}
		})
	}
}

func TestRunInProcess(t *testing.T) {
	fake := newFakeAPI(t, func(n int, w http.ResponseWriter, r *http.Request) { writeJSONAnswer(w, 200, fakeProduct("k9-unit")) })
	var stdout, stderr bytes.Buffer
	getenv := func(k string) string {
		if k == "CATALOG_BASE_URL" {
			return fake.base()
		}
		return ""
	}
	code := run(context.Background(), []string{"product", "k9-unit", "--json"}, getenv, strings.NewReader(""), &stdout, &stderr)
	if code != 0 || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	var p api.Product
	if err := json.Unmarshal(stdout.Bytes(), &p); err != nil || p.Slug != "k9-unit" {
		t.Errorf("stdout %q: %v", stdout.String(), err)
	}
}

// --- rendering ---

func TestTableFitsEightyColumns(t *testing.T) {
	long := fakeProduct("a-very-long-product-slug-that-goes-on-and-on-and-on")
	long.Name = "Ein außergewöhnlich langer Produktname mit Umlauten — und noch mehr Text"
	long.Frameworks = api.Frameworks
	cjk := fakeProduct("tokyo-drift-pack-%e6%9d%b1%e4%ba%ac")
	cjk.Name = "Tokyo Drift Pack 東京 東京 東京 東京 東京 東京 東京 東京"
	cjk.Price, cjk.InStock, cjk.Purchasable = nil, false, false
	short := fakeProduct("k9")
	tests := []struct {
		name     string
		products []api.Product
		want     []string
	}{
		{"empty", nil, []string{"SLUG  NAME  PRICE  STOCK  BUY  FRAMEWORKS"}},
		{"short", []api.Product{short}, []string{"k9    K9    5.00 EUR  in stock  yes  esx"}},
		{"long and wide", []api.Product{short, long, cjk}, []string{"…", "—", "out of stock", " no "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := renderTable(&b, tt.products); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			if len(lines) != 1+len(tt.products) {
				t.Errorf("%d lines, want %d:\n%s", len(lines), 1+len(tt.products), b.String())
			}
			for _, l := range lines {
				if n := utf8.RuneCountInString(l); n > 80 {
					t.Errorf("line of %d runes: %q", n, l)
				}
				if !utf8.ValidString(l) {
					t.Errorf("invalid UTF-8 (a rune cut in half): %q", l)
				}
			}
			for _, s := range tt.want {
				if !strings.Contains(b.String(), s) {
					t.Errorf("table lacks %q:\n%s", s, b.String())
				}
			}
		})
	}
}

func TestFitAndWrap(t *testing.T) {
	fits := []struct {
		in   string
		n    int
		want string
	}{
		{"Café Job", 8, "Café Job"},
		{"Café Job", 4, "Caf…"},
		{"東京東京", 3, "東京…"},
		{"abc", 1, "…"},
		{"abc", 0, ""},
	}
	for _, tt := range fits {
		if got := fit(tt.in, tt.n); got != tt.want {
			t.Errorf("fit(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
	wraps := []struct {
		in, want string
		n        int
	}{
		{"one two three", "one two\nthree\n", 7},
		{"para one\n\npara two", "para one\n\npara two\n", 80},
		{"süß süß süß", "süß süß\nsüß\n", 7},
		{"a https://example.com/very/long b", "a\nhttps://example.com/very/long\nb\n", 10},
		{"", "\n", 80},
	}
	for _, tt := range wraps {
		if got := wrap(tt.in, tt.n); got != tt.want {
			t.Errorf("wrap(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		header  map[string]string
		attempt int
		want    time.Duration
	}{
		{"Retry-After seconds", map[string]string{"Retry-After": "3"}, 0, 3 * time.Second},
		{"Retry-After wins over the reset", map[string]string{"Retry-After": "2", "RateLimit-Reset": "9"}, 0, 2 * time.Second},
		{"Retry-After date", map[string]string{"Retry-After": now.Add(10 * time.Second).Format(http.TimeFormat)}, 0, 10 * time.Second},
		{"Retry-After date passed", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, 0},
		{"capped", map[string]string{"Retry-After": "86400"}, 0, maxWait},
		{"negative", map[string]string{"Retry-After": "-5"}, 0, 0},
		{"RateLimit-Reset", map[string]string{"RateLimit-Reset": "4"}, 0, 4 * time.Second},
		{"X-RateLimit-Reset", map[string]string{"X-RateLimit-Reset": "6"}, 0, 6 * time.Second},
		{"nothing: backoff", nil, 2, 4 * time.Second},
		{"garbage: backoff", map[string]string{"Retry-After": "soon"}, 0, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := retryDelay(h, now, tt.attempt); got != tt.want {
				t.Errorf("retryDelay = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestOutputPipes checks that the text output is plain lines, so that it
// pipes into grep and friends: no terminal escapes, no carriage returns.
func TestOutputPipes(t *testing.T) {
	fake := newFakeAPI(t, func(n int, w http.ResponseWriter, r *http.Request) {
		p := fakeProduct("k9-unit")
		p.Name = "K9\tUnit\r\nDeluxe"
		writeJSONAnswer(w, 200, p)
	})
	r := ctl(t, nil, "--base-url", fake.base(), "product", "k9-unit")
	r.expect(t, 0, []string{"K9 Unit Deluxe\n"}, nil)
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		if strings.ContainsAny(sc.Text(), "\r\x1b\t") {
			t.Errorf("line with a control character: %q", sc.Text())
		}
	}
}

// TestProgressOnATerminal: with stderr a terminal, --all shows "page n/N…"
// on one line rewritten in place, clears it before a notice and before the
// table; on a pipe or a file (the binary tests) nothing is shown.
func TestProgressOnATerminal(t *testing.T) {
	fake := newFakeAPI(t, pagedProducts) // two pages, a rate-limit wait between
	var stdout, stderr bytes.Buffer
	status := &statusLine{w: &stderr}
	c := &cli{getenv: func(string) string { return "" }, stdout: &stdout, stderr: status, status: status,
		sleep: func(ctx context.Context, d time.Duration) error { return nil }}
	if code := c.main(context.Background(), []string{"--base-url", fake.base(), "products", "--all"}); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%q", code, stderr.String())
	}
	const clear = "\r\033[K"
	want := clear + "catalogctl: page 1/2…" + clear + "catalogctl: rate-limit window used up; waiting 1s before page 2\n" +
		clear + "catalogctl: page 2/2…" + clear
	if stderr.String() != want {
		t.Errorf("stderr =\n%q\nwant\n%q", stderr.String(), want)
	}
	if !strings.Contains(stdout.String(), "charlie") || strings.Contains(stdout.String(), "page 1/2") {
		t.Errorf("stdout:\n%s", stdout.String())
	}

	for name, f := range map[string]func() *os.File{
		"a pipe": func() *os.File {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close(); w.Close() })
			return w
		},
		"a file": func() *os.File {
			f, err := os.Create(filepath.Join(t.TempDir(), "log"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		},
	} {
		if isTerminal(f()) {
			t.Errorf("%s is taken for a terminal", name)
		}
	}
}
