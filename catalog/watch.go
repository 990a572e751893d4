package catalog

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"catalogd/wpdb"
)

// Watch polls the shop's change signature every interval until ctx ends,
// and calls changed whenever it differs from the last one read: a price
// edited in WordPress admin clears cached responses within one interval.
// A failed read changes nothing (cached copies keep serving).
func (c *Catalog) Watch(ctx context.Context, every time.Duration, changed func()) {
	var last string
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		// Build the in-memory population before requests need it: at start
		// and after every change (a request would otherwise pay for it).
		c.warm(ctx)
		sig, err := c.db.Signature(ctx)
		switch {
		case err != nil:
			slog.DebugContext(ctx, "change signature not read", "err", err)
		case last != "" && sig != last:
			slog.InfoContext(ctx, "shop changed; cached responses cleared")
			c.sawChange(wpdb.SettingsPart(sig) != wpdb.SettingsPart(last))
			c.Invalidate()
			c.warm(ctx) // before the responses go, so that none is rebuilt from the old one
			changed()
			last = sig
		default:
			last = sig
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// warm builds the population if there is none fit to serve.
func (c *Catalog) warm(ctx context.Context) {
	if err := c.Ready(ctx); err != nil {
		slog.DebugContext(ctx, "population not built", "err", err)
	}
}

// seen is when catalogd last saw the shop change, in Unix seconds: its
// terms or settings (which WordPress keeps no modified time for), and
// anything at all. Both start at the first load.
type seen struct{ settings, shop atomic.Int64 }

// sawChange records a change the poller saw, now.
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
