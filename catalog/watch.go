package catalog

import (
	"context"
	"log/slog"
	"time"
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
