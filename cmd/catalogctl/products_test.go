package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"catalogd/api"
)

// productsCases: products against the demo shop, whose index is idx.
func productsCases(idx api.Index) []demoCase {
	return []demoCase{
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
			name: "products on sale, with facets", args: []string{"products", "--on-sale", "--facets", "--json"},
			check: func(t *testing.T, r result) {
				var l api.ProductList
				if err := json.Unmarshal([]byte(r.stdout), &l); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, r.stdout)
				}
				for _, p := range l.Products {
					if !p.OnSale {
						t.Errorf("%s is not on sale", p.Slug)
					}
				}
				if l.Total == 0 || l.Facets == nil || l.Facets.OnSale != l.Total {
					t.Errorf("total %d, facets %+v: want the products on sale, and as many counted on sale", l.Total, l.Facets)
				}
			},
		},
		{
			name: "a search finds some products", args: []string{"products", "--search", "police", "--sort", "relevance"},
			check: func(t *testing.T, r result) {
				_, footer := tableOf(t, r.stdout)
				var pages, total int
				if _, err := fmt.Sscanf(footer, "page 1 of %d, %d products", &pages, &total); err != nil ||
					total == 0 || total >= idx.ProductCount {
					t.Errorf("paging line %q: want some of the %d products", footer, idx.ProductCount)
				}
			},
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

// TestAllPages: --all follows the list's next links, minding the rate
// limit, and stops on a link that leaves the API, loops or runs past the
// last page.
func TestAllPages(t *testing.T) {
	runFakeCases(t, []fakeCase{
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
	})
}

func TestProductsUsageErrors(t *testing.T) {
	expectUsageErrors(t, []usageCase{
		{"unknown products flag", []string{"products", "--orderby", "price"}, nil, "unknown option --orderby for products"},
		{"bad bool value", []string{"products", "--json=maybe"}, nil, `--json "maybe": want true or false`},
		{"products with an argument", []string{"products", "police"}, nil, "products takes no arguments"},
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
	})
}

// TestProgressOnATerminal: with stderr a terminal, --all shows "page n/N…"
// on one line rewritten in place, clears it before a notice and before the
// table; on a pipe or a file (the binary tests) nothing is shown.
func TestProgressOnATerminal(t *testing.T) {
	fake := newFakeAPI(t, pagedProducts) // two pages, a rate-limit wait between
	var stdout, stderr bytes.Buffer
	status := &statusLine{w: &stderr}
	c := inProcess(&stdout, status, func(ctx context.Context, d time.Duration) error { return nil })
	c.status = status
	if code := c.report(c.dispatch(context.Background(), []string{"--base-url", fake.base(), "products", "--all"})); code != 0 {
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
