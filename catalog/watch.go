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
//
// The first signature read is the baseline later ones are compared to, so
// the population is built after it, never before: a change landing between
// a build and the baseline would be in neither, and the population would
// stay stale until maxPopulationAge. A population a request built before
// Watch started is dropped at the baseline for the same reason.
func (c *Catalog) Watch(ctx context.Context, every time.Duration, changed func(), opts ...WatchOption) {
	var o watchOptions
	for _, opt := range opts {
		opt(&o)
	}
	var last string
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		sig, err := c.db.Signature(ctx)
		switch {
		case err != nil:
			slog.DebugContext(ctx, "change signature not read", "err", err)
		case last == "":
			last = sig
			c.Invalidate()
			c.warm(ctx)
			if o.baseline != nil {
				o.baseline()
			}
		case sig != last:
			slog.InfoContext(ctx, "shop changed; cached responses cleared")
			c.sawChange(wpdb.SettingsPart(sig) != wpdb.SettingsPart(last))
			c.Invalidate()
			c.warm(ctx) // before the responses go, so that none is rebuilt from the old one
			changed()
			last = sig
		}
		// Build the in-memory population before requests need it (a
		// request would otherwise pay for it): one that expired or failed.
		c.warm(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// WatchOption tunes Watch.
type WatchOption func(*watchOptions)

type watchOptions struct{ baseline func() }

// OnBaseline has Watch call f once, after it read the first signature and
// built the population from after it: a change made after f returns is
// one the poller will see (tests wait for it instead of sleeping).
func OnBaseline(f func()) WatchOption {
	return func(o *watchOptions) { o.baseline = f }
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
