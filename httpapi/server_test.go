package httpapi_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
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

const base = "/wp-json/shop/v1"

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
