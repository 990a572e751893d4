package catalog

import (
	"sync/atomic"
	"time"
)

// The lists' and the index's Last-Modified: WordPress keeps no modified
// time for terms and settings, so catalogd takes the time it saw them
// change.

// seen is when catalogd last saw the shop change, in Unix seconds: its
// terms or settings (which WordPress keeps no modified time for), and
// anything at all. Both start at the first load.
type seen struct{ settings, shop atomic.Int64 }

// sawChange records a change the feed reported, now.
func (c *Catalog) sawChange(settings bool) {
	now := c.cfg.Now().Unix()
	if settings {
		c.seen.settings.Store(now)
	}
	c.seen.shop.Store(now)
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
