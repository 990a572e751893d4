package catalog

import (
	"math/rand/v2"
	"reflect"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"testing"
	"time"

	"catalogd/api"
)

// TestAggregatesFollowPatches applies series of random changes to a shop,
// each through With (patched in place or indexed again), and compares the
// patched snapshot's aggregates (the index's counts, the categories and
// their counts with descendants) with those of a snapshot built afresh
// from the same rows: a product changing category, visibility, stock or
// status must move the counts the index and categories answer from.
func TestAggregatesFollowPatches(t *testing.T) {
	for _, tc := range []struct {
		name string
		hide string // woocommerce_hide_out_of_stock_items
		seed uint64
	}{
		{"out of stock shown", "no", 1},
		{"out of stock hidden", "yes", 2},
		{"another series", "yes", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tc.seed, 25))
			st := newStore()
			st.options["woocommerce_hide_out_of_stock_items"] = tc.hide
			cats := []string{"uncategorized"}
			for _, c := range []struct{ slug, parent string }{
				{"scripts", ""}, {"jobs", "scripts"}, {"police", "jobs"}, {"vehicles", "scripts"},
				{"maps", ""}, {"interiors", "maps"}, {"empty", ""},
			} {
				st.category(c.slug, c.slug, c.parent, 0)
				cats = append(cats, c.slug)
			}
			visibilities := []string{"visible", "catalog", "search", "hidden"}
			var ids []int64
			add := func() int64 {
				id := st.add(product{Title: "P " + strconv.Itoa(len(ids)), Regular: "10",
					Stock:      []string{"instock", "outofstock", "onbackorder"}[rng.IntN(3)],
					Visibility: visibilities[rng.IntN(len(visibilities))],
					Categories: []string{cats[rng.IntN(len(cats))]}})
				ids = append(ids, id)
				return id
			}
			for range 150 {
				add()
			}
			cfg := Config{Now: func() time.Time { return t0 }}
			snap, err := Build(st.shopRows(), cfg, 1, t0)
			if err != nil {
				t.Fatal(err)
			}
			without := func(id int64, tts ...int64) {
				st.rels[id] = slices.DeleteFunc(slices.Clone(st.rels[id]), func(tt int64) bool { return slices.Contains(tts, tt) })
			}
			catTTs := make([]int64, len(cats))
			for i, c := range cats {
				catTTs[i] = st.tt(taxCategory, c)
			}
			exclude, outTT := st.tt(taxVisibility, visExcludeFromCatalog), st.tt(taxVisibility, visOutOfStock)
			for step := range 200 {
				var changed []int64
				for range 1 + rng.IntN(3) {
					id := ids[rng.IntN(len(ids))]
					var what string
					switch rng.IntN(6) {
					case 0: // moved to other categories
						what = "category"
						without(id, catTTs...)
						for range 1 + rng.IntN(2) {
							st.relate(id, taxCategory, cats[rng.IntN(len(cats))])
						}
					case 1: // hidden from the catalog, or shown again
						what = "visibility"
						if slices.Contains(st.rels[id], exclude) {
							without(id, exclude)
						} else {
							st.relate(id, taxVisibility, visExcludeFromCatalog)
						}
					case 2: // out of stock, or back in
						what = "stock"
						if slices.Contains(st.rels[id], outTT) {
							without(id, outTT)
							st.setMeta(id, metaStockStatus, "instock")
						} else {
							st.relate(id, taxVisibility, visOutOfStock)
							st.setMeta(id, metaStockStatus, "outofstock")
						}
					case 3: // unpublished, or published again
						what = "status"
						st.update(id, t0, func(p *Post) {
							p.Status = map[string]string{"publish": "draft", "draft": "publish"}[p.Status]
						})
					case 4:
						what = "new product"
						id = add()
					default: // a price edit: nothing the counts show
						what = "price"
						st.setMeta(id, "_regular_price", strconv.Itoa(1+rng.IntN(50)))
					}
					changed = append(changed, id)
					t.Logf("step %d: %s of %d", step, what, id)
				}
				version := uint64(step + 2)
				snap = snap.With(st.productRows(changed), changed, version, cfg)
				fresh, err := Build(st.shopRows(), cfg, version, t0)
				if err != nil {
					t.Fatal(err)
				}
				got, want := snap.agg, fresh.agg
				if got.visibleCount != want.visibleCount || !slices.Equal(got.visible, want.visible) {
					t.Fatalf("step %d: %d visible products after the patch, %d in a fresh build", step, got.visibleCount, want.visibleCount)
				}
				if !reflect.DeepEqual(got.categories, want.categories) {
					t.Fatalf("step %d: categories after the patch\n%+v\nin a fresh build\n%+v", step, got.categories, want.categories)
				}
			}
		})
	}
}

