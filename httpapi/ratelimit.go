package httpapi

import (
	"encoding/binary"
	"hash/maphash"
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
	peer, ok := parseHop(r.RemoteAddr)
	if !ok {
		return netip.Addr{}
	}
	if !c.isTrusted(peer) {
		return peer
	}
	client := peer
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		// Right to left, without splitting (this runs on every request).
		for line := hops[i]; ; {
			comma := strings.LastIndexByte(line, ',')
			hop := line[comma+1:]
			a, ok := parseHop(hop)
			if !ok {
				// A trusted hop wrote something that is no address ("unknown",
				// an obfuscated name): it stands for one client we cannot
				// name, who gets a window of its own — never the proxy's,
				// which every client behind it would share. Nothing further
				// left can be believed.
				return unnamedClient(strings.TrimSpace(hop))
			}
			client = a
			if !c.isTrusted(client) {
				return client
			}
			if comma < 0 {
				break
			}
			line = line[:comma]
		}
	}
	return client
}

// parseHop reads one address as proxies write them: bare, with a port
// ("203.0.113.9:4711", as Azure Application Gateway sends it), bracketed
// ("[2001:db8::7]", "[2001:db8::7]:443"), with a zone ("fe80::1%eth0",
// dropped: the zone names an interface of the proxy, not the client), or
// IPv4-mapped (unmapped, so one client has one window).
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	var a netip.Addr
	var err error
	// Pick the form by its shape rather than by trial: a failed parse
	// allocates its error, and this runs for every request's peer.
	switch {
	case len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']':
		a, err = netip.ParseAddr(s[1 : len(s)-1])
	case strings.HasPrefix(s, "[") || strings.Count(s, ":") == 1:
		var ap netip.AddrPort
		ap, err = netip.ParseAddrPort(s)
		a = ap.Addr()
	default:
		a, err = netip.ParseAddr(s)
	}
	if err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}

// unnamedSeed keys the windows of clients known only by a value that is no
// address; it lives as long as the windows do.
var unnamedSeed = maphash.MakeSeed()

// unnamedClient maps a value that is no address to an address of its own
// in 100::/64, the discard-only prefix (RFC 6666) no real client has.
func unnamedClient(s string) netip.Addr {
	var a [16]byte
	a[0] = 0x01
	binary.BigEndian.PutUint64(a[8:], maphash.String(unnamedSeed, s))
	return netip.AddrFrom16(a)
}
