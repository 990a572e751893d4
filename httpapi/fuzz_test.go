package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/internal/testdb"
)

// fuzzMethods are the methods FuzzRouting picks from.
var fuzzMethods = []string{"GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH", "TRACE", "FOO"}

// FuzzRouting sends any path and raw query, as net/http would hand them to
// the handler, through the whole server over a real fixture database
// (loaded once): the answer is never a 5xx and never a panic, and it is a
// JSON body (the contract's Error for errors), except llms.txt's Markdown
// and the empty bodies of HEAD, 204 and 304.
func FuzzRouting(f *testing.F) {
	for _, s := range []struct {
		path, query string
		method      uint8
	}{
		{base + "/catalog", "", 0},
		{base + "/catalog/products", "page=2&per_page=1", 0},
		{base + "/catalog/products", "category=jobs&framework=esx", 1},
		{base + "/catalog/products/police-radar", "", 0},
		{base + "/catalog/products/Police%2FRadar", "", 0},
		{base + "/catalog/categories/", "", 2},
		{base + "/catalog/products", "page=%zz&per_page=", 3},
		{"/llms.txt", "", 0},
		{"/openapi.json", "x=1", 0},
		{"/.well-known/api-catalog", "", 1},
		{"/", "", 0},
		{"//..//%00", "%ff=%fe", 8},
	} {
		f.Add(s.path, s.query, s.method)
	}
	dsn, _ := testdb.Load(f, newShop())
	db := openDB(f, dsn, "wp_", 5*time.Second)
	cat := catalog.New(db, catalog.Config{Now: func() time.Time { return now }})
	h := httpapi.NewServer(httpapi.Deps{Catalog: cat, SiteURL: siteURL,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})

	f.Fuzz(func(t *testing.T, path, query string, m uint8) {
		method := fuzzMethods[int(m)%len(fuzzMethods)]
		target := path
		if !strings.HasPrefix(target, "/") {
			target = "/" + target
		}
		if query != "" {
			target += "?" + query
		}
		// What net/http's server would refuse before any handler runs:
		// spaces split the request line, control characters are invalid.
		for i := 0; i < len(target); i++ {
			if c := target[i]; c <= ' ' || c == 0x7f {
				t.Skip()
			}
		}
		u, err := url.ParseRequestURI(target)
		if err != nil {
			t.Skip()
		}
		req := (&http.Request{Method: method, URL: u, RequestURI: target, Proto: "HTTP/1.1", ProtoMajor: 1,
			ProtoMinor: 1, Header: http.Header{}, Host: "shop.example", RemoteAddr: "192.0.2.1:1234",
			Body: http.NoBody}).WithContext(context.Background())
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		status, body := rec.Code, rec.Body.Bytes()
		if status >= 500 {
			t.Fatalf("%s %s: %d %s", method, target, status, body)
		}
		if method == "HEAD" || status == http.StatusNoContent || status == http.StatusNotModified {
			if len(body) != 0 {
				t.Fatalf("%s %s: %d with a body", method, target, status)
			}
			return
		}
		ct, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type"))
		if ct == "text/markdown" {
			if p := strings.TrimRight(u.Path, "/"); p != "/llms.txt" || status != http.StatusOK {
				t.Fatalf("%s %s: %d Markdown", method, target, status)
			}
			return
		}
		if ct != "application/json" && ct != "application/linkset+json" {
			t.Fatalf("%s %s: %d with Content-Type %q", method, target, status, rec.Header().Get("Content-Type"))
		}
		var v map[string]any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("%s %s: %d, not a JSON object: %v: %.300q", method, target, status, err, body)
		}
		if status >= 400 {
			code, _ := v["code"].(string)
			data, _ := v["data"].(map[string]any)
			if !strings.HasPrefix(code, "shop_") || data["status"] != float64(status) {
				t.Fatalf("%s %s: %d, not the contract's error: %s", method, target, status, body)
			}
		}
	})
}