// bigShop is a catalog of n products over a tree of 60 categories (12
// roots of 4 children each), some hidden and some out of stock, a fifth
// variable, each with a SKU and two tags, as the benchmarks' large shop.
// The variable ones show their framework attribute, and one product in
// ten a local attribute, as "Additional information" rows.
func bigShop(b *testing.B, n int) (*Catalog, *store) {
	b.Helper()
	st := newStore()
	var cats []string
	for r := range 12 {
		root := "root-" + strconv.Itoa(r)
		st.category(root, root, "", int64(r))
		cats = append(cats, root)
		for c := range 4 {
			child := root + "-" + strconv.Itoa(c)
			st.category(child, child, root, int64(c))
			cats = append(cats, child)
		}
	}
	var tags []string
	for k := range 20 {
		tags = append(tags, "tag-"+strconv.Itoa(k))
		st.tag("Tag "+strconv.Itoa(k), tags[k])
	}
	for i := range n {
		p := product{Title: "P " + strconv.Itoa(i), Regular: "10",
			Stock:      []string{"instock", "instock", "instock", "outofstock"}[i%4],
			Visibility: []string{"visible", "visible", "visible", "visible", "hidden"}[i%5],
			Categories: []string{cats[i%len(cats)], cats[(i*7)%len(cats)]},
			SKU:        "SCR-" + strconv.Itoa(100000+i), Tags: []string{tags[i%len(tags)], tags[(i*3+1)%len(tags)]}}
		if i%5 == 1 { // a variable product in five, as the bench shop has
			p.Type, p.Regular = typeNameVariable, ""
			for k, fw := range []string{"esx", "qbcore", "qbox"} {
				p.Variations = append(p.Variations, variation{Framework: fw, Regular: strconv.Itoa(8 + k + i%3)})
			}
			p.Attributes = []productAttr{{Name: "pa_framework", Taxonomy: true}}
		}
		if i%10 == 0 {
			p.Attributes = append(p.Attributes, productAttr{Name: "Requires", Value: "OneSync | txAdmin", Position: 1})
		}
		st.add(p)
	}
	c := New(&fakeSource{st: st}, Config{Now: func() time.Time { return t0 }})
	if _, err := c.Snapshot(b.Context()); err != nil {
		b.Fatal(err)
	}
	return c, st
}

