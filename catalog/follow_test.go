package catalog

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestApplyReadsAndReportsOnlyWhatChanged: a change re-reads only the
// products it touches that the catalog shows, and reports exactly what the
// response caches must drop: a price edit drops the product (and the
// grouped product listing it), not the lists; a product entering or
// leaving the catalog, or changing category, moves the lists too; an
// order's meta reads nothing; an option moves everything; a whole re-read
// in which only one product differs drops only that one.
func TestApplyReadsAndReportsOnlyWhatChanged(t *testing.T) {
	ctx := context.Background()
	edited := t0.Add(time.Minute)
	type ids = []int64
	tests := []struct {
		name   string
		change func(s *store, p map[string]int64) Change
		// want: the Applied's fields; reads: whether LoadProducts ran,
		// whole: whether LoadShop ran.
		everything, lists bool
		products          []string
		reads, whole      bool
	}{
		{"a price edited", func(s *store, p map[string]int64) Change {
			s.setMeta(p["b"], metaRegularPrice, "7")
			s.setMeta(p["b"], metaPrice, "7")
			s.stored[p["b"]] = "7"
			s.update(p["b"], edited, func(*Post) {})
			return Change{Posts: ids{p["b"]}, Kind: KindProduct}
		}, false, false, []string{"b", "group"}, true, false},
		{"an unpublished product", func(s *store, p map[string]int64) Change {
			s.update(p["a"], edited, func(x *Post) { x.Status = "draft" })
			return Change{Products: ids{p["a"]}, Kind: KindProduct}
		}, false, true, []string{"a"}, true, false},
		{"a product moved to another category", func(s *store, p map[string]int64) Change {
			s.rels[p["c"]] = nil
			s.relate(p["c"], taxCategory, "tools")
			return Change{Posts: ids{p["c"]}, Kind: KindProduct}
		}, false, true, []string{"c"}, true, false},
		{"out of stock, on a shop that lists out-of-stock products", func(s *store, p map[string]int64) Change {
			s.setMeta(p["c"], metaStockStatus, "outofstock")
			s.relate(p["c"], taxVisibility, "outofstock")
			return Change{Posts: ids{p["c"]}, Kind: KindProduct}
		}, false, false, []string{"c"}, true, false},
		{"out of stock, on a shop that hides them", func(s *store, p map[string]int64) Change {
			s.setMeta(p["c"], metaStockStatus, "outofstock")
			s.relate(p["c"], taxVisibility, "outofstock")
			return Change{Posts: ids{p["c"]}, Kind: KindProduct}
		}, false, true, []string{"c"}, true, false},
		{"a new product published", func(s *store, p map[string]int64) Change {
			p["d"] = s.add(product{Title: "D", Regular: "5"})
			return Change{Products: ids{p["d"]}, Kind: KindProduct}
		}, false, true, []string{"d"}, true, false},
		{"an order's meta: nothing the catalog shows", func(s *store, p map[string]int64) Change {
			return Change{Posts: ids{9999}, Kind: KindProduct}
		}, false, false, nil, false, false},
		{"a product saved with nothing visible changed", func(s *store, p map[string]int64) Change {
			s.update(p["b"], t0.Add(-48*time.Hour), func(*Post) {})
			return Change{Posts: ids{p["b"]}, Kind: KindProduct}
		}, false, false, nil, true, false},
		{"the currency", func(s *store, p map[string]int64) Change {
			s.options["woocommerce_currency"] = "GBP"
			return Change{All: true, Kind: KindOption}
		}, true, false, nil, false, true},
		{"a category renamed", func(s *store, p map[string]int64) Change {
			s.terms[s.termIx[taxCategory]["jobs"]].Name = "Jobs &amp; more"
			return Change{All: true, Kind: KindTerm}
		}, true, false, nil, false, true},
		{"an image edited in the media library: its attachment's file alone", func(s *store, p map[string]int64) Change {
			att, err := strconv.ParseInt(s.meta[p["c"]][MetaThumbnail][0], 10, 64)
			if err != nil {
				panic(err)
			}
			s.setMeta(att, MetaAttachedFile, "2026/11/c-e1764000000.jpg")
			return Change{Posts: ids{att}, Kind: KindProduct}
		}, false, false, []string{"c"}, true, false},
		{"a whole re-read where one product differs", func(s *store, p map[string]int64) Change {
			s.setMeta(p["c"], metaStockStatus, "outofstock")
			return Change{All: true, Kind: KindResync}
		}, false, false, []string{"c"}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore()
			if strings.Contains(tt.name, "hides") {
				s.options["woocommerce_hide_out_of_stock_items"] = "yes"
			}
			s.category("Jobs", "jobs", "", 0)
			s.category("Tools", "tools", "", 0)
			p := map[string]int64{}
			p["a"] = s.add(product{Title: "A", Regular: "10", Categories: []string{"jobs"}})
			p["b"] = s.add(product{Title: "B", Regular: "20"})
			p["c"] = s.add(product{Title: "C", Regular: "30", Categories: []string{"jobs"}, Image: "2026/11/c.jpg"})
			p["group"] = s.add(product{Title: "Group", Type: typeNameGrouped, Children: []int64{p["b"]}})
			cat, src, clk := serve(t, s)
			old, err := cat.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var ch Change
			src.do(func(s *store) { ch = tt.change(s, p) })
			clk.set(edited)
			reads, shops := len(src.products), src.shops
			a, err := cat.Apply(ctx, ch)
			if err != nil {
				t.Fatal(err)
			}
			var want []int64
			for _, name := range tt.products {
				want = append(want, p[name])
			}
			slices.Sort(want)
			slices.Sort(a.Products)
			if a.Everything != tt.everything || a.Lists != tt.lists || !slices.Equal(a.Products, want) {
				t.Errorf("applied: everything %v, lists %v, products %v; want %v, %v, %v",
					a.Everything, a.Lists, a.Products, tt.everything, tt.lists, want)
			}
			if got := len(src.products) > reads; got != tt.reads {
				t.Errorf("products read: %v, want %v", got, tt.reads)
			}
			if got := src.shops > shops; got != tt.whole {
				t.Errorf("whole shop read: %v, want %v", got, tt.whole)
			}
			cur, _ := cat.Snapshot(ctx)
			if a.Snapshot != cur {
				t.Errorf("Applied's snapshot %v, current %v", a.Snapshot, cur)
			}
			// What was not reported kept its very item: the caches may
			// keep its responses.
			for id, it := range old.all {
				if !slices.Contains(a.Products, id) && !a.Everything && cur.all[id] != it &&
					!(cur.all[id] != nil && equalItems(cur.all[id], it)) {
					t.Errorf("product %d changed but was not reported", id)
				}
			}
		})
	}
}

