package httpapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"catalogd/api"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"
)

// CacheConfig bounds the origin cache.
type CacheConfig struct {
	TTL        time.Duration // how long a response is served from memory; 0 turns the cache off
	StaleFor   time.Duration // how long a copy may stand in when the database fails
	MaxEntries int
	// MaxBytes bounds the memory the entries hold: bodies, gzip copies,
	// headers, keys and bookkeeping, counted as the heap holds them.
	MaxBytes int64
	// MaxEntryBytes is the largest response kept (its plain body and
	// bookkeeping); 0 is a quarter of MaxBytes. A larger one is answered
	// from the database at every request, and is never gzipped, so one
	// such request costs at most its own encoding and hash.
	MaxEntryBytes int64
	// Now is the cache's clock (freshness, stale age, the lifetimes left
	// before a sale boundary, the change log's times); nil is time.Now.
	// Tests set it to move time without sleeping.
	Now func() time.Time
}

// DefaultCacheConfig is ten minutes fresh, a day stale, 10 000 responses or
// 64 MiB, whichever is reached first.
var DefaultCacheConfig = CacheConfig{TTL: 10 * time.Minute, StaleFor: 24 * time.Hour,
	MaxEntries: 10_000, MaxBytes: 64 << 20}

// Cache keeps finished responses in memory: status, headers, body, a gzip
// copy and the ETag, keyed by the normalized request. It is bounded by
// entries and bytes, and cleared (made stale) by Invalidate when the shop
// changes. Concurrent misses for one key make one database round.
type Cache struct {
	cfg CacheConfig
	now func() time.Time
	gen atomic.Uint64 // bumped by Invalidate: older entries are stale
	// drops is bumped by Drop, under mu: a fill begun before a drop is not
	// kept, as it may show what the drop took out.
	drops atomic.Uint64
	group singleflight.Group

	mu    sync.Mutex
	lru   *lru.Cache[string, *entry]
	bytes int64
	// kindTags are the purge tags of every kind of response, set by the
	// server: a change may touch any kind. Under mu.
	kindTags []string
	ns       string
	// dropping is set while Drop removes entries, under mu: the eviction
	// callback then counts no eviction and no loss (Drop names the tags).
	dropping bool
	// lost counts, since the last change, the responses of the current
	// generation that were evicted or too large to keep: a CDN may hold
	// them, and their tags are unknown here. An evicted entry of an older
	// generation is no loss: the change that made it old named its tags.
	lost atomic.Int64

	stats   cacheStats
	changes changeLog
}

// cacheStats are counted for the metrics.
type cacheStats struct {
	hits, misses, stale, evictions atomic.Int64
	unheld                         atomic.Int64 // responses too large to keep
}

// entry is one finished response.
type entry struct {
	status int
	header http.Header // the handler's own headers
	body   []byte
	etag   string // strong, of the plain body
	gzEtag string // the gzip copy's: etag+"-gzip", made once for every conditional request
	// Header values prepared once, shared read-only by every hit.
	etagH, lenH []string
	stored      time.Time
	freshUntil  time.Time
	gen, drops  uint64
	// until is when the response stops being true by the clock (a sale
	// starts or ends); zero: not by the clock. Downstream lifetimes are
	// capped by it at every serve.
	until time.Time
	// lastMod is the Last-Modified, to the second; lastModH its header.
	lastMod  time.Time
	lastModH []string
	// tags are the purge tags; cacheTagH and surrogateKeyH their headers.
	tags                     []string
	cacheTagH, surrogateKeyH []string

	// The gzip copy is made by the first request that takes gzip, once:
	// clients that never ask for it cost no compression and no memory.
	gzOnce          sync.Once
	gzDone          atomic.Bool // set after gzOnce: the hit path's check, without a closure
	gz              []byte      // nil: not worth compressing, or too large to
	gzEtagH, gzLenH []string

	// Under Cache.mu: the bytes counted for the entry, and whether the
	// cache holds it (a gzip copy made later is counted only then).
	counted int64
	held    bool
}

// entryOverhead is what an entry costs besides its bodies, key and header
// values: the entry and its prepared header slices and strings, the
// header map, the LRU's list element and map slot. Measured with
// TestCacheAccountsItsMemory (go1.26, amd64); keep it in step.
const entryOverhead = 900