// BenchmarkCollectorCycle is what one collector cycle costs with a
// snapshot of 100 000 products live and nothing else: each cycle marks all
// of it, and the requests it overlaps wait for the cores it takes. Its
// heap-objects and heap-MB are the snapshot's (with the runtime's few).
func BenchmarkCollectorCycle(b *testing.B) {
	c, _ := bigShop(b, 100_000)
	snap, err := c.Snapshot(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	c = nil // the store and its rows go; the snapshot stays
	runtime.GC()
	live := []metrics.Sample{{Name: "/gc/heap/objects:objects"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(live)
	for b.Loop() {
		runtime.GC()
	}
	b.ReportMetric(float64(live[0].Value.Uint64()), "heap-objects")
	b.ReportMetric(float64(live[1].Value.Uint64())/(1<<20), "heap-MB")
	runtime.KeepAlive(snap)
}

// BenchmarkFirstRequest is what the index's and the categories' first
// request after a change compute from a snapshot of 100 000 products (no
// response cache: each call computes what a cache miss does).
func BenchmarkFirstRequest(b *testing.B) {
	c, _ := bigShop(b, 100_000)
	b.Run("index", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Index(b.Context()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("categories", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Categories(b.Context()); err != nil {
				b.Fatal(err)
			}
		}
	})
	// A list page's garbage paces the collector (B/op): the middle page,
	// and a top-level category's with its descendants.
	for _, q := range []struct {
		name string
		q    api.ListQuery
	}{
		{"list middle page", api.ListQuery{Page: 700, PerPage: 50}},
		{"list category", api.ListQuery{Category: "root-1", PerPage: 50}},
	} {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Products(b.Context(), q.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// What a change costs the snapshot, patched in place: a product going
	// out of stock (its visibility term moves: the aggregates derived
	// again), and a price edit (nothing the counts show: the aggregates
	// shared).
	snap, _ := c.Snapshot(b.Context())
	st := c.src.(*fakeSource).st
	i := len(snap.served) / 2
	for !snap.served[i].inStock {
		i++
	}
	ids := []int64{snap.served[i].id}
	st.setMeta(ids[0], "_regular_price", "11")
	price := st.productRows(ids)
	st.relate(ids[0], taxVisibility, visOutOfStock)
	st.setMeta(ids[0], metaStockStatus, "outofstock")
	stock := st.productRows(ids)
	for _, p := range []struct {
		name string
		rows *ProductRows
	}{{"patch", stock}, {"patch price", price}} {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = snap.With(p.rows, ids, snap.Version+1, c.cfg)
			}
		})
	}
}

// TestWithSharesAggregatesNoCountShows: a change that moves no term's
// members (a price, a text) leaves the counts as they were, and With
// shares the aggregates rather than derive them again (milliseconds a
// change at 100 000 products); one that moves a category, visibility or
// stock term derives them again. Either way they equal a fresh build's.
func TestWithSharesAggregatesNoCountShows(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(st *store, id int64)
		shared bool
	}{
		{"price", func(st *store, id int64) { st.setMeta(id, "_regular_price", "12") }, true},
		{"excerpt", func(st *store, id int64) {
			st.update(id, t0, func(p *Post) { p.Excerpt = "<p>New words.</p>" })
		}, true},
		{"out of stock", func(st *store, id int64) {
			st.relate(id, taxVisibility, visOutOfStock)
			st.setMeta(id, metaStockStatus, "outofstock")
		}, false},
		{"hidden", func(st *store, id int64) { st.relate(id, taxVisibility, visExcludeFromCatalog) }, false},
		{"another category", func(st *store, id int64) { st.relate(id, taxCategory, "maps") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore()
			st.options["woocommerce_hide_out_of_stock_items"] = "yes"
			st.category("scripts", "scripts", "", 0)
			st.category("jobs", "jobs", "scripts", 0)
			st.category("maps", "maps", "", 1)
			var ids []int64
			for i := range 6 {
				ids = append(ids, st.add(product{Title: "P " + strconv.Itoa(i), Regular: "10",
					Categories: []string{[]string{"jobs", "scripts"}[i%2]}}))
			}
			cfg := Config{Now: func() time.Time { return t0 }}
			snap, err := Build(st.shopRows(), cfg, 1, t0)
			if err != nil {
				t.Fatal(err)
			}
			id := ids[2]
			tc.change(st, id)
			patched := snap.With(st.productRows([]int64{id}), []int64{id}, 2, cfg)
			if shared := patched.agg == snap.agg; shared != tc.shared {
				t.Errorf("aggregates shared with the snapshot before: %v, want %v", shared, tc.shared)
			}
			fresh, err := Build(st.shopRows(), cfg, 2, t0)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := patched.agg, fresh.agg; got.visibleCount != want.visibleCount ||
				!reflect.DeepEqual(got.categories, want.categories) || !reflect.DeepEqual(got.wire, want.wire) {
				t.Errorf("after the patch: %d visible, categories %+v; a fresh build: %d, %+v",
					got.visibleCount, got.categories, want.visibleCount, want.categories)
			}
		})
	}
}