func equalItems(a, b *item) bool { return reflect.DeepEqual(*a, *b) }

// nextApplied is the next change Follow applied, failing the test when
// none comes within 10 s.
func nextApplied(t *testing.T, applied <-chan Applied, what string) Applied {
	t.Helper()
	select {
	case a := <-applied:
		return a
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: nothing applied in 10s", what)
	}
	return Applied{}
}

// TestWholeReadEvery: the whole read that catches what a feed cannot see
// comes every ten minutes, and every hour, as a check only, where the feed
// says it sees every change (the binary log) and while it does.
func TestWholeReadEvery(t *testing.T) {
	tests := []struct {
		name string
		feed Feed
		cost time.Duration // the last whole read's database time
		want time.Duration
	}{
		{"a feed that says nothing (polling)", fakeFeed{}, time.Second, maxSnapshotAge},
		{"a feed that sees every change", sightedFeed{sees: true}, time.Second, sightedSnapshotAge},
		{"a feed that does not, now", sightedFeed{sees: false}, time.Second, maxSnapshotAge},
		// Half a percent of a core: 8.4 s (make bench's 100k shop) every
		// 28 minutes, not every ten.
		{"polling a shop whose read costs 8.4 s", fakeFeed{}, 8400 * time.Millisecond, 28 * time.Minute},
		{"the binary log, a read of 90 s", sightedFeed{sees: true}, 90 * time.Second, 5 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wholeReadEvery(tt.feed, tt.cost); got != tt.want {
				t.Errorf("wholeReadEvery = %v, want %v", got, tt.want)
			}
		})
	}
	if sightedSnapshotAge <= maxSnapshotAge {
		t.Errorf("a feed that sees everything is read whole every %v, no less often than polling's %v", sightedSnapshotAge, maxSnapshotAge)
	}
}

