package catalog

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"
)

// Applied is what applying a change swapped in, for whoever keeps
// responses (the HTTP cache): what to drop, and nothing more.
type Applied struct {
	// Snapshot is the snapshot now current.
	Snapshot *Snapshot
	// Everything: the settings or the terms moved, so every response may
	// have (a currency, a category's name).
	Everything bool
	// Products are the products whose own resources changed: their
	// single-product response, and the list pages that show them.
	Products []int64
	// Lists: the lists, category counts and the index may have moved: a
	// product entered or left the catalog, a filter or a slug.
	Lists bool
	// Change is what the feed reported (merged, when several arrived while
	// one was applied); Took how long reading and swapping it took.
	Change Change
	Took   time.Duration
}

// Nothing says whether the change left every response as it was.
func (a Applied) Nothing() bool { return !a.Everything && !a.Lists && len(a.Products) == 0 }

// AppliedHandler is told of each change Follow applied, on Follow's own
// goroutine: whoever keeps responses drops what it touched.
type AppliedHandler interface {
	OnApplied(Applied)
}

// AppliedFunc is a func as an AppliedHandler.
type AppliedFunc func(Applied)

// OnApplied calls f.
func (f AppliedFunc) OnApplied(a Applied) { f(a) }

// maxSnapshotAge bounds how long a snapshot serves without a whole read:
// edits polling cannot see (raw SQL on a meta key, an image's file, the
// translation plugins' tables) show within this.
const maxSnapshotAge = 10 * time.Minute

// sightedSnapshotAge bounds it under a feed that sees every change
// (Sighted): nothing is known to escape such a feed, so the whole read
// only checks that nothing did.
const sightedSnapshotAge = time.Hour

// wholeReadShare bounds the database time the whole reads take: half a
// percent of one core on average (the poll feed's budget is 1 %), so
// that a quiet shop's database hardly notices catalogd at any size. Up to
// 3 s of database time a read (maxSnapshotAge's share), the whole read
// comes every maxSnapshotAge; a larger shop's comes less often
// (docs/change-feed.md#seeing-the-shops-changes).
const wholeReadShare = 0.005

// wholeReadEvery is how old the feed lets a snapshot grow before the
// whole shop is read again, given what the last whole read cost the
// database: never so often that the reads take more than wholeReadShare.
func wholeReadEvery(feed Feed, cost time.Duration) time.Duration {
	every := maxSnapshotAge
	if s, ok := feed.(Sighted); ok && s.SeesEverything() {
		every = sightedSnapshotAge
	}
	return max(every, time.Duration(float64(cost)/wholeReadShare))
}

// WholeReadInterval is how old Follow lets the snapshot grow before it
// reads the whole shop again, as it last decided (wholeReadEvery): longer
// than the feed's period on a shop whose whole read costs the database
// much. An alert on the snapshot's age compares the age with it, so that
// a large shop's long interval is not taken for failing reads. 0 until
// Follow begins.
func (c *Catalog) WholeReadInterval() time.Duration { return time.Duration(c.wholeEvery.Load()) }

// retryApply is how long Follow waits before trying again a change it
// could not read (the database is away): the snapshot keeps serving.
const retryApply = time.Second

