package httpapi_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/wpdb"
)

// TestOpenAPIIsCurrent fails when the checked-in openapi.json no longer is
// what the route table and types generate: run `go generate ./httpapi`.
func TestOpenAPIIsCurrent(t *testing.T) {
	committed, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, httpapi.OpenAPI("shop", httpapi.DocServerURL)) {
		t.Fatal("httpapi/openapi.json is stale: run `go generate ./httpapi` and commit it")
	}
}

// TestContract loads the served document, checks it is valid OpenAPI 3.1,
// and validates every response the suite provokes — every operation and
// every error status — against it.
func TestContract(t *testing.T) {
	dsn := loadShop(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	mk := func(db *wpdb.DB, enforce bool) *httptest.Server {
		cat := catalog.New(db, catalog.Config{Now: func() time.Time { return now }})
		srv := httptest.NewServer(httpapi.NewServer(httpapi.Deps{Catalog: cat, SiteURL: siteURL, Logger: logger,
			Cache: httpapi.NewCache(httpapi.DefaultCacheConfig), RateLimit: 2, EnforceRateLimit: enforce}))
		t.Cleanup(srv.Close)
		return srv
	}
	good := mk(openDB(t, dsn, "wp_", 5*time.Second), false)

	a := get(t, good, "/openapi.json")
	b := get(t, good, "/.well-known/openapi.json")
	if a.status != 200 || !bytes.Equal(a.body, b.body) || a.header.Get("ETag") != b.header.Get("ETag") {
		t.Fatalf("the two OpenAPI addresses differ: %d/%d, ETag %q/%q", a.status, b.status, a.header.Get("ETag"), b.header.Get("ETag"))
	}
	doc, err := libopenapi.NewDocument(a.body)
	if err != nil {
		t.Fatal(err)
	}
	if v := doc.GetVersion(); v != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", v)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("document: %s: %s", e.Message, e.Reason)
		}
	}

	// The errors the catalog can return come from a fake: the answers of a
	// catalog that loaded do not depend on the database staying up. Its
	// healthy answers are checked too, so the fake stays a valid catalog.
	fake := serveFake(t, newFake(), nil)
	down := serveFake(t, newFake().failWith(errUnavailable()), nil)
	broken := serveFake(t, newFake().failWith(errInternal()), nil)
	plain := serveFake(t, newFake().failWith(errPlain()), nil)
	panicking := serveFake(t, newFake().panicWith(errPlain()), nil)
	limited := mk(openDB(t, dsn, "wp_", 5*time.Second), true)

	etag := get(t, good, base+"/catalog").header.Get("ETag")
	lastMod := time.Now().UTC().Format(http.TimeFormat)
	cases := []struct {
		srv    *httptest.Server
		method string
		path   string
		hdr    map[string]string
		status int
	}{
		{good, "GET", "/catalog", nil, 200},
		{good, "GET", "/catalog/categories", nil, 200},
		{good, "GET", "/catalog/products", nil, 200},
		{good, "GET", "/catalog/products?per_page=1&page=2&category=jobs", nil, 200},
		{good, "GET", "/catalog/products?framework=esx", nil, 200},
		{good, "GET", "/catalog/products?search=police&orderby=relevance&per_page=2", nil, 200},
		{good, "GET", "/catalog/products?orderby=price&order=desc&min_price=1&max_price=100", nil, 200},
		{good, "GET", "/catalog/products?in_stock=true&on_sale=false&facets=true", nil, 200},
		{good, "GET", "/catalog/products?search=&orderby=date&order=asc&facets=false", nil, 200},
		{good, "GET", "/catalog/products/police-radar", nil, 200},
		{good, "GET", "/catalog/products/free-thing", nil, 200},
		{good, "GET", "/catalog", map[string]string{"If-None-Match": etag}, 304},
		{good, "GET", "/catalog/products/police-radar", map[string]string{"If-Modified-Since": lastMod}, 304},
		{good, "GET", "/catalog/products?per_page=2", map[string]string{"If-Modified-Since": lastMod}, 304},
		{good, "GET", "/catalog/products?page=0", nil, 400},
		{good, "GET", "/catalog/products?per_page=51", nil, 400},
		{good, "GET", "/catalog/products?category=nope", nil, 400},
		{good, "GET", "/catalog/products?framework=vrp", nil, 400},
		{good, "GET", "/catalog/products?page=99", nil, 400},
		{good, "GET", "/catalog/products?search=" + strings.Repeat("x", 201), nil, 400},
		{good, "GET", "/catalog/products?orderby=relevance", nil, 400},
		{good, "GET", "/catalog/products?orderby=rating&order=asc", nil, 400},
		{good, "GET", "/catalog/products?orderby=price-desc", nil, 400},
		{good, "GET", "/catalog/products?min_price=10&max_price=5", nil, 400},
		{good, "GET", "/catalog/products?max_price=1e3", nil, 400},
		{good, "GET", "/catalog/products?in_stock=yes&on_sale=1&facets=TRUE", nil, 400},
		{good, "GET", "/catalog/products/Bad_Slug", nil, 400},
		{good, "GET", "/catalog/products/no-such-product", nil, 404},
		{good, "GET", "/catalog/products/%d1%81%d0%ba", nil, 404},
		{good, "POST", "/catalog/products", nil, 405},
		{fake, "GET", "/catalog", nil, 200},
		{fake, "GET", "/catalog/categories", nil, 200},
		{fake, "GET", "/catalog/products", nil, 200},
		{fake, "GET", "/catalog/products?facets=true", nil, 200},
		{fake, "GET", "/catalog/products/" + fakeSlug, nil, 200},
		{down, "GET", "/catalog/products", nil, 503},
		{down, "GET", "/catalog/products/" + fakeSlug, nil, 503},
		{broken, "GET", "/catalog", nil, 500},
		{plain, "GET", "/catalog/categories", nil, 500},
		{panicking, "GET", "/catalog/products", nil, 500},
	}
	for i := 0; i < 3; i++ {
		want := 200
		if i == 2 {
			want = 429
		}
		cases = append(cases, struct {
			srv    *httptest.Server
			method string
			path   string
			hdr    map[string]string
			status int
		}{limited, "GET", "/catalog", nil, want})
	}
	for _, c := range cases {
		r := do(t, c.srv, c.method, base+c.path, c.hdr)
		if r.status != c.status {
			t.Errorf("%s %s: status %d, want %d: %s", c.method, c.path, r.status, c.status, r.body)
			continue
		}
		if c.method != http.MethodGet {
			// The document describes the operations, which are GETs; a
			// 405 to another method is checked for the Error shape.
			checkError(t, r, http.StatusMethodNotAllowed, "shop_method_not_allowed")
			continue
		}
		// Validate as the document's server sees it: the base URL.
		req, _ := http.NewRequest(c.method, siteURL+base+c.path, nil)
		resp := &http.Response{StatusCode: r.status, Header: r.header, Body: io.NopCloser(bytes.NewReader(r.body)), Request: req}
		if ok, verrs := v.ValidateHttpResponse(req, resp); !ok {
			for _, e := range verrs {
				t.Errorf("%s %s (%d) drifts from the document: %s: %s", c.method, c.path, r.status, e.Message, e.Reason)
				for _, se := range e.SchemaValidationErrors {
					t.Errorf("    %s: %s", se.FieldPath, se.Reason)
				}
			}
		}
		if !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") && r.status != 304 {
			t.Errorf("%s: Content-Type %q", c.path, r.header.Get("Content-Type"))
		}
	}

	// The check has teeth: a list whose product carries a description, a
	// product without its price key, a response without its Cache-Control,
	// with a Last-Modified that is no HTTP date, or without its paging
	// headers drifts from the document.
	listPath := base + "/catalog/products?per_page=1"
	list := get(t, good, listPath)
	edited := func(edit func(http.Header)) http.Header {
		h := list.header.Clone()
		edit(h)
		return h
	}
	unchanged := func(http.Header) {}
	for name, drift := range map[string]struct {
		body   string
		header http.Header
	}{
		"description in the list": {strings.Replace(string(list.body), `"summary":`, `"description":"x","summary":`, 1), list.header},
		"price missing":           {strings.Replace(string(list.body), `"price":"20.00",`, ``, 1), list.header},
		"no Cache-Control":        {string(list.body), edited(func(h http.Header) { h.Del("Cache-Control") })},
		"Last-Modified no date":   {string(list.body), edited(func(h http.Header) { h.Set("Last-Modified", "2026-11-21 12:00:00") })},
		"X-WP-Total missing":      {string(list.body), edited(func(h http.Header) { h.Del("X-WP-Total") })},
		"X-WP-TotalPages missing": {string(list.body), edited(func(h http.Header) { h.Del("X-WP-TotalPages") })},
		"X-WP-Total not a count":  {string(list.body), edited(func(h http.Header) { h.Set("X-WP-Total", "-1") })},
		"Link not a link":         {string(list.body), edited(func(h http.Header) { h.Set("Link", "page 2") })},
		"as served (the control)": {string(list.body), edited(unchanged)},
	} {
		h := drift.header.Clone()
		h.Del("Content-Encoding")
		req, _ := http.NewRequest(http.MethodGet, siteURL+listPath, nil)
		resp := &http.Response{StatusCode: 200, Header: h,
			Body: io.NopCloser(strings.NewReader(drift.body)), Request: req}
		ok, errs := v.ValidateHttpResponse(req, resp)
		if control := name == "as served (the control)"; ok != control {
			t.Errorf("%s: validation passed = %v, want %v (%v)", name, ok, control, errs)
		}
	}

	// And the facets' shape: a count that is no number, a price that is no
	// decimal string or a facet the document does not name drifts.
	facetsPath := base + "/catalog/products?facets=true"
	faceted := get(t, fake, facetsPath)
	if !strings.Contains(string(faceted.body), `"facets":{`) {
		t.Fatalf("the fake list has no facets: %s", faceted.body)
	}
	for name, body := range map[string]string{
		"a count as a string":     strings.Replace(string(faceted.body), `"jobs":1`, `"jobs":"1"`, 1),
		"a price as a number":     strings.Replace(string(faceted.body), `"min":"20.00"`, `"min":20`, 1),
		"an unnamed facet":        strings.Replace(string(faceted.body), `"on_sale":0,`, `"on_sale":0,"rating":{},`, 1),
		"as served (the control)": string(faceted.body),
	} {
		h := faceted.header.Clone()
		h.Del("Content-Encoding")
		req, _ := http.NewRequest(http.MethodGet, siteURL+facetsPath, nil)
		resp := &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: req}
		ok, errs := v.ValidateHttpResponse(req, resp)
		if control := name == "as served (the control)"; ok != control || !control && body == string(faceted.body) {
			t.Errorf("facets, %s: validation passed = %v, want %v (%v)", name, ok, control, errs)
		}
	}
}