// TestFollowReportsTheWholeReadInterval: Follow says the interval it keeps
// between whole reads, which the snapshot's staleness alert compares the
// snapshot's age with: the feed's period on a cheap shop, and on a shop
// whose whole read costs the database seconds, the longer interval that
// spaces them (hours at a million products), so that a healthy large shop
// does not look stale.
func TestFollowReportsTheWholeReadInterval(t *testing.T) {
	tests := []struct {
		name string
		feed Feed
		cost time.Duration
		want time.Duration
	}{
		{"polling a small shop", fakeFeed{changes: make(chan Change)}, 20 * time.Millisecond, maxSnapshotAge},
		{"polling a read of 8.4 s", fakeFeed{changes: make(chan Change)}, 8400 * time.Millisecond, 28 * time.Minute},
		{"the binary log, a read of 8.4 s", sightedFeed{fakeFeed{changes: make(chan Change)}, true}, 8400 * time.Millisecond, sightedSnapshotAge},
		{"the binary log, a read of 90 s", sightedFeed{fakeFeed{changes: make(chan Change)}, true}, 90 * time.Second, 5 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore()
			s.add(product{Title: "B", Regular: "20"})
			src := costlySource{&fakeSource{st: s}, tt.cost}
			cat := New(src, Config{Now: newClock(t0).now})
			if got := cat.WholeReadInterval(); got != 0 {
				t.Errorf("before Follow: %v, want 0", got)
			}
			applied := make(chan Applied, 10)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- cat.Follow(ctx, tt.feed, AppliedFunc(func(a Applied) { applied <- a })) }()
			if a := nextApplied(t, applied, "the first whole read"); !a.Change.All {
				t.Fatalf("Follow began with %+v, not a whole read", a.Change)
			}
			if got := cat.WholeReadInterval(); got != tt.want {
				t.Errorf("WholeReadInterval = %v, want %v", got, tt.want)
			}
			cancel()
			<-done
		})
	}
}

// costlySource is a source whose whole reads cost the database cost.
type costlySource struct {
	*fakeSource
	cost time.Duration
}

func (c costlySource) LoadShop(ctx context.Context, r Reads) (*ShopRows, error) {
	rows, err := c.fakeSource.LoadShop(ctx, r)
	if rows != nil {
		rows.Cost = c.cost
	}
	return rows, err
}

// sightedFeed is a feed that says whether it sees every change.
type sightedFeed struct {
	fakeFeed
	sees bool
}

func (f sightedFeed) SeesEverything() bool { return f.sees }

// fakeFeed reports what the test sends it.
type fakeFeed struct{ changes chan Change }

func (f fakeFeed) Name() string                    { return "fake" }
func (f fakeFeed) Start(ctx context.Context) error { return nil }
func (f fakeFeed) Run(ctx context.Context, h ChangeHandler) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ch := <-f.changes:
			h.OnChange(ch)
		}
	}
}

