package catalog

import (
	"context"
	"time"
)

// A whole read of the shop, once there is a snapshot, is read beside the
// changes rather than in their way: a large shop's takes long
// (docs/performance.md#how-memory-and-start-up-grow-with-the-shop), and an
// edit reported meanwhile would wait for it. Follow starts
// it (wholeRead.start) and goes on applying the feed's product changes to
// the snapshot served; when the read is done, the products those changes
// touched are read again on top of it (their changes may have committed
// after the read's instant), and the result is swapped in (adoptWhole).
// A whole read asked for while one is in flight (it began before that
// change) comes after it.

// wholeRead is Follow's whole read in flight, if any.
type wholeRead struct {
	done   chan wholeResult // nil: none in flight
	change Change           // the change it reads for
	since  Change           // the product changes applied since it began
	again  *Change          // a whole read asked for meanwhile, or one that failed
}

type wholeResult struct {
	s   *Snapshot
	err error
}

// ask starts a whole read for ch (and for the one kept after a failure,
// if any), or keeps ch for after the one in flight.
func (w *wholeRead) ask(ctx context.Context, c *Catalog, ch Change) {
	if len(ch.Posts) > 0 || len(ch.Products) > 0 {
		// Applied at once, beside it: their commit's lag is measured then,
		// not again when the read is swapped in.
		ch.Posts, ch.Products, ch.Committed = nil, nil, time.Time{}
	}
	if w.done != nil {
		if w.again == nil {
			w.again = &ch
		} else {
			w.again.merge(ch)
		}
		return
	}
	if w.again != nil { // one that failed: this read begins later, it serves both
		ch.merge(*w.again)
		w.again = nil
	}
	w.change, w.since = ch, Change{}
	w.done = make(chan wholeResult, 1)
	done := w.done
	go func() {
		s, err := c.load(ctx)
		done <- wholeResult{s, err}
	}()
}

// applied notes a product change applied while the read is in flight.
func (w *wholeRead) applied(ch Change) {
	if w.done != nil {
		w.since.merge(Change{Posts: ch.Posts, Products: ch.Products})
	}
}

// next starts the whole read kept for after the last, if any.
func (w *wholeRead) next(ctx context.Context, c *Catalog) {
	if w.done == nil && w.again != nil {
		ch := *w.again
		w.again = nil
		w.ask(ctx, c, ch)
	}
}

// failed keeps the read's change to be read again.
func (w *wholeRead) failed() {
	ch := w.change
	if w.again != nil {
		ch.merge(*w.again)
	}
	w.again = &ch
}

// adoptWhole swaps in s, a whole read that began before the product
// changes in since were applied, with those products read again on top of
// it, and reports what differs from the snapshot it replaces.
func (c *Catalog) adoptWhole(ctx context.Context, s *Snapshot, ch, since Change) (Applied, error) {
	start := time.Now()
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	old := c.cur.Load()
	if ids := s.Affected(s.relevant(since.Posts, since.Products)); len(ids) > 0 {
		rows, err := c.src.LoadProducts(ctx, ShopReads, ids)
		if err != nil {
			c.lastLoad.Store(&loadOutcome{err: domainError(err)})
			return Applied{}, domainError(err)
		}
		s = s.With(rows, ids, c.version.Add(1), c.cfg)
	} else {
		// Its number was taken when the read began; the refreshes since
		// took later ones. s is not shared yet.
		s.Version = c.version.Add(1)
	}
	c.lastLoad.Store(&loadOutcome{})
	c.lastSeen(c.cfg.Now())
	c.swap(s)
	if c.cfg.OnBuild != nil {
		c.cfg.OnBuild(s, s.took)
	}
	a := diff(old, s, nil)
	if old != nil && !a.Nothing() {
		c.sawChange(a.Everything, a.Products)
	}
	a.Change, a.Took = ch, s.took+time.Since(start)
	return a, nil
}
