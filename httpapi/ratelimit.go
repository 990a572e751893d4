package httpapi

import (
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// window is the rate-limit window the headers describe.
const window = 60 * time.Second

// maxTrackedIPs bounds the memory the advisory limiter uses: the least
// recently seen clients are forgotten first, and a forgotten client simply
// starts a fresh window.
const maxTrackedIPs = 100_000

// rateLimiter counts requests per client IP in fixed 60-second windows, for
// the advisory RateLimit headers.
type rateLimiter struct {
	limit int
	mu    sync.Mutex
	seen  *lru.Cache[string, *ipWindow]
	now   func() time.Time
}

type ipWindow struct {
	start time.Time
	count int
}

func newRateLimiter(limit, size int) *rateLimiter {
	c, err := lru.New[string, *ipWindow](size)
	if err != nil {
		panic(err) // only for a size < 1, a programming error
	}
	return &rateLimiter{limit: limit, seen: c, now: time.Now}
}

// take counts one request of ip and returns what is left in its window and
// the seconds until the window resets.
func (l *rateLimiter) take(ip string) (remaining, reset int) {
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
	return remaining, max(reset, 1)
}

// setHeaders counts the request and sets the rate-limit headers, under both
// the RateLimit-* names and the X-RateLimit-* ones.
func (l *rateLimiter) setHeaders(h http.Header, ip string) {
	remaining, reset := l.take(ip)
	for _, prefix := range []string{"", "X-"} {
		h.Set(prefix+"RateLimit-Limit", strconv.Itoa(l.limit))
		h.Set(prefix+"RateLimit-Remaining", strconv.Itoa(remaining))
		h.Set(prefix+"RateLimit-Reset", strconv.Itoa(reset))
	}
}

// clientIP is the peer's address. (Trusted proxies' X-Forwarded-For comes
// with the origin cache work; until then a client cannot claim another IP.)
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