// memSize is the heap an entry held under key takes, as the allocator
// hands it out (capacities, not lengths).
func (e *entry) memSize(key string) int64 {
	n := entryOverhead + cap(e.body) + cap(e.gz) + len(key)
	if e.lastModH != nil {
		n += 16 + len(e.lastModH[0])
	}
	if e.tags != nil {
		// The tags, and both headers that join them.
		n += 16*cap(e.tags) + 2*16 + len(e.cacheTagH[0]) + len(e.surrogateKeyH[0])
		for _, t := range e.tags {
			n += len(t)
		}
	}
	for k, v := range e.header {
		n += len(k) + 16*cap(v)
		for _, s := range v {
			n += len(s)
		}
	}
	return int64(n)
}

// NewCache returns an empty cache.
func NewCache(cfg CacheConfig) *Cache {
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = DefaultCacheConfig.MaxEntries
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultCacheConfig.MaxBytes
	}
	if cfg.MaxEntryBytes <= 0 || cfg.MaxEntryBytes > cfg.MaxBytes {
		// One response may not push out most of the others.
		cfg.MaxEntryBytes = cfg.MaxBytes / 4
	}
	c := &Cache{cfg: cfg, now: cfg.Now}
	if c.now == nil {
		c.now = time.Now
	}
	// The eviction callback runs under c.mu (every Add and Remove is made
	// with it held), so the byte count stays exact.
	c.lru, _ = lru.NewWithEvict(cfg.MaxEntries, func(_ string, e *entry) {
		c.bytes -= e.counted
		e.held = false
		if c.dropping {
			return
		}
		c.stats.evictions.Add(1)
		if e.gen == c.gen.Load() {
			c.lost.Add(1)
		}
	})
	return c
}

// Invalidate makes every cached response stale: it is served again only if
// the database fails. The change poller calls it. The purge tags of the
// responses it held, and of every kind, go to the change log: catalogd
// cannot tell which products changed, so every response it had handed out
// is named. When a response was evicted (or too large to keep) since the
// last change, its tags are unknown: every product page is named then,
// by its kind tag.
func (c *Cache) Invalidate() {
	// Under the lock only what must be consistent with the generation
	// bump: the entries held and the losses counted up to it. The tags
	// are gathered after: an entry's gen and tags never change once it is
	// filled, and every hit waits on this lock.
	c.mu.Lock()
	kindTags, ns := c.kindTags, c.ns
	lost := c.lost.Swap(0)
	gen := c.gen.Load()
	held := c.lru.Values()
	c.gen.Add(1)
	c.mu.Unlock()

	// Each product page is named by its own tag, unless some may be
	// unknown; the product kind tag would purge them all.
	var s tagSet
	pages := ns + "-product"
	for _, t := range kindTags {
		if t != pages {
			s.add(t)
		}
	}
	if lost > 0 || c.cfg.TTL == 0 {
		s.add(pages)
	}
	for _, e := range held {
		if e.gen == gen {
			for _, t := range e.tags {
				if t != pages {
					s.add(t)
				}
			}
		}
	}
	if len(s.list) > maxChangeTags {
		// Too many to keep 256 of (or to send a purge API): the kind
		// tags alone name every response catalogd serves.
		s = tagSet{list: slices.Clone(kindTags)}
	}
	c.changes.record(c.now(), s.list, ns)
}

// maxChangeTags bounds the tags one change names, so the change log stays
// small whatever the shop's size: past it, a change names the kinds.
const maxChangeTags = 1000

// setNamespace names the kind tags of the server's namespace.
func (c *Cache) setNamespace(ns string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ns = ns
	c.kindTags = nil
	for _, k := range tagKinds {
		c.kindTags = append(c.kindTags, ns+"-"+k)
	}
}

// Len and Bytes report the cache's size, for the metrics and tests.
func (c *Cache) Len() int { return c.lru.Len() }

// Bytes is the memory the cached entries hold.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

func (c *Cache) get(key string) (*entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Get(key)
}

