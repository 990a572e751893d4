package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/api"
	"catalogd/internal/proctest"
)

// TestMisbehavingServers: what catalogctl says, and whether it retries,
// when the server is slow, fails, or answers with something other than
// the API's JSON.
func TestMisbehavingServers(t *testing.T) {
	runFakeCases(t, []fakeCase{
		{
			name: "no answer within --timeout",
			handler: func(n int, w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-time.After(60 * time.Second):
				}
			},
			// The handler holds for a minute: ending well before it is
			// the timeout's doing, however busy the machine.
			args: []string{"--timeout", "200ms", "catalog"}, code: 2, requests: 1,
			stderr:     []string{"catalogctl: GET ", "no complete answer within --timeout 200ms"},
			minElapsed: 200 * time.Millisecond,
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
				case <-time.After(60 * time.Second):
				}
			},
			args: []string{"--timeout", "200ms", "catalog"}, code: 2,
			stderr: []string{"reading the answer", "no complete answer within --timeout 200ms"},
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
			name:    "429 with Retry-After 1, then 200",
			handler: failFirst(429, "Retry-After", "1", fakeIndex),
			args:    []string{"catalog"}, code: 0, requests: 2, minElapsed: time.Second,
			stdout: []string{"Test Shop", "EUR"}, stderr: []string{"429 from the server; retry 1 of 3 in 1s"},
		},
		{
			name:    "503 with only RateLimit-Reset, then 200",
			handler: failFirst(503, "RateLimit-Reset", "1", fakeProduct("k9-unit")),
			args:    []string{"product", "k9-unit"}, code: 0, requests: 2, minElapsed: time.Second,
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
	})
}

// failFirst answers the first request with a 429 or 503 and the header
// that says when to retry, and every later one 200 with v.
func failFirst(status int, header, value string, v any) func(n int, w http.ResponseWriter, r *http.Request) {
	code := map[int]string{429: "shop_rate_limited", 503: "shop_unavailable"}[status]
	return func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			w.Header().Set(header, value)
			apiError(w, status, code, "Not now.", "")
			return
		}
		writeJSONAnswer(w, 200, v)
	}
}

// Nothing listening at the base URL (the demo on another port): one line
// naming the URL once and why, then a hint naming the address tried and
// both settings that move it, whichever named it.
func TestUnreachableServer(t *testing.T) {
	base := "http://" + proctest.FreeAddr(t) + "/wp-json/shop/v1"
	for _, tt := range []struct {
		name string
		env  []string
		args []string
	}{
		{"--base-url", nil, []string{"--base-url", base, "catalog"}},
		{"CATALOG_BASE_URL", append(proctest.Environ(), "CATALOG_BASE_URL="+base), []string{"products", "--all"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := ctl(t, tt.env, tt.args...)
			r.expect(t, 2, nil, []string{"catalogctl: GET " + base + "/catalog", "connection refused",
				"\nhint: is catalogd running at " + base + "? set --base-url or CATALOG_BASE_URL\n"})
			if n := strings.Count(r.stderr, base); n != 2 {
				t.Errorf("stderr names the URL %d times, want once in the error and once in the hint:\n%s", n, r.stderr)
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

func TestWaitsUseTheInjectedSleep(t *testing.T) {
	// The client's clock is fixed, so a Retry-After date is exactly 30s
	// ahead of it however long the earlier subtests took.
	now := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
	date := now.Add(30 * time.Second).Format(http.TimeFormat)
	tests := []struct {
		name      string
		handler   func(n int, w http.ResponseWriter, r *http.Request)
		args      []string
		code      int
		wantSleep []time.Duration
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
			name:    "Retry-After is capped at 60s",
			handler: failFirst(429, "Retry-After", "3600", fakeIndex),
			args:    []string{"catalog"}, wantSleep: []time.Duration{60 * time.Second},
		},
		{
			name:    "Retry-After as a date",
			handler: failFirst(503, "Retry-After", date, fakeIndex),
			args:    []string{"catalog"}, wantSleep: []time.Duration{30 * time.Second},
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
			c := inProcess(&stdout, &stderr, func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil })
			c.now = func() time.Time { return now }
			code := c.report(c.dispatch(context.Background(), append([]string{"--base-url", fake.base()}, tt.args...)))
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			// Every wait went through the injected sleep, exactly as
			// the headers ask: none was spent on the real clock.
			if !slices.Equal(slept, tt.wantSleep) {
				t.Errorf("slept %v, want %v", slept, tt.wantSleep)
			}
		})
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
