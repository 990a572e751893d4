package catalog

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// followRig is a catalog of one product, B, following a feed the test
// drives, on a source it can hold or take down.
type followRig struct {
	cat     *Catalog
	src     *fakeSource
	clk     *clock
	feed    fakeFeed
	b       int64
	applied chan Applied
	done    chan error
	cancel  context.CancelFunc
}

// newFollowRig starts Follow; its first whole read is taken.
func newFollowRig(t *testing.T) *followRig {
	t.Helper()
	s := newStore()
	r := &followRig{b: s.add(product{Title: "B", Regular: "20"}), feed: fakeFeed{changes: make(chan Change)},
		applied: make(chan Applied, 10), done: make(chan error, 1)}
	r.cat, r.src, r.clk = serve(t, s)
	if _, err := r.cat.Snapshot(context.Background()); err != nil {
		t.Fatal(err)
	}
	var ctx context.Context
	ctx, r.cancel = context.WithCancel(context.Background())
	t.Cleanup(r.cancel)
	go func() { r.done <- r.cat.Follow(ctx, r.feed, AppliedFunc(func(a Applied) { r.applied <- a })) }()
	if a := r.next(t, "the first whole read"); !a.Change.All || !a.Nothing() {
		t.Errorf("Follow began with %+v, want a whole read that changed nothing", a)
	}
	return r
}

func (r *followRig) next(t *testing.T, what string) Applied {
	t.Helper()
	return nextApplied(t, r.applied, what)
}

// edit sets B's price in the store and reports the change.
func (r *followRig) edit(v string) {
	r.src.do(func(s *store) {
		s.setMeta(r.b, metaRegularPrice, v)
		s.setMeta(r.b, metaPrice, v)
		s.stored[r.b] = v
	})
	r.feed.changes <- Change{Posts: []int64{r.b}, Kind: KindProduct}
}

// price is B's price as the catalog serves it.
func (r *followRig) price(t *testing.T) string {
	t.Helper()
	return deref(getProduct(t, r.cat, "b").Price)
}

// hold reports ch, a change to everything, and returns once its whole read
// has read the store and is held; release lets it return.
func (r *followRig) hold(t *testing.T, ch Change) (release func()) {
	t.Helper()
	hold := make(chan struct{})
	r.src.do(func(*store) { r.src.hold, r.src.holding = hold, make(chan struct{}, 1) })
	r.feed.changes <- ch
	select {
	case <-r.src.holding:
	case <-time.After(10 * time.Second):
		t.Fatal("no whole read began within 10 s of a change to everything")
	}
	return func() {
		r.src.do(func(*store) { r.src.hold = nil })
		close(hold)
	}
}

// stop ends Follow, which must return ctx's error.
func (r *followRig) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	if err := <-r.done; !errors.Is(err, context.Canceled) {
		t.Errorf("Follow returned %v, want context.Canceled", err)
	}
}

// TestFollowAppliesAndRetries: Follow reads the whole shop first, then applies what the feed reports and
// says what it swapped in; a change it cannot read (the database away) is
// kept and applied once the database is back, never lost; it returns when
// the context ends.
func TestFollowAppliesAndRetries(t *testing.T) {
	r := newFollowRig(t)
	r.edit("7")
	if a := r.next(t, "a price edit"); !slices.Equal(a.Products, []int64{r.b}) {
		t.Errorf("applied %v, want product %d", a.Products, r.b)
	}
	if got := r.price(t); got != "7.00" {
		t.Errorf("price %s after the change, want 7.00", got)
	}

	r.src.do(func(s *store) { r.src.down = true })
	r.edit("8")
	// It cannot be read: the snapshot keeps serving the last state, and
	// the catalog tries again once a second, not in a tight loop.
	if got := r.price(t); got != "7.00" {
		t.Errorf("price %s while the database is away, want the last one, 7.00", got)
	}
	var tries int
	r.src.do(func(*store) { tries = r.src.tries })
	time.Sleep(300 * time.Millisecond) // a window shorter than retryApply: nothing may be tried in it
	r.src.do(func(*store) {
		if r.src.tries-tries > 1 {
			t.Errorf("%d reads tried in 300ms while the database is away, want at most 1 (retried once a second)",
				r.src.tries-tries)
		}
	})
	r.src.do(func(s *store) { r.src.down = false })
	if a := r.next(t, "the change after the database came back"); !slices.Equal(a.Products, []int64{r.b}) {
		t.Errorf("applied %v, want product %d", a.Products, r.b)
	}
	if got := r.price(t); got != "8.00" {
		t.Errorf("price %s once the database is back, want 8.00", got)
	}
	r.stop(t)
}

// TestFollowAppliesBesideAWholeRead: a whole read, once there is a
// snapshot, does not hold the changes up (at a million products it takes
// half a minute): a price edit reported while one is in flight is served
// at once, and still when the read, begun before the edit, is swapped in:
// the product is read again on top of it.
func TestFollowAppliesBesideAWholeRead(t *testing.T) {
	r := newFollowRig(t)
	release := r.hold(t, Change{All: true, Kind: KindOption})
	r.edit("7")
	if a := r.next(t, "the price edit, while the whole read is in flight"); a.Change.All || !slices.Equal(a.Products, []int64{r.b}) {
		t.Fatalf("applied %+v, want product %d alone", a, r.b)
	}
	if got := r.price(t); got != "7.00" {
		t.Errorf("price %s while the whole read is in flight, want 7.00", got)
	}
	release()
	if a := r.next(t, "the whole read"); !a.Change.All || a.Change.Kind != KindOption {
		t.Errorf("applied %+v, want the whole read of the option change", a.Change)
	}
	if got := r.price(t); got != "7.00" {
		t.Errorf("price %s once the whole read, begun before the edit, is swapped in; want 7.00", got)
	}
	r.stop(t)
}

// TestFollowQueuesWholeReads: a change to everything that arrives while a
// whole read is in flight is read once that one is in, with no other
// change to wake Follow; and a product change applied meanwhile, on a
// snapshot older than the whole-read age, does not bring one more.
func TestFollowQueuesWholeReads(t *testing.T) {
	r := newFollowRig(t)
	release := r.hold(t, Change{All: true, Kind: KindOption})
	r.clk.set(t0.Add(maxSnapshotAge + time.Minute)) // the snapshot served is past the age
	r.edit("7")
	r.next(t, "the price edit")
	r.feed.changes <- Change{All: true, Kind: KindTerm}
	release()
	if a := r.next(t, "the option's whole read"); a.Change.Kind != KindOption {
		t.Errorf("applied %+v, want the option's whole read", a.Change)
	}
	if a := r.next(t, "the term's whole read, asked for while the option's was in flight"); a.Change.Kind != KindTerm {
		t.Errorf("applied %+v, want the term's whole read", a.Change)
	}
	select {
	case a := <-r.applied:
		t.Errorf("one more change applied: %+v", a.Change)
	case <-time.After(300 * time.Millisecond): // a window in which nothing may come
	}
	r.stop(t)
}
