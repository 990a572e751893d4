package httpapi_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"catalogd/httpapi"
)

// A health probe (HEAD of the catalog index, as the shipped Varnish VCL's
// probe sends every second) writes an access-log line when its status
// changes, not once per probe, in any of the index's spellings; every
// other request keeps its line, a GET of the index and a HEAD of another
// path included. At debug level every probe is written.
func TestProbesLoggedOnChangeOfStatus(t *testing.T) {
	const n = 50 // probes per phase
	for _, tt := range []struct {
		name  string
		lines bool // the fast AccessLog, else the slog handler
		level slog.Level
		want  int // probe lines in all
	}{
		{"access lines", true, slog.LevelInfo, 3},
		{"slog handler", false, slog.LevelInfo, 3},
		{"access lines at debug", true, slog.LevelDebug, 3 * n},
		{"slog handler at debug", false, slog.LevelDebug, 3 * n},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			fake := newFake()
			d := httpapi.Deps{Catalog: fake, AccessLog: true,
				Logger:       slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)),
				AccessLogger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: tt.level}))}
			if tt.lines {
				d.AccessLines = httpapi.NewAccessLog(&logs, httpapi.AccessLogOptions{Level: tt.level})
			}
			h := httpapi.NewServer(d)
			send := func(method, path, ua string) int {
				r := httptest.NewRequest(method, path, nil)
				r.Header.Set("User-Agent", ua)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				return w.Code
			}
			probes := func(want int) {
				t.Helper()
				for i := 0; i < n; i++ {
					// The probe's path, and WordPress's other spellings of it.
					path := []string{"/wp-json/shop/v1/catalog", "/wp-json/shop/v1/catalog/",
						"/?rest_route=/shop/v1/catalog"}[i%3]
					if got := send(http.MethodHead, path, "varnish-probe"); got != want {
						t.Fatalf("HEAD %s: %d, want %d", path, got, want)
					}
				}
			}
			probes(http.StatusOK)
			send(http.MethodGet, "/wp-json/shop/v1/catalog", "agent/1")
			fake.failWith(errUnavailable())
			probes(http.StatusServiceUnavailable)
			send(http.MethodGet, "/wp-json/shop/v1/catalog", "agent/2")
			fake.heal()
			probes(http.StatusOK)
			send(http.MethodHead, "/wp-json/shop/v1/catalog/products", "agent/3")

			var probeLines []string
			for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				if strings.Contains(l, "ua=varnish-probe") {
					probeLines = append(probeLines, l)
				}
			}
			if len(probeLines) != tt.want {
				t.Errorf("%d probes wrote %d lines, want %d:\n%s", 3*n, len(probeLines), tt.want, logs.String())
			}
			if tt.want == 3 {
				for i, status := range []string{"status=200", "status=503", "status=200"} {
					if !strings.Contains(probeLines[i], "method=HEAD") || !strings.Contains(probeLines[i], status) {
						t.Errorf("probe line %d %q, want a HEAD with %s", i+1, probeLines[i], status)
					}
				}
			}
			for _, want := range []string{"method=GET path=/wp-json/shop/v1/catalog query=\"\" status=200 cache=MISS route=getCatalogIndex",
				"status=503 cache=MISS route=getCatalogIndex took=", "method=HEAD path=/wp-json/shop/v1/catalog/products"} {
				if !strings.Contains(logs.String(), want) {
					t.Errorf("no line with %q:\n%s", want, logs.String())
				}
			}
			for _, ua := range []string{"ua=agent/1", "ua=agent/2", "ua=agent/3"} {
				if strings.Count(logs.String(), ua) != 1 {
					t.Errorf("the request with %s is not logged once:\n%s", ua, logs.String())
				}
			}
		})
	}
}
