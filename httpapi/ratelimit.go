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

// rateLimiter counts requests per client IP in fixed 60-second windows. The
// clients are spread over shards, each with its own lock and its share of
// the bound, so that requests of different clients do not queue on one lock.
type rateLimiter struct {
	limit   int
	enforce bool
	shards  []limiterShard
	seed    maphash.Seed
	// limH is the limit's header value; nums the values of 0…len-1, shared
	// read-only by every response, so the headers cost no formatting.
	limH []string
	nums [][]string
}

type limiterShard struct {
	mu   sync.Mutex
	seen *lru.Cache[netip.Addr, *ipWindow]
	_    [48]byte // a cache line each (8+8+48 bytes): the shards' locks do not share one
}

type ipWindow struct {
	start time.Time
	count int
}

// limiterShards is the number of shards; a bound too small to share (the
// tests' few clients) keeps one, so the least recently seen client is still
// the one forgotten.
const limiterShards = 16

// maxSharedNumbers bounds the prepared header values: the remaining count
// of a limit up to it, and every reset (at most 60).
const maxSharedNumbers = 1024

func newRateLimiter(limit, size int, enforce bool) *rateLimiter {
	n := limiterShards
	if size < 64*n {
		n = 1
	}
	l := &rateLimiter{limit: limit, enforce: enforce, shards: make([]limiterShard, n), seed: maphash.MakeSeed(),
		limH: []string{strconv.Itoa(limit)}}
	for i := range l.shards {
		c, err := lru.New[netip.Addr, *ipWindow]((size + n - 1) / n)
		if err != nil {
			panic(err) // only for a size < 1, a programming error
		}
		l.shards[i].seen = c
	}
	l.nums = make([][]string, max(min(limit, maxSharedNumbers), int(window/time.Second))+1)
	for i := range l.nums {
		l.nums[i] = []string{strconv.Itoa(i)}
	}
	return l
}

// len is the number of clients tracked.
func (l *rateLimiter) len() int {
	n := 0
	for i := range l.shards {
		n += l.shards[i].seen.Len()
	}
	return n
}

// take counts one request of ip at now and returns what is left in its
// window, the seconds until the window resets, and whether the request is
// over the limit.
func (l *rateLimiter) take(ip netip.Addr, now time.Time) (remaining, reset int, over bool) {
	sh := &l.shards[0]
	if len(l.shards) > 1 {
		b := ip.As16()
		sh = &l.shards[maphash.Bytes(l.seed, b[:])%uint64(len(l.shards))]
	}
	sh.mu.Lock()
	w, ok := sh.seen.Get(ip)
	switch {
	case !ok:
		w = &ipWindow{start: now}
		sh.seen.Add(ip, w)
	case now.Sub(w.start) >= window:
		*w = ipWindow{start: now} // a known client's next window: nothing allocated
	}
	w.count++
	count, start := w.count, w.start
	sh.mu.Unlock()
	remaining = max(l.limit-count, 0)
	reset = int((window - now.Sub(start) + time.Second - 1) / time.Second)
	return remaining, max(reset, 1), count > l.limit
}

// num is n as a header value.
func (l *rateLimiter) num(n int) []string {
	if n >= 0 && n < len(l.nums) {
		return l.nums[n]
	}
	return []string{strconv.Itoa(n)}
}

// setHeaders counts the request, made at now, and sets the rate-limit
// headers, under both the RateLimit-* names and the X-RateLimit-* ones (the
// two names share one read-only value). It reports whether the request must
// be refused (only when enforcement is on).
func (l *rateLimiter) setHeaders(h http.Header, ip netip.Addr, now time.Time) (refuse bool, reset int) {
	remaining, reset, over := l.take(ip, now)
	rem, res := l.num(remaining), l.num(reset)
	h["Ratelimit-Limit"] = l.limH
	h["Ratelimit-Remaining"] = rem
	h["Ratelimit-Reset"] = res
	h["X-Ratelimit-Limit"] = l.limH
	h["X-Ratelimit-Remaining"] = rem
	h["X-Ratelimit-Reset"] = res
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