// TestMergeKeepsEveryPostAndTheEarliestCommit: changes arriving while one
// is applied become one, losing no post, and the lag is measured from the
// earliest.
func TestMergeKeepsEveryPostAndTheEarliestCommit(t *testing.T) {
	a := Change{Posts: []int64{3, 1}, Kind: KindProduct, Committed: t0.Add(time.Second)}
	a.merge(Change{Posts: []int64{2, 3}, Products: []int64{5}, Kind: KindProduct, Committed: t0})
	a.merge(Change{All: true, Kind: KindOption})
	if !slices.Equal(a.Posts, []int64{1, 2, 3}) || !slices.Equal(a.Products, []int64{5}) || !a.All ||
		a.Kind != KindOption || !a.Committed.Equal(t0) {
		t.Errorf("merged: %+v", a)
	}
}

// TestMergeKeepsAResync: a resync (the feed lost its place, which the
// follower answers by purging the edge by kind) keeps its kind whatever
// is merged into it, the catalog's own whole read included; any other
// whole read's kind wins.
func TestMergeKeepsAResync(t *testing.T) {
	product := Change{Posts: []int64{1}, Kind: KindProduct}
	resync := Change{All: true, Kind: KindResync}
	reread := Change{All: true, Kind: KindReread}
	option := Change{All: true, Kind: KindOption}
	for _, tt := range []struct {
		name string
		a, b Change
		want string
	}{
		{"a resync, then the catalog's reread", resync, reread, KindResync},
		{"the catalog's reread, then a resync", reread, resync, KindResync},
		{"a resync, then an option", resync, option, KindResync},
		{"a resync, then a product", resync, product, KindResync},
		{"a product, then a resync", product, resync, KindResync},
		{"an option, then the catalog's reread", option, reread, KindReread},
		{"a product, then an option", product, option, KindOption},
	} {
		a := tt.a
		a.merge(tt.b)
		if a.Kind != tt.want {
			t.Errorf("%s: kind %q, want %q", tt.name, a.Kind, tt.want)
		}
	}
}

