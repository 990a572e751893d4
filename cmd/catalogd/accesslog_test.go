package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"catalogd/config"
	"catalogd/httpapi"
)

// catalogd's access log writes the lines its slog logger would, in the
// configured format, and none above info: only the time and the duration
// differ between two requests.
func TestAccessLogMatchesLogger(t *testing.T) {
	volatile := regexp.MustCompile(`time=\S+|took=\S+|"time":"[^"]*"|"took":-?\d+`)
	serve := func(d httpapi.Deps) {
		t.Helper()
		r := httptest.NewRequest(http.MethodGet, "/wp-json/shop/v1/nowhere?x=1&q=%22a+b%22", nil)
		r.Header.Set("User-Agent", `probe/1 "quoted" ünïcode`)
		httpapi.NewServer(d).ServeHTTP(httptest.NewRecorder(), r)
	}
	for _, format := range []string{"text", "json"} {
		for _, level := range []string{"debug", "info", "warn", "error"} {
			t.Run(format+"/"+level, func(t *testing.T) {
				cfg := &config.Config{LogFormat: format, LogLevel: level}
				var lines, slogLines bytes.Buffer
				serve(httpapi.Deps{AccessLog: true, AccessLines: newAccessLog(cfg, &lines)})
				serve(httpapi.Deps{AccessLog: true, AccessLogger: newLogger(cfg, &slogLines)})
				got := volatile.ReplaceAllString(lines.String(), "…")
				want := volatile.ReplaceAllString(slogLines.String(), "…")
				if got != want {
					t.Errorf("line\n%q\nwant (as slog)\n%q", got, want)
				}
				if on := level == "debug" || level == "info"; on != (lines.Len() > 0) {
					t.Errorf("%d bytes logged at level %s", lines.Len(), level)
				}
			})
		}
	}
}
