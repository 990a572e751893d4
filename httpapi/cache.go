package httpapi

import (
	"bytes"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"
)

// CacheConfig bounds the origin cache.
type CacheConfig struct {
	TTL        time.Duration // how long a response is served from memory; 0 turns the cache off
	StaleFor   time.Duration // how long after it was stored a copy may stand in for a 5xx
	MaxEntries int
	// MaxBytes bounds the memory the entries hold: bodies, gzip copies,
	// headers, keys and bookkeeping, counted as the heap holds them.
	MaxBytes int64
	// MaxEntryBytes is the largest response kept (its plain body and
	// bookkeeping); 0 is a quarter of MaxBytes. A larger one is computed
	// again (from the catalog's snapshot) at every request, and is never
	// gzipped, so one such request costs at most its own encoding and hash.
	MaxEntryBytes int64
	// Namespace names the purge tags of the changes the cache records;
	// NewServer sets it too. Set here, the changes applied before the
	// server is made (catalogd makes it after the first snapshot) are
	// named right.
	Namespace string
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
// copy and the ETag, under the key the server's key function gives the
// request. It is bounded by entries and bytes; Apply removes what a
// change of the shop touched, Invalidate makes everything stale.
// Concurrent misses for one key run the handler once.
type Cache struct {
	cfg CacheConfig
	now func() time.Time
	gen atomic.Uint64 // bumped by Invalidate: older entries are stale
	// drops is bumped by drop, under mu: a fill begun before a drop is not
	// kept, as it may show what the drop took out.
	drops atomic.Uint64
	group singleflight.Group

	mu    sync.Mutex
	lru   *lru.Cache[string, *entry]
	bytes int64
	// tags are the namespace's purge tags, set by the server: what a
	// change invalidates. Under mu.
	tags Tags
	// tagHeader is the purge tag header(s) the entries carry; set with
	// the namespace, before any fill.
	tagHeader TagHeader
	// dropping is set while drop removes entries, under mu: the eviction
	// callback then counts no eviction (Apply names the tags).
	dropping bool

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
	// fields are the handler's own headers, as a list: a hit assigns them
	// in order, with no map to walk. merged is the last combination of a field the
	// middleware set too (Link), kept for the hits that follow.
	fields []headerField
	merged atomic.Pointer[mergedField]
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
	// tags are the purge tags; tagFields the headers that carry them,
	// their values prepared once.
	tags      []string
	tagFields []headerField

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

	// lent are the pool's buffers an entry the cache does not keep holds
	// its body (and gzip copy) in, until release.
	lent []*bytes.Buffer
}

// headerField is one of an entry's own header fields, or a purge tag
// header.
type headerField struct {
	name  string
	value []string
}

// mergedField is a field of an entry joined to the value the middleware
// set before it: common is that value, a slice the server shares by every
// response (compared by identity), value the joined list.
type mergedField struct {
	name          string
	common, value []string
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
		// The tags, and the headers that join them.
		n += 16 * cap(e.tags)
		for _, t := range e.tags {
			n += len(t)
		}
		for _, f := range e.tagFields {
			n += 48 + len(f.value[0])
		}
	}
	for _, f := range e.fields {
		n += len(f.name) + 16*cap(f.value)
		for _, s := range f.value {
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
	if cfg.Namespace != "" {
		c.setNamespace(cfg.Namespace)
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
	})
	return c
}

// Invalidate makes every cached response stale: the next request for it
// runs the handler again, and the stale copy stands in only if that answers
// 5xx (the catalog has no snapshot and cannot read the shop), for StaleFor
// after it was stored. The catalog's watcher calls it after a reload, and
// Apply when the settings or terms moved. Such a change may alter any
// response, and the edge holds responses every replica filled, not only
// those this cache held: the kind tags, which together purge every
// response, go to the change log and are returned, for the edge purger.
// They are also the cheapest purge: one tag per kind, where naming each
// response held would take one tag each.
func (c *Cache) Invalidate() []string {
	c.mu.Lock()
	kindTags, ns := c.tags.Kinds(), c.tags.tg.ns
	c.gen.Add(1)
	c.mu.Unlock()
	c.changes.record(c.now(), kindTags, ns)
	return kindTags
}

// setNamespace names the purge tags of the server's namespace.
func (c *Cache) setNamespace(ns string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tags = NewTags(ns)
}

// setTagging names the kind tags of the server's namespace, and the
// header(s) that carry the tags.
func (c *Cache) setTagging(ns string, h TagHeader) {
	c.setNamespace(ns)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tagHeader = h
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
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.drops != c.drops.Load() {
		return // begun before a drop: it may show what was dropped
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

// recount counts an entry again after it grew (its gzip copy was made),
// if the cache still holds it, and evicts what no longer fits.
func (c *Cache) recount(key string, e *entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.held {
		size := e.memSize(key)
		c.bytes += size - e.counted
		e.counted = size
		c.shrink()
	}
}

// fresh reports whether e may be served without running the handler.
func (c *Cache) fresh(e *entry, now time.Time) bool {
	return e.gen == c.gen.Load() && now.Before(e.freshUntil)
}