// BenchmarkApplyOneProduct is what one product's change costs the catalog
// on a large shop: the read (from memory here) and the new snapshot that
// shares every other product. It sets the CPU a stream of changes takes.
func BenchmarkApplyOneProduct(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			s := newStore()
			s.category("Jobs", "jobs", "", 0)
			var last int64
			for i := range n {
				last = s.add(product{Title: "P" + strconv.Itoa(i), Regular: "10", Categories: []string{"jobs"}})
			}
			src := &fakeSource{st: s}
			cat := New(src, Config{Now: func() time.Time { return t0 }})
			if _, err := cat.Snapshot(context.Background()); err != nil {
				b.Fatal(err)
			}
			ch := Change{Posts: []int64{last}, Kind: KindProduct}
			for b.Loop() {
				if _, err := cat.Apply(context.Background(), ch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPatchedLookupsEqualRebuiltOnes: a change that keeps every product in
// place patches the snapshot's lookups instead of rebuilding them; what it
// patches must equal what a rebuild makes — the list's filters and counts
// read them.
func TestPatchedLookupsEqualRebuiltOnes(t *testing.T) {
	ctx := context.Background()
	s := newStore()
	s.category("Jobs", "jobs", "", 0)
	s.category("Tools", "tools", "", 0)
	var ids []int64
	for i := range 40 {
		cat := []string{"jobs", "tools"}[i%2]
		ids = append(ids, s.add(product{Title: "P" + strconv.Itoa(i), Regular: "10", Categories: []string{cat}}))
	}
	cat, src, _ := serve(t, s)
	if _, err := cat.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	changes := []struct {
		name string
		do   func(s *store, id int64)
	}{
		{"price", func(s *store, id int64) { s.setMeta(id, metaRegularPrice, "12"); s.setMeta(id, metaPrice, "12") }},
		{"category moved", func(s *store, id int64) { s.rels[id] = nil; s.relate(id, taxCategory, "tools") }},
		{"category added", func(s *store, id int64) { s.relate(id, taxCategory, "jobs") }},
		{"out of stock", func(s *store, id int64) {
			s.setMeta(id, metaStockStatus, "outofstock")
			s.relate(id, taxVisibility, "outofstock")
		}},
	}
	for i, ch := range changes {
		id := ids[(i*7)%len(ids)]
		prev, _ := cat.Snapshot(ctx)
		src.do(func(s *store) { ch.do(s, id) })
		if _, err := cat.Apply(ctx, Change{Posts: []int64{id}, Kind: KindProduct}); err != nil {
			t.Fatal(err)
		}
		got, _ := cat.Snapshot(ctx)
		if reflect.ValueOf(got.slugs).UnsafePointer() != reflect.ValueOf(prev.slugs).UnsafePointer() {
			t.Fatalf("%s: the lookups were rebuilt, not patched: the test checks nothing", ch.name)
		}
		want := *got
		want.index()
		if !slices.Equal(idsOf(got.served), idsOf(want.served)) || !slices.EqualFunc(got.served, want.served,
			func(a, b *item) bool { return a == b }) {
			t.Errorf("%s: served products differ from a rebuild", ch.name)
		}
		for tt := range maps.Keys(want.members) {
			if !equalBits(got.members[tt], want.members[tt]) {
				t.Errorf("%s: term %d's members %v, a rebuild has %v", ch.name, tt, got.members[tt], want.members[tt])
			}
		}
		for tt := range maps.Keys(got.members) {
			if !equalBits(got.members[tt], want.members[tt]) {
				t.Errorf("%s: term %d's members %v, a rebuild has %v", ch.name, tt, got.members[tt], want.members[tt])
			}
		}
		if !reflect.DeepEqual(got.slugs, want.slugs) || !reflect.DeepEqual(got.groups, want.groups) ||
			!reflect.DeepEqual(got.wpmlServed, want.wpmlServed) || !equalBits(got.every, want.every) {
			t.Errorf("%s: the slug, group, translation or population lookups differ from a rebuild", ch.name)
		}
	}
}

func idsOf(items []*item) []int64 {
	out := make([]int64, len(items))
	for i, it := range items {
		out[i] = it.id
	}
	return out
}

// equalBits compares two sets, a missing one being empty.
func equalBits(a, b bitset) bool {
	for i := range max(len(a), len(b)) {
		var x, y uint64
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return false
		}
	}
	return true
}

// TestFollowConfirms: a change the feed asks to confirm (it may report a
// commit before other sessions see it) is read at once and again after
// the delay; a change to everything is read once, after the delay, since
// a whole read is long.
func TestFollowConfirms(t *testing.T) {
	s := newStore()
	b := s.add(product{Title: "B", Regular: "20"})
	cat, src, _ := serve(t, s)
	feed := fakeFeed{changes: make(chan Change)}
	applied := make(chan Applied, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go cat.Follow(ctx, feed, AppliedFunc(func(a Applied) { applied <- a }))
	next := func(what string) Applied { t.Helper(); return nextApplied(t, applied, what) }
	next("the first whole read")
	counts := func() (shops, products int) {
		src.do(func(*store) { shops, products = src.shops, len(src.products) })
		return
	}
	shops0, products0 := counts()
	const confirm = 50 * time.Millisecond

	feed.changes <- Change{Posts: []int64{b}, Kind: KindProduct, Confirm: confirm}
	next("the product read at once")
	next("the product read again")
	if _, products := counts(); products-products0 != 2 {
		t.Errorf("%d reads of the product, want 2: at once and to confirm", products-products0)
	}

	start := time.Now()
	feed.changes <- Change{All: true, Kind: KindOption, Confirm: confirm}
	if a := next("the whole read"); !a.Change.All || time.Since(start) < confirm {
		t.Errorf("whole read %+v after %v, want it after the confirmation delay %v", a.Change, time.Since(start), confirm)
	}
	if shops, _ := counts(); shops-shops0 != 1 {
		t.Errorf("%d whole reads, want 1", shops-shops0)
	}
}