// Follow applies the feed's changes to the snapshot until ctx ends, and
// tells h what each swapped in (h may be nil). Changes that arrive while
// one is applied are merged into the next; one that cannot be read is kept
// and tried again while the current snapshot serves. The whole shop is
// read again, beside the changes (wholeread.go), when the snapshot is
// older than wholeReadEvery says, for edits the feed cannot see (polling:
// raw SQL on a meta key); only what differs is dropped from the caches.
//
// It begins with a whole read (Start must have marked the feed), the first
// snapshot when there is none. It returns the feed's error when the feed
// stops, ctx's when ctx ends, and a *LanguageError when the first snapshot
// cannot be built.
func (c *Catalog) Follow(ctx context.Context, feed Feed, h AppliedHandler) error {
	var (
		mu      sync.Mutex
		pending *Change
		wake    = make(chan struct{}, 1)
	)
	keep := func(ch Change) {
		mu.Lock()
		if pending == nil {
			pending = &ch
		} else {
			pending.merge(ch)
		}
		mu.Unlock()
	}
	report := func(ch Change) {
		keep(ch)
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ended := make(chan error, 1)
	go func() { ended <- feed.Run(ctx, ChangeFunc(report)) }()
	// The whole shop first: the feed has been started (its place marked),
	// so whatever changed before is in this read and nothing after is lost.
	report(Change{All: true, Kind: KindReread})

	// Until this Follow's first whole read, the snapshot served (of an
	// earlier feed, if any) tells what a read costs.
	var cost time.Duration
	if s := c.cur.Load(); s != nil {
		cost = s.cost
	}
	every := wholeReadEvery(feed, cost)
	c.wholeEvery.Store(int64(every))
	age := time.NewTimer(every)
	defer age.Stop()
	var retry <-chan time.Time
	failing := false
	var whole wholeRead // a whole read beside the changes (wholeread.go)
	var failedLanguage error
	// done tells of an applied change, and of a failed one, once.
	done := func(a Applied, err error, ch Change) bool {
		if err != nil {
			if ctx.Err() != nil {
				return false
			}
			var badLanguage *LanguageError
			if errors.As(err, &badLanguage) && c.cur.Load() == nil {
				// Nothing to serve, ever: the configured language is
				// not the shop's. Later, the last snapshot serves on.
				failedLanguage = err
				return false
			}
			if !failing {
				c.log.WarnContext(ctx, "a change in the shop cannot be read yet; serving the last snapshot and trying again",
					"source", feed.Name(), "kind", ch.Kind, "err", err)
				failing = true
			}
			retry = time.After(retryApply)
			return false
		}
		if failing {
			c.log.InfoContext(ctx, "the shop can be read again; changes applied", "source", feed.Name())
			failing = false
		}
		if a.Snapshot != nil && (a.Change.All || whole.done == nil) {
			// Not while a whole read is in flight: the snapshot it
			// replaces is as old as it was, and the read resets the age.
			every = wholeReadEvery(feed, a.Snapshot.cost)
			c.wholeEvery.Store(int64(every))
			age.Reset(max(0, every-c.cfg.Now().Sub(a.Snapshot.Built)))
		}
		if h != nil {
			h.OnApplied(a)
		}
		return true
	}
	for {
		select {
		case <-ctx.Done():
			<-ended
			return ctx.Err()
		case err := <-ended:
			return fmt.Errorf("change feed %s: %w", feed.Name(), err)
		case <-wake:
		case <-retry:
		case <-age.C:
			if whole.done == nil { // else the read in flight is the one that is due
				report(Change{All: true, Kind: KindReread})
			}
			continue
		case r := <-whole.done:
			whole.done = nil
			err := r.err
			var a Applied
			if err == nil {
				a, err = c.adoptWhole(ctx, r.s, whole.change, whole.since)
			} else {
				c.lastLoad.Store(&loadOutcome{err: domainError(err)})
				err = domainError(err)
			}
			if !done(a, err, whole.change) {
				whole.failed() // read again after retryApply
				continue
			}
			whole.next(ctx, c) // the one asked for while it read
			continue
		}
		retry = nil
		mu.Lock()
		ch := pending
		pending = nil
		mu.Unlock()
		if ch == nil {
			whole.next(ctx, c) // a failed one, after retryApply
			continue
		}
		if ch.Confirm > 0 {
			again := *ch
			again.Confirm = 0
			if ch.All {
				// A whole read is long (seconds on a large shop): read
				// once, when the commit is surely visible, not twice.
				time.AfterFunc(ch.Confirm, func() { report(again) })
				continue
			}
			again.Committed = time.Time{}
			time.AfterFunc(ch.Confirm, func() { report(again) })
		}
		if ch.All && c.cur.Load() != nil {
			// Read beside the changes; the products it names are applied
			// at once.
			whole.ask(ctx, c, *ch)
			if len(ch.Posts) == 0 && len(ch.Products) == 0 {
				continue
			}
			ch = &Change{Posts: ch.Posts, Products: ch.Products, Kind: KindProduct, Committed: ch.Committed}
		}
		whole.next(ctx, c) // a failed one
		a, err := c.Apply(ctx, *ch)
		if !done(a, err, *ch) {
			if failedLanguage != nil {
				return failedLanguage
			}
			if ctx.Err() == nil {
				keep(*ch) // kept, without waking the loop: it tries again after retryApply
			}
			continue
		}
		whole.applied(*ch)
	}
}

// Apply reads what the change names into a new snapshot and swaps it in:
// the whole shop for a change to everything, else only the products it
// touches that the catalog shows (a draft's or an order's meta costs no
// read). It reports what differs from the snapshot before.
func (c *Catalog) Apply(ctx context.Context, ch Change) (Applied, error) {
	start := time.Now()
	old := c.cur.Load()
	if ch.All || old == nil {
		s, err := c.reload(ctx)
		c.lastLoad.Store(&loadOutcome{err: domainError(err)})
		if err != nil {
			return Applied{}, domainError(err)
		}
		a := diff(old, s, nil)
		if old != nil && !a.Nothing() {
			c.sawChange(a.Everything, a.Products) // whatever the feed said the kind was
		}
		a.Change, a.Took = ch, time.Since(start)
		return a, nil
	}
	ids := old.relevant(ch.Posts, ch.Products)
	if len(ids) == 0 {
		return Applied{Snapshot: old, Change: ch, Took: time.Since(start)}, nil
	}
	s, ids, err := c.refresh(ctx, ids)
	if err != nil {
		return Applied{}, err
	}
	a := diff(old, s, ids)
	if !a.Nothing() {
		c.sawChange(false, a.Products)
	}
	a.Change, a.Took = ch, time.Since(start)
	return a, nil
}

// relevant returns of posts those the snapshot shows or that show in a
// product it shows (a variation, a grouped product's child), the products
// showing those that are an image (an attachment), and every one of
// products.
func (s *Snapshot) relevant(posts, products []int64) []int64 {
	out := slices.Clone(products)
	for _, id := range posts {
		if _, ok := s.all[id]; ok {
			out = append(out, id)
		} else if len(s.groups[id]) > 0 {
			out = append(out, id)
		}
		out = append(out, s.images[id]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// diff says what differs between two snapshots: for the products with the
// IDs, or for every product when ids is nil.
func diff(old, s *Snapshot, ids []int64) Applied {
	a := Applied{Snapshot: s}
	if old == nil || !reflect.DeepEqual(old.sh, s.sh) || !reflect.DeepEqual(old.t, s.t) ||
		!reflect.DeepEqual(old.trpSlugs, s.trpSlugs) {
		a.Everything = true
		return a
	}
	if ids == nil {
		for id := range old.all {
			ids = append(ids, id)
		}
		for id := range s.all {
			if _, ok := old.all[id]; !ok {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
	}
	for _, id := range ids {
		was, is := old.all[id], s.all[id]
		if was == is {
			continue // shared: untouched
		}
		if moves(old, was, s, is) {
			a.Lists = true
			a.Products = append(a.Products, id)
			continue
		}
		if was != nil && is != nil && !reflect.DeepEqual(*was, *is) {
			a.Products = append(a.Products, id)
		}
	}
	return a
}

// moves says whether a product's change can move the lists, the category
// counts or the index: it entered or left the products served, or changed
// a term that places it in the lists (listTerms) or its slug (the slug
// filter, a 404's hints). Lists are in ID order, so no other field moves
// them: a price, a text, an image or, on a shop that shows out-of-stock
// products, the stock change only the pages that show the product.
func moves(old *Snapshot, was *item, s *Snapshot, is *item) bool {
	served := func(sn *Snapshot, it *item) bool { return it != nil && sn.sh.serves(it) }
	if served(old, was) != served(s, is) {
		return true
	}
	if was == nil || is == nil {
		return was != is // published in another language only: translation hints
	}
	return was.slug() != is.slug() || !slices.Equal(old.listTerms(was), s.listTerms(is)) || was.wpml != is.wpml
}

// listTerms are the terms of a product that place it in the lists: its
// categories and frameworks (the filters and counts) and the visibility
// terms that keep it out of the catalog. Stock going out is one of them
// only where the shop hides out-of-stock products.
func (s *Snapshot) listTerms(it *item) []int64 {
	ex := s.t.catalogExclusions(s.sh.hideOutOfStock)
	var out []int64
	for _, tt := range it.ttids {
		_, cat := s.t.catByTT[tt]
		_, fw := s.t.fwByTT[tt]
		if cat || fw || slices.Contains(ex, tt) {
			out = append(out, tt)
		}
	}
	return out
}

// loadOutcome is how the last whole read ended.
type loadOutcome struct{ err error }

// LoadError is why the last whole read of the shop failed, nil when it
// succeeded or none was tried: /readyz gives it while there is no
// snapshot to serve.
func (c *Catalog) LoadError() error {
	if o := c.lastLoad.Load(); o != nil {
		return o.err
	}
	return nil
}
