package httpapi

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The access log writes one line per request, with every field, when it is
// on and the logger takes info; otherwise nothing.
func TestAccessLog(t *testing.T) {
	tests := []struct {
		name      string
		on        bool
		level     slog.Level
		own       bool // the access log has its own logger
		wantLines int
	}{
		{"on", true, slog.LevelInfo, false, 1},
		{"on, logger at warn", true, slog.LevelWarn, false, 0},
		{"off", false, slog.LevelInfo, false, 0},
		{"on, own logger", true, slog.LevelInfo, true, 1},
		{"on, own logger at warn", true, slog.LevelWarn, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs, other bytes.Buffer
			d := Deps{Catalog: nil, AccessLog: tt.on,
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: tt.level}))}
			if tt.own {
				// The lines go to the access logger, none to the other.
				d.AccessLogger = d.Logger
				d.Logger = slog.New(slog.NewTextHandler(&other, nil))
			}
			h := NewServer(d)
			r := httptest.NewRequest(http.MethodGet, "/nowhere/?x=1", nil)
			r.Header.Set("User-Agent", "probe/1")
			h.ServeHTTP(httptest.NewRecorder(), r)
			lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
			if logs.Len() == 0 {
				lines = nil
			}
			if len(lines) != tt.wantLines {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), tt.wantLines, logs.String())
			}
			if tt.wantLines == 0 {
				return
			}
			for _, want := range []string{"time=", "level=INFO", "msg=request", "method=GET", "path=/nowhere ",
				`query="x=1"`, "status=404", "cache=MISS", "route=other", "took=", "ua=probe/1"} {
				if !strings.Contains(lines[0], want) {
					t.Errorf("line %q lacks %q", lines[0], want)
				}
			}
			if other.Len() > 0 {
				t.Errorf("the other logger got %q", other.String())
			}
			if strings.Contains(lines[0], "source=") {
				t.Errorf("line %q names a source position", lines[0])
			}
		})
	}
}

// A revalidation answered 304 and a HEAD, both from the cache, are logged
// with their status and the cache's word on them, read as the header was
// written.
func TestAccessLogNotModified(t *testing.T) {
	var logs bytes.Buffer
	h := NewServer(Deps{AccessLog: true, Cache: NewCache(DefaultCacheConfig),
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	etag := w.Header().Get("ETag")
	if w.Code != http.StatusOK || etag == "" {
		t.Fatalf("GET /openapi.json: %d, ETag %q", w.Code, etag)
	}
	r := httptest.NewRequest(http.MethodGet, "/openapi.json", nil)
	r.Header.Set("If-None-Match", etag)
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusNotModified {
		t.Fatalf("revalidation: %d, want 304", w.Code)
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodHead, "/openapi.json", nil))
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), logs.String())
	}
	for i, want := range []string{"method=GET path=/openapi.json query=\"\" status=200 cache=MISS",
		"method=GET path=/openapi.json query=\"\" status=304 cache=HIT",
		"method=HEAD path=/openapi.json query=\"\" status=200 cache=HIT"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d %q lacks %q", i, lines[i], want)
		}
	}
}
