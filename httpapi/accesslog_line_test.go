package httpapi

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"testing"
	"time"
)

// slogLine is the line slog's handler writes for e's record, the reference
// AccessLog's lines are held to.
func slogLine(t testing.TB, e *accessEntry, json bool) string {
	t.Helper()
	var buf bytes.Buffer
	var h slog.Handler = slog.NewTextHandler(&buf, nil)
	if json {
		h = slog.NewJSONHandler(&buf, nil)
	}
	if err := h.Handle(context.Background(), accessRecord(e)); err != nil {
		t.Fatalf("slog: %v", err)
	}
	return buf.String()
}

// checkLine fails unless AccessLog writes slog's line for e, in both
// formats.
func checkLine(t *testing.T, e *accessEntry) {
	t.Helper()
	for _, json := range []bool{false, true} {
		var buf bytes.Buffer
		NewAccessLog(&buf, AccessLogOptions{JSON: json}).write(e)
		if got, want := buf.String(), slogLine(t, e, json); got != want {
			t.Fatalf("json=%v, %+v:\n got %q\nwant %q", json, *e, got, want)
		}
	}
}

// The lines are slog's, byte for byte, for typical and awkward requests:
// an operator's parser (or grep) must not see a difference when the fast
// writer replaced the slog handler.
func TestAccessLogLine(t *testing.T) {
	now := time.Now() // with a monotonic reading, as the server's times
	berlin := time.FixedZone("CET", 3600)
	tests := []struct {
		name string
		e    accessEntry
	}{
		{"hit", accessEntry{now, "GET", "/wp-json/shop/v1/catalog/products", "per_page=20", 200, "HIT",
			"listProducts", 1234 * time.Nanosecond, "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0"}},
		{"empty strings", accessEntry{now, "", "", "", 0, "", "", 0, ""}},
		{"zero time", accessEntry{time.Time{}, "GET", "/", "", 404, "MISS", "other", time.Second, "x"}},
		{"zone and whole millisecond", accessEntry{time.Date(2026, 1, 2, 3, 4, 5, 6e6, berlin), "HEAD", "/a b",
			`q="x"&y=\`, 304, "STALE", "getProduct", -90 * time.Minute, "ua\twith\ncontrols\x00\x7f"}},
		{"unicode", accessEntry{time.Date(2026, 5, 6, 7, 8, 9, 999999999, time.UTC), "GET", "/produkte/größe",
			"s=ö\u00a0\u2028\u2029\u200b", 200, "HIT", "getProduct", time.Hour, "日本語 🚀"}},
		{"invalid utf-8", accessEntry{now, "G\xffT", "/\xc3", "q=\xed\xa0\x80", 400, "", "other", 1, "\xff\xfe"}},
		{"year out of json range", accessEntry{time.Date(12345, 1, 1, 0, 0, 0, 0, time.UTC), "GET", "/", "", 200,
			"HIT", "other", math.MaxInt64, "x"}},
		{"negative year", accessEntry{time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC), "GET", "/", "", -1,
			"HIT", "other", math.MinInt64, "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkLine(t, &tt.e) })
	}
}

// FuzzAccessLogLine holds AccessLog's lines to slog's, text and JSON, for
// arbitrary strings, statuses, durations and times.
func FuzzAccessLogLine(f *testing.F) {
	f.Add("GET", "/wp-json/shop/v1/catalog/products", "per_page=20", "curl/8.0", "HIT", 200,
		int64(1234), int64(1763900000), int64(123456789), 0)
	f.Add("", "/a b", `x="1"=\`, "\x00\t\n\r\x1b\x7f", "", 304, int64(-1), int64(0), int64(0), 3600)
	f.Add("G\xffT", "/größe", "\u2028\u2029\u00a0\u200b\ufeff", "🚀 日本", "STALE", -7,
		int64(math.MaxInt64), int64(-62135596800), int64(999999999), -5*3600-1800)
	f.Add("HEAD", "\xc3", "\xed\xa0\x80", `\u0000`, "MISS", 1<<40, int64(math.MinInt64), int64(253402300800), int64(1), 1)
	f.Fuzz(func(t *testing.T, method, path, query, ua, cache string, status int, took, sec, nsec int64, offset int) {
		// Times a server could plausibly stamp, and well beyond: years
		// -9999 to 19999, any zone within a day.
		const span = 20000 * 366 * 86400
		sec %= span
		offset %= 86400
		tm := time.Unix(sec, nsec).UTC()
		if offset != 0 {
			tm = tm.In(time.FixedZone("", offset))
		}
		checkLine(t, &accessEntry{time: tm, method: method, path: path, query: query, status: status,
			cache: cache, route: "listProducts", took: time.Duration(took), ua: ua})
	})
}

// The level is the slog handler's: no line above info.
func TestAccessLogLevel(t *testing.T) {
	tests := []struct {
		level slog.Leveler
		want  bool
	}{
		{nil, true}, {slog.LevelDebug, true}, {slog.LevelInfo, true}, {slog.LevelWarn, false}, {slog.LevelError, false},
	}
	for _, tt := range tests {
		if got := NewAccessLog(nil, AccessLogOptions{Level: tt.level}).enabled(); got != tt.want {
			t.Errorf("level %v: enabled = %v, want %v", tt.level, got, tt.want)
		}
	}
}
