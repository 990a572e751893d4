package catalog

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"
)

// Signature is a cheap fingerprint of the shop the catalog shows, in two
// parts: the products' (posts, term counts, WooCommerce's transient
// versions) and the settings' (options, term names, order).
type Signature struct{ Products, Settings string }

// Signer reads the shop's change signature.
type Signer interface {
	Signature(ctx context.Context, r Reads) (Signature, error)
}

// maxSnapshotAge bounds how long a snapshot serves without a change the
// poller saw: edits it cannot see (raw SQL) show within this.
const maxSnapshotAge = 10 * time.Minute

// Watch polls the shop's change signature every interval until ctx ends,
// and when it differs from the current snapshot's (read with its rows, in
// the same transaction), reloads the snapshot and then calls changed: a
// price edited in WordPress admin shows within one interval and the time a
// load takes. A failed read changes nothing: the current snapshot keeps
// serving. A snapshot older than maxSnapshotAge is reloaded too, for edits
// the signature cannot see (raw SQL on meta).
func (c *Catalog) Watch(ctx context.Context, sig Signer, every time.Duration, changed func(), opts ...WatchOption) {
	var o watchOptions
	for _, opt := range opts {
		opt(&o)
	}
	t := time.NewTicker(every)
	defer t.Stop()
	failing := false
	for {
		err := c.poll(ctx, sig, changed)
		switch {
		case err != nil && !failing && ctx.Err() == nil:
			// Once per outage at warning level: requests are still
			// answered from memory, but no change is seen until it ends.
			slog.WarnContext(ctx, "the shop cannot be read; answering from the last snapshot until it can", "err", err)
			failing = true
		case err != nil:
			slog.DebugContext(ctx, "the shop cannot be read", "err", err)
		case failing:
			slog.InfoContext(ctx, "the shop can be read again")
			failing = false
		}
		if o.polled != nil {
			o.polled(err)
		}
		if err == nil && o.baseline != nil {
			o.baseline()
			o.baseline = nil
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// poll compares the shop's signature with the snapshot's once and reloads
// on a difference. An error means the shop could not be read; the next
// tick tries again.
func (c *Catalog) poll(ctx context.Context, sig Signer, changed func()) error {
	s, err := sig.Signature(ctx, ShopReads)
	if err != nil {
		return fmt.Errorf("change signature: %w", err)
	}
	snap, err := c.Snapshot(ctx) // the first load, if there is none yet
	if err != nil {
		return fmt.Errorf("first snapshot: %w", err)
	}
	switch {
	case s != snap.sig:
		if err := c.Reload(ctx); err != nil {
			slog.WarnContext(ctx, "shop changed but the snapshot could not be reloaded; serving the last one", "err", err)
			return fmt.Errorf("reload: %w", err)
		}
		slog.InfoContext(ctx, "shop changed; snapshot reloaded, cached responses cleared")
		c.sawChange(s.Settings != snap.sig.Settings)
		changed()
	case c.cfg.Now().Sub(snap.Built) >= maxSnapshotAge:
		if err := c.Reload(ctx); err != nil {
			return fmt.Errorf("reload: %w", err)
		}
		changed()
	}
	return nil
}

// WatchOption tunes Watch.
type WatchOption func(*watchOptions)

type watchOptions struct {
	baseline func()
	polled   func(err error)
}

// OnPoll has Watch call f after every comparison, with its failure if any
// (for the poll counter in metrics).
func OnPoll(f func(err error)) WatchOption {
	return func(o *watchOptions) { o.polled = f }
}

// OnBaseline has Watch call f once, after its first comparison of the
// shop's signature with a snapshot's: a change made after f returns is one
// the poller will see (tests wait for it instead of sleeping).
func OnBaseline(f func()) WatchOption {
	return func(o *watchOptions) { o.baseline = f }
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
