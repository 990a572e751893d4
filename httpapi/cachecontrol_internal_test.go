package httpapi

import (
	"testing"
	"time"
)

// The lifetimes a 200 hands downstream never reach past the instant it
// changes by the clock: freshness and staleness together end by then.
func TestCacheControlCappedByExpiry(t *testing.T) {
	cc := newCacheControl(DefaultFreshness)
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	full := "public, max-age=600, s-maxage=600, stale-while-revalidate=60, stale-if-error=86400"
	tests := []struct {
		name string
		left time.Duration // until expiry; 0: none
		want string
	}{
		{"no sale date ahead", 0, full},
		{"sale in two days", 48 * time.Hour, full},
		{"sale in 11 minutes", 11 * time.Minute, "public, max-age=600, s-maxage=600, stale-while-revalidate=60, stale-if-error=60"},
		{"sale in 10 minutes 30 seconds", 10*time.Minute + 30*time.Second, "public, max-age=600, s-maxage=600, stale-while-revalidate=30, stale-if-error=30"},
		{"sale in 5 minutes", 5 * time.Minute, "public, max-age=300, s-maxage=300"},
		{"sale in 30.9 seconds", 30*time.Second + 900*time.Millisecond, "public, max-age=30, s-maxage=30"},
		{"sale in half a second", 500 * time.Millisecond, "no-store"},
		{"sale passed (a stale copy)", -time.Minute, "no-store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var until time.Time
			if tt.left != 0 {
				until = at.Add(tt.left)
			}
			if got := cc.header(until, at); len(got) != 1 || got[0] != tt.want {
				t.Errorf("Cache-Control = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMatchesETagComparesBytes(t *testing.T) {
	t.Parallel()
	const cur, gz = `"s7-0123abcd"`, `"s7-0123abcd-gzip"`
	tests := []struct {
		inm  string
		want bool
	}{
		{`"s7-0123abcd"`, true},
		{`"s6-0123abcd"`, true}, // another snapshot, the same bytes
		{`W/"s3-0123abcd-gzip"`, true},
		{`"0123abcd"`, true}, // a tag from before snapshots had versions
		{`"s7-ffffffff"`, false},
		{`"s-0123abcd"`, false},
		{`"sx-0123abcd"`, false},
		{`"s7"`, false},
		{`*`, true},
		{``, false},
		{`"a", "s1-0123abcd"`, true},
	}
	for _, tt := range tests {
		if got := matchesETag(tt.inm, cur, gz); got != tt.want {
			t.Errorf("matchesETag(%q) = %v, want %v", tt.inm, got, tt.want)
		}
	}
}
