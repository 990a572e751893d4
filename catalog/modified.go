package catalog

import (
	"sync"
	"sync/atomic"
	"time"
)

// The lists' and the index's Last-Modified: WordPress keeps no modified
// time for terms and settings, so catalogd takes the time it saw them
// change.

// seen is when catalogd last saw the shop change, in Unix seconds: its
// terms or settings (which WordPress keeps no modified time for), and
// anything at all. Both start at the first load. products holds when a
// change the feed applied last changed what a product shows: a change
// WordPress records no time for (set_post_thumbnail writes only postmeta,
// a raw edit of a meta) must move its Last-Modified too, or a client that
// revalidates with If-Modified-Since keeps the old one.
type seen struct {
	settings, shop atomic.Int64
	mu             sync.Mutex
	products       map[int64]int64 // product ID → Unix seconds
}

// sawChange records a change the feed applied, now: to the settings or
// terms, and to what the products show.
func (c *Catalog) sawChange(settings bool, products []int64) {
	now := c.cfg.Now().Unix()
	if settings {
		c.seen.settings.Store(now)
	}
	c.seen.shop.Store(now)
	if len(products) == 0 {
		return
	}
	c.seen.mu.Lock()
	defer c.seen.mu.Unlock()
	if c.seen.products == nil {
		c.seen.products = map[int64]int64{}
	}
	for _, id := range products {
		c.seen.products[id] = max(c.seen.products[id], now)
	}
}

// productSeen is when a change the feed applied last changed what the
// product shows; zero when none did since the first load.
func (c *Catalog) productSeen(id int64) time.Time {
	c.seen.mu.Lock()
	defer c.seen.mu.Unlock()
	if at, ok := c.seen.products[id]; ok {
		return time.Unix(at, 0)
	}
	return time.Time{}
}

// lastSeen returns when the terms or settings, and the shop, last changed
// as far as catalogd knows, starting the clocks at the first call.
func (c *Catalog) lastSeen(now time.Time) (settings, shop time.Time) {
	c.seen.settings.CompareAndSwap(0, now.Unix())
	c.seen.shop.CompareAndSwap(0, now.Unix())
	return time.Unix(c.seen.settings.Load(), 0), time.Unix(c.seen.shop.Load(), 0)
}

// latest is the later of two instants.
func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// notAfter clamps t to now: a scheduled product's post_modified_gmt lies
// in the future, and a Last-Modified may not.
func notAfter(t, now time.Time) time.Time {
	if t.After(now) {
		return now
	}
	return t
}
