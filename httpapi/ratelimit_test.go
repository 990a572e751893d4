package httpapi

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestRateLimitWindow(t *testing.T) {
	clock := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	l := newRateLimiter(3, 100, false)
	ip := netip.MustParseAddr("192.0.2.1")
	for i, want := range []int{2, 1, 0, 0} {
		rem, reset, over := l.take(ip, clock)
		if rem != want || reset != 60 || over != (i >= 3) {
			t.Errorf("request %d: remaining %d reset %d over %v; want %d 60 %v", i+1, rem, reset, over, want, i >= 3)
		}
	}
	clock = clock.Add(45 * time.Second)
	if _, reset, _ := l.take(ip, clock); reset != 15 {
		t.Errorf("reset after 45s = %d, want 15", reset)
	}
	if rem, _, _ := l.take(netip.MustParseAddr("192.0.2.2"), clock); rem != 2 {
		t.Errorf("another client shares the window: remaining %d", rem)
	}
	clock = clock.Add(15 * time.Second)
	if rem, reset, over := l.take(ip, clock); rem != 2 || reset != 60 || over {
		t.Errorf("new window: remaining %d reset %d over %v", rem, reset, over)
	}
}

func TestClientIP(t *testing.T) {
	trusted := clientIPs{trusted: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32")}}
	tests := []struct {
		name, peer string
		xff        []string
		want       string
	}{
		{"untrusted peer: its header is ignored", "198.51.100.7:1234", []string{"1.2.3.4"}, "198.51.100.7"},
		{"trusted peer: right-most untrusted address", "127.0.0.1:5000", []string{"6.6.6.6, 203.0.113.9"}, "203.0.113.9"},
		{"spoofed left part is skipped", "10.0.0.2:80", []string{"1.1.1.1, 203.0.113.9, 10.0.0.5"}, "203.0.113.9"},
		{"several headers", "127.0.0.1:5000", []string{"1.1.1.1", "203.0.113.9"}, "203.0.113.9"},
		{"garbage stops the walk, in its own bucket", "127.0.0.1:5000", []string{"203.0.113.9, nonsense"}, "own:nonsense"},
		{"unknown is its own bucket, not the proxy's", "10.0.0.2:80", []string{"unknown"}, "own:unknown"},
		{"IPv4 with a port (Azure Application Gateway)", "10.0.0.2:80", []string{"203.0.113.9:4711"}, "203.0.113.9"},
		{"IPv4 with a port behind a spoofed one", "10.0.0.2:80", []string{"1.1.1.1:1, 203.0.113.9:4711"}, "203.0.113.9"},
		{"bracketed IPv6 with a port", "10.0.0.2:80", []string{"[2001:db8::7]:443"}, "2001:db8::7"},
		{"bracketed IPv6", "10.0.0.2:80", []string{"[2001:db8::7]"}, "2001:db8::7"},
		{"IPv6 with a zone", "10.0.0.2:80", []string{"fe80::1%eth0"}, "fe80::1"},
		{"bracketed IPv6 with a zone and a port", "10.0.0.2:80", []string{"[fe80::1%eth0]:80"}, "fe80::1"},
		{"IPv4-mapped IPv6", "10.0.0.2:80", []string{"::ffff:203.0.113.9"}, "203.0.113.9"},
		{"trusted proxy with a port is skipped", "10.0.0.2:80", []string{"203.0.113.9, 10.0.0.7:8080"}, "203.0.113.9"},
		{"empty element is garbage", "10.0.0.2:80", []string{"203.0.113.9, "}, "own:"},
		{"all trusted: the left-most", "127.0.0.1:5000", []string{"10.0.0.9"}, "10.0.0.9"},
		{"no header", "127.0.0.1:5000", nil, "127.0.0.1"},
		{"IPv6 peer", "[2001:db8::1]:443", []string{"1.2.3.4"}, "2001:db8::1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tt.peer
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			got := trusted.of(r)
			if garbage, ok := strings.CutPrefix(tt.want, "own:"); ok {
				// A value that is no address is that client's own bucket:
				// never the proxy's shared one, the same for the same value,
				// another for another value.
				other := httptest.NewRequest(http.MethodGet, "/", nil)
				other.RemoteAddr = tt.peer
				other.Header.Set("X-Forwarded-For", garbage+"x")
				if !got.IsValid() || trusted.isTrusted(got) || got == trusted.of(other) || got != trusted.of(r.Clone(r.Context())) {
					t.Errorf("client = %s for %q: not a bucket of its own", got, garbage)
				}
				return
			}
			if got.String() != tt.want {
				t.Errorf("client = %s, want %s", got, tt.want)
			}
		})
	}
}

// A client cannot reset its window by sending a fresh X-Forwarded-For.
func TestSpoofedForwardedForKeepsTheWindow(t *testing.T) {
	h := NewServer(Deps{Catalog: nil, RateLimit: 5})
	var last int
	for i := 0; i < 5; i++ {
		r := httptest.NewRequest(http.MethodGet, "/nowhere", nil)
		r.RemoteAddr = "198.51.100.7:1000"
		r.Header.Set("X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		last, _ = strconv.Atoi(w.Header().Get("RateLimit-Remaining"))
	}
	if last != 0 {
		t.Errorf("remaining after 5 requests with 5 forged addresses = %d, want 0", last)
	}
}

func TestRateLimitEnforced(t *testing.T) {
	h := NewServer(Deps{Catalog: nil, RateLimit: 2, EnforceRateLimit: true})
	codes := []int{}
	var last *httptest.ResponseRecorder
	for i := 0; i < 3; i++ {
		r := httptest.NewRequest(http.MethodGet, "/nowhere", nil)
		last = httptest.NewRecorder()
		h.ServeHTTP(last, r)
		codes = append(codes, last.Code)
	}
	if codes[0] != 404 || codes[1] != 404 || codes[2] != http.StatusTooManyRequests {
		t.Fatalf("codes = %v, want 404 404 429", codes)
	}
	if last.Header().Get("Retry-After") == "" || last.Header().Get("RateLimit-Remaining") != "0" {
		t.Errorf("429 headers: %v", last.Header())
	}
	if body := last.Body.String(); !contains(body, `"code":"shop_rate_limited"`) || !contains(body, `"hint"`) {
		t.Errorf("429 body = %s", body)
	}
}

// A client over its limit is no failure of the server: with the access log
// off, nothing is logged at info or above (an operator's error alerts must
// not fire because a client is greedy).
func TestRateLimitedNotLoggedAsError(t *testing.T) {
	var logs bytes.Buffer
	h := NewServer(Deps{Catalog: nil, RateLimit: 1, EnforceRateLimit: true,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	for i := 0; i < 3; i++ {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/nowhere", nil))
		if i > 0 && w.Code != http.StatusTooManyRequests {
			t.Fatalf("request %d: %d, want 429", i+1, w.Code)
		}
	}
	if logs.Len() > 0 {
		t.Errorf("429s logged at info or above with the access log off:\n%s", logs.String())
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// A million distinct clients do not grow the limiter past its bound.
func TestRateLimiterMemoryBounded(t *testing.T) {
	l := newRateLimiter(60, maxTrackedIPs, false)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	now := time.Now()
	for i := 0; i < 1_000_000; i++ {
		a := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		l.take(a, now)
	}
	if n := l.len(); n > maxTrackedIPs {
		t.Errorf("tracking %d clients, bound %d", n, maxTrackedIPs)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 64<<20 {
		t.Errorf("heap grew %d MiB for 1e6 clients", grown>>20)
	}
}