func (c *Cache) put(key string, e *entry) {
	size := e.memSize(key)
	if size > c.cfg.MaxEntryBytes {
		c.stats.unheld.Add(1)
		if e.gen == c.gen.Load() {
			c.lost.Add(1)
		}
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.drops != c.drops.Load() {
		return // begun before a Drop: it may show what was dropped
	}
	if old, ok := c.lru.Peek(key); ok {
		if old.gen > e.gen {
			// A fill begun before a change ended after one begun after
			// it: the newer answer stays.
			return
		}
		c.bytes -= old.counted // Add replaces it in place, without the callback
		old.held = false
	}
	c.lru.Add(key, e)
	e.counted, e.held = size, true
	c.bytes += size
	c.shrink()
}

// shrink evicts the least recently used entries until the bytes fit. Under
// c.mu.
func (c *Cache) shrink() {
	for c.bytes > c.cfg.MaxBytes && c.lru.Len() > 1 {
		c.lru.RemoveOldest()
	}
}

// gzipped returns the entry's gzip copy, making it at the first call: at
// gzip's fastest level (on a catalog's JSON it is within a few percent of
// the best, at a fraction of the time), and only for bodies worth it and
// small enough to be cached. A cached entry's count grows by the copy.
func (c *Cache) gzipped(key string, e *entry) []byte {
	if e.gzDone.Load() {
		return e.gz
	}
	e.gzOnce.Do(func() {
		defer e.gzDone.Store(true)
		if len(e.body) < minGzip || int64(len(e.body)) > c.cfg.MaxEntryBytes {
			return
		}
		var buf bytes.Buffer
		buf.Grow(len(e.body)/3 + 64)
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		_, _ = zw.Write(e.body)
		_ = zw.Close()
		e.gz = bytes.Clone(buf.Bytes()) // not the buffer's spare capacity
		e.gzEtagH = []string{e.gzEtag}
		e.gzLenH = []string{strconv.Itoa(len(e.gz))}
		c.mu.Lock()
		defer c.mu.Unlock()
		if e.held {
			size := e.memSize(key)
			c.bytes += size - e.counted
			e.counted = size
			c.shrink()
		}
	})
	return e.gz
}

// fresh reports whether e may be served without asking the database.
func (c *Cache) fresh(e *entry, now time.Time) bool {
	return e.gen == c.gen.Load() && now.Before(e.freshUntil)
}

// listParamNames are the query parameters the product list reads, in the
// order its cache key names them (sorted).
var listParamNames = [...]string{"category", "framework", "page", "per_page"}

// cacheKey is what a request means, so that requests meaning the same share
// one entry and no spelling makes a fresh miss: the path, and, for the one
// operation that reads the query (readsQuery), each parameter it reads in
// its canonical form, sorted. Other parameters, and the query of any other
// operation, are ignored as the handlers ignore them. The canonical form is
// what api.ParseListQuery, the rule the handler applies, makes of the
// value: "page=007" is page=7. A value it rejects is keyed by the reason
// (the 400 names the reason, never the value), so every bad spelling of a
// parameter shares one entry too.
func cacheKey(r *http.Request, readsQuery bool) string {
	raw := r.URL.RawQuery
	if raw == "" || !readsQuery {
		return r.URL.Path
	}
	if canonicalQuery(raw) {
		return r.URL.Path + "?" + raw // the hit path: nothing to parse
	}
	v := queryValues(raw)
	q, problems := api.ParseListQuery(v)
	return r.URL.Path + listQuery(q, func(k string) bool { _, ok := v[k]; return ok }, problems)
}

// listQuery is the canonical query string of the product list ("" or
// "?k=v&…"): each parameter the list reads and has says it is present, in
// listParamNames' order, valid values in the form ParseListQuery made of
// them, rejected ones by their reason. The cache key and the paging links
// are both built with it, so a link the list gives is the key it is cached
// under, and takes canonicalQuery's fast path.
func listQuery(q api.ListQuery, has func(name string) bool, problems map[string]string) string {
	var b strings.Builder
	sep := byte('?')
	for _, k := range listParamNames {
		if !has(k) {
			continue
		}
		b.WriteByte(sep)
		sep = '&'
		b.WriteString(k)
		if msg, bad := problems[k]; bad {
			b.WriteString("!" + msg) // "!" never appears in a canonical pair
			continue
		}
		b.WriteByte('=')
		switch k {
		case "page":
			b.WriteString(strconv.Itoa(q.Page))
		case "per_page":
			b.WriteString(strconv.Itoa(q.PerPage))
		case "category":
			b.WriteString(url.QueryEscape(q.Category))
		case "framework":
			b.WriteString(q.Framework)
		}
	}
	return b.String()
}

// canonicalQuery reports whether a raw query already is in the key's form,
// so the hit path need not parse it: only parameters the list reads, each
// once, sorted, page and per_page as plain numbers without leading zeros
// (per_page within its range), a known framework, and a plain category slug
// (api.PlainSlug: QueryEscape leaves it as it is). Anything else takes the long way through cacheKey; a
// fuzz test checks both ways give the same key.
func canonicalQuery(raw string) bool {
	prev := ""
	for raw != "" {
		pair, rest, more := strings.Cut(raw, "&")
		raw = rest
		if more && rest == "" {
			return false // a trailing "&"
		}
		k, val, _ := strings.Cut(pair, "=")
		if k <= prev {
			return false
		}
		prev = k
		switch k {
		case "page":
			if !plainNumber(val, 18) {
				return false
			}
		case "per_page":
			if n, err := strconv.Atoi(val); !plainNumber(val, 18) || err != nil || n > api.MaxPerPage {
				return false
			}
		case "framework":
			if !api.ValidFramework(val) {
				return false
			}
		case "category":
			if len(val) > api.MaxSlugLength || !api.PlainSlug(val) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// plainNumber reports whether s is a positive number of at most n digits
// written without a leading zero.
func plainNumber(s string, n int) bool {
	if s == "" || len(s) > n || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// hintsKey carries what a handler knows of its response to the cache.
type hintsKey struct{}

type hints struct {
	version         uint64
	until, modified time.Time
	tags            []string
}

// describe tells the cache the response was computed from the catalog's
// snapshot version (its ETag says so; 0: from no snapshot), must not be
// served after until (the next sale start or end among its products; zero:
// not by the clock), was last modified at modified (zero: unknown), and
// shows what the purge tags name.
func describe(r *http.Request, version uint64, until, modified time.Time, tags []string) {
	if h, ok := r.Context().Value(hintsKey{}).(*hints); ok {
		h.version, h.until, h.modified, h.tags = version, until, modified, tags
	}
}

// recorder captures a handler's response.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}
func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(p)
}

// cacheable statuses: answers that stay true until the shop changes.
func cacheable(status int) bool {
	return status == http.StatusOK || status == http.StatusBadRequest || status == http.StatusNotFound
}

// middleware serves GET and HEAD from the cache, fills it, and writes every
// such response with its ETag, gzip and 304 handling.
// readsQuery says whether the operation at a path reads the query string.
func (c *Cache) middleware(next http.Handler, readsQuery func(path string) bool, cc *cacheControl) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		key := cacheKey(r, readsQuery(r.URL.Path))
		now := c.now()
		cached, ok := c.get(key)
		if ok && c.fresh(cached, now) {
			c.stats.hits.Add(1)
			c.serve(w, r, key, cached, stateHit, cc)
			return
		}
		c.stats.misses.Add(1)
		// The generation is read before the handler reads the shop: a fill
		// that overlaps an Invalidate stores its answer under the older
		// generation (stale at once), never as fresh. It is part of the
		// flight's key, so a request after a change never joins a fill
		// begun before it.
		gen, drops := c.gen.Load(), c.drops.Load()
		v, _, _ := c.group.Do(key+"\x00"+strconv.FormatUint(gen, 10)+"\x00"+strconv.FormatUint(drops, 10), func() (any, error) {
			return c.fill(next, r, key, gen, drops), nil
		})
		e := v.(*entry)
		if e.status >= 500 && ok && now.Sub(cached.stored) < c.cfg.StaleFor {
			// The database failed: a copy a little old beats an error.
			c.stats.stale.Add(1)
			c.serve(w, r, key, cached, stateStale, cc)
			return
		}
		c.serve(w, r, key, e, stateMiss, cc)
	})
}

// fill runs the handler once for the key, as a GET, and keeps the result
// when it may be cached, as of generation gen (read before the handler
// ran).
func (c *Cache) fill(next http.Handler, r *http.Request, key string, gen, drops uint64) *entry {
	h := &hints{}
	// The round is shared by every waiter: it must not end when the first
	// caller goes away, but keeps that caller's values.
	ctx := context.WithValue(context.WithoutCancel(r.Context()), hintsKey{}, h)
	req := r.Clone(ctx)
	req.Method = http.MethodGet
	rec := &recorder{header: http.Header{}}
	next.ServeHTTP(rec, req)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	now := c.now()
	e := newEntry(rec.status, rec.header, rec.body.Bytes(), h.version, now)
	e.gen, e.drops = gen, drops
	e.until = h.until
	if e.status == http.StatusOK {
		e.describe(h, now)
	}
	e.freshUntil = now.Add(c.cfg.TTL)
	if !h.until.IsZero() && h.until.Before(e.freshUntil) {
		e.freshUntil = h.until
	}
	if c.cfg.TTL > 0 && cacheable(e.status) && now.Before(e.freshUntil) {
		c.put(key, e)
	}
	return e
}

// minGzip is the smallest body worth compressing.
const minGzip = 512

// newEntry keeps a response. Its ETag names the snapshot it was computed
// from and a hash of its bytes ("s12-<hash>"): which state of the shop a
// client holds shows, while If-None-Match compares the bytes' part only
// (matchesETag), so a resource the last change left alone still answers
// 304.
func newEntry(status int, header http.Header, body []byte, version uint64, now time.Time) *entry {
	header.Del("Content-Length")
	e := &entry{status: status, header: header, body: bytes.Clone(body), stored: now}
	sum := sha256.Sum256(body)
	tag := hex.EncodeToString(sum[:16])
	if version != 0 {
		tag = "s" + strconv.FormatUint(version, 10) + "-" + tag
	}
	e.etag = `"` + tag + `"`
	e.gzEtag = `"` + tag + `-gzip"`
	e.etagH = []string{e.etag}
	e.lenH = []string{strconv.Itoa(len(e.body))}
	return e
}

// describe prepares a 200's Last-Modified and purge tag headers.
func (e *entry) describe(h *hints, now time.Time) {
	if !h.modified.IsZero() {
		e.lastMod = h.modified
		if e.lastMod.After(now) {
			e.lastMod = now // never in the future (RFC 9110 §8.8.2.1)
		}
		e.lastMod = e.lastMod.Truncate(time.Second)
		e.lastModH = []string{e.lastMod.UTC().Format(http.TimeFormat)}
	}
	if len(h.tags) > 0 {
		e.tags = h.tags
		e.cacheTagH = []string{strings.Join(h.tags, ",")}
		e.surrogateKeyH = []string{strings.Join(h.tags, " ")}
	}
}

// serve writes a finished response: 304 when the client holds it, the gzip
// copy when the client takes gzip. A 200's Cache-Control is made here, at
// every serve: its lifetimes shrink as the response's expiry nears. A stale
// copy gets no-store: the change that made it stale has been logged for
// purging, and no cache downstream may keep what is known to be outdated.
func (c *Cache) serve(w http.ResponseWriter, r *http.Request, key string, e *entry, state cacheState, cc *cacheControl) {
	h := w.Header()
	for k, v := range e.header {
		// The entry holds the handler's own fields; the middleware set the
		// common ones before it. A field both set (Link: the API catalog's
		// rel="api-catalog" beside rel="service-desc") is a list, and is
		// combined (RFC 9110 §5.3). The copy keeps the shared slices intact.
		if common, ok := h[k]; ok {
			v = append(common[:len(common):len(common)], v...)
		}
		h[k] = v
	}
	h["X-Cache"] = cacheStates[state]
	h["Vary"] = hdrVary
	body, etag, length := e.body, e.etagH, e.lenH
	if len(e.body) >= minGzip && acceptsGzip(r) {
		if gz := c.gzipped(key, e); gz != nil {
			body, etag, length = gz, e.gzEtagH, e.gzLenH
			h["Content-Encoding"] = hdrGzip
		}
	}
	h["Etag"] = etag
	if e.status == http.StatusOK {
		if state == stateStale {
			h["Cache-Control"] = hdrNoStore
		} else {
			now := time.Time{}
			if !e.until.IsZero() {
				now = c.now()
			}
			h["Cache-Control"] = cc.header(e.until, now)
		}
		if e.lastModH != nil {
			h["Last-Modified"] = e.lastModH
		}
		if e.tags != nil {
			h["Cache-Tag"] = e.cacheTagH
			h["Surrogate-Key"] = e.surrogateKeyH
		}
	}
	if e.status == http.StatusOK && notModified(r, e) {
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h["Content-Length"] = length
	w.WriteHeader(e.status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// cacheState is how a response was served, told in X-Cache.
type cacheState int

const (
	stateHit cacheState = iota
	stateMiss
	stateStale
)

// cacheStates are the X-Cache values, and below other constant header
// values, shared read-only.
var (
	cacheStates = [...][]string{stateHit: {"HIT"}, stateMiss: {"MISS"}, stateStale: {"STALE"}}
	hdrVary     = []string{"Accept-Encoding"}
	hdrGzip     = []string{"gzip"}
)

// matchesETag reports whether an If-None-Match list names the response, in
// either of its encodings, etag or gz (weak comparison, as RFC 9110 asks
// for it). A tag of another snapshot matches when its bytes' part does: the
// client holds these very bytes, and the 304 hands it the current tag.
func matchesETag(inm, etag, gz string) bool {
	if inm == "" {
		return false
	}
	etag, gz = bytesTag(etag), bytesTag(gz)
	for _, t := range strings.Split(inm, ",") {
		t = bytesTag(strings.TrimPrefix(strings.TrimSpace(t), "W/"))
		if t == "*" || t == etag || t == gz {
			return true
		}
	}
	return false
}

// bytesTag is an entity tag without its snapshot part: "s12-<hash>" is
// "<hash>" (quotes kept).
func bytesTag(t string) string {
	if !strings.HasPrefix(t, `"s`) {
		return t
	}
	i := 2
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 2 || i >= len(t) || t[i] != '-' {
		return t
	}
	return `"` + t[i+1:]
}
