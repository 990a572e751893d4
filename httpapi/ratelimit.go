package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// window is the rate-limit window the headers describe.
const window = 60 * time.Second

// maxTrackedIPs bounds the memory the limiter uses: the least recently seen
// clients are forgotten first, and a forgotten client simply starts a fresh
// window — it gains nothing it could not get by waiting.
const maxTrackedIPs = 100_000

// rateLimiter counts requests per client IP in fixed 60-second windows.
type rateLimiter struct {
	limit   int
	enforce bool
	mu      sync.Mutex
	seen    *lru.Cache[netip.Addr, *ipWindow]
	now     func() time.Time
}

type ipWindow struct {
	start time.Time
	count int
}

func newRateLimiter(limit, size int, enforce bool) *rateLimiter {
	c, err := lru.New[netip.Addr, *ipWindow](size)
	if err != nil {
		panic(err) // only for a size < 1, a programming error
	}
	return &rateLimiter{limit: limit, enforce: enforce, seen: c, now: time.Now}
}

// take counts one request of ip and returns what is left in its window, the
// seconds until the window resets, and whether the request is over the limit.
func (l *rateLimiter) take(ip netip.Addr) (remaining, reset int, over bool) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.seen.Get(ip)
	if !ok || now.Sub(w.start) >= window {
		w = &ipWindow{start: now}
		l.seen.Add(ip, w)
	}
	w.count++
	remaining = max(l.limit-w.count, 0)
	reset = int((window - now.Sub(w.start) + time.Second - 1) / time.Second)
	return remaining, max(reset, 1), w.count > l.limit
}

// setHeaders counts the request and sets the rate-limit headers, under both
// the RateLimit-* names and the X-RateLimit-* ones. It reports whether the
// request must be refused (only when enforcement is on).
func (l *rateLimiter) setHeaders(h http.Header, ip netip.Addr) (refuse bool, reset int) {
	remaining, reset, over := l.take(ip)
	lim, rem, res := strconv.Itoa(l.limit), strconv.Itoa(remaining), strconv.Itoa(reset)
	h["Ratelimit-Limit"] = []string{lim}
	h["Ratelimit-Remaining"] = []string{rem}
	h["Ratelimit-Reset"] = []string{res}
	h["X-Ratelimit-Limit"] = []string{lim}
	h["X-Ratelimit-Remaining"] = []string{rem}
	h["X-Ratelimit-Reset"] = []string{res}
	return l.enforce && over, reset
}

// clientIPs finds the client's address: the peer, or, only when the peer is
// a trusted proxy, the right-most X-Forwarded-For address that is not a
// trusted proxy. Addresses left of it are the client's to invent, so a
// client cannot spoof its way to a fresh window.
type clientIPs struct {
	trusted []netip.Prefix
}

func (c clientIPs) isTrusted(a netip.Addr) bool {
	for _, p := range c.trusted {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

func (c clientIPs) of(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	peer = peer.Unmap()
	if !c.isTrusted(peer) {
		return peer
	}
	client := peer
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		parts := strings.Split(hops[i], ",")
		for j := len(parts) - 1; j >= 0; j-- {
			a, err := netip.ParseAddr(strings.TrimSpace(parts[j]))
			if err != nil {
				return client // garbage: trust nothing further left
			}
			client = a.Unmap()
			if !c.isTrusted(client) {
				return client
			}
		}
	}
	return client
}
