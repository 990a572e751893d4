package catalog

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	"catalogd/api"
)

// findBenchSize is the shop BenchmarkFind measures.
const findBenchSize = 100_000

// findBenchShop is a catalog over the store, its snapshot made.
func findBenchShop(b *testing.B, st *store) *Catalog {
	b.Helper()
	c := New(&fakeSource{st: st}, Config{Now: func() time.Time { return t0 }})
	if _, err := c.Snapshot(b.Context()); err != nil {
		b.Fatal(err)
	}
	return c
}

// seedStore is the shop make bench seeds (cmd/wpseed) in the fake store:
// titles "Script 000123", one excerpt and one description shared by every
// product, a tree of categories, some hidden, search-only, shop-only,
// out of stock, on sale or variable; the same draws.
func seedStore(n int) *store {
	s := newStore()
	s.now = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(42, 7))
	var leaves []string
	for i := range 8 {
		top := fmt.Sprintf("cat-%d", i)
		s.category(fmt.Sprintf("Category %d", i), top, "", int64(rng.IntN(5)))
		for j := range 5 {
			mid := fmt.Sprintf("%s-%d", top, j)
			s.category(fmt.Sprintf("Category %d.%d", i, j), mid, top, int64(rng.IntN(5)))
			leaves = append(leaves, mid)
			for k := range 2 {
				leaf := fmt.Sprintf("%s-%d", mid, k)
				s.category(fmt.Sprintf("Category %d.%d.%d", i, j, k), leaf, mid, 0)
				leaves = append(leaves, leaf)
			}
		}
	}
	price := func() string { return fmt.Sprintf("%d.%02d", 1+rng.IntN(80), rng.IntN(100)) }
	for i := range n {
		p := product{Title: fmt.Sprintf("Script %06d", i), Slug: fmt.Sprintf("script-%06d", i), Regular: price(),
			Excerpt:    "<p>A FiveM script with <strong>config</strong> &amp; docs.</p>",
			Content:    "<!-- wp:paragraph --><p>Description of the script, with features and install steps.</p><!-- /wp:paragraph -->",
			Categories: []string{leaves[rng.IntN(len(leaves))]}, Image: fmt.Sprintf("2026/10/script-%06d.jpg", i),
			Date: s.now.Add(-time.Duration(n-i) * time.Minute)}
		if c := leaves[rng.IntN(len(leaves))]; rng.IntN(4) == 0 && c != p.Categories[0] {
			p.Categories = append(p.Categories, c)
		}
		for _, f := range []string{"esx", "qbcore", "qbox", "standalone"} {
			if rng.IntN(2) == 0 {
				p.Frameworks = append(p.Frameworks, f)
			}
		}
		switch r := rng.IntN(100); {
		case r < 3:
			p.Visibility = "hidden"
		case r < 5:
			p.Visibility = "search"
		case r < 7:
			p.Visibility = "catalog"
		case r < 9:
			p.Status = "draft"
		}
		if rng.IntN(20) == 0 {
			p.Stock = "outofstock"
		}
		if rng.IntN(7) == 0 {
			p.Sale, p.From, p.To = "0.99", s.now.Add(-24*time.Hour), s.now.Add(time.Duration(rng.IntN(60*24))*time.Hour)
		}
		if rng.IntN(5) == 0 {
			p.Type, p.Regular, p.Sale = typeNameVariable, "", ""
			for _, f := range []string{"esx", "qbcore", "qbox", "standalone"}[:2+rng.IntN(3)] {
				p.Variations = append(p.Variations, variation{Framework: f, Regular: price()})
			}
		}
		s.add(p)
	}
	return s
}

// BenchmarkFind is what finding requests cost on shops of 100 000
// products (make bench's, whose products share their excerpt and
// description, and benchStore's, each with an excerpt of its own), each
// request its own sub-benchmark, with the 99th percentile of the calls
// (p99-ns) beside the mean, and the CPU time a call took (cpu-ns/op);
// first-order is the first sorted request after a change, which makes
// the order, and patch the change itself.
func BenchmarkFind(b *testing.B) {
	shops := []struct {
		name  string
		store func(n int) *store
		words [3]string // in the description, a title, the excerpt
	}{
		{"bench-shop", seedStore, [3]string{"install", "012345", "config"}},
		{"own-excerpts", benchStore, [3]string{"radar", "012345", "config"}},
	}
	for _, shop := range shops {
		b.Run(shop.name, func(b *testing.B) {
			st := shop.store(findBenchSize)
			c := findBenchShop(b, st)
			benchFind(b, c, st, shop.words)
		})
	}
}

func benchFind(b *testing.B, c *Catalog, st *store, words [3]string) {
	cases := []struct {
		name string
		q    api.ListQuery
	}{
		{"sorted-page", api.ListQuery{OrderBy: "price", PerPage: 20}},
		{"sorted-deep-page", api.ListQuery{OrderBy: "title", Page: 2000, PerPage: 20}},
		{"sorted-filtered-page", api.ListQuery{OrderBy: "popularity", InStock: flag(true), Framework: "esx", PerPage: 20}},
		{"price-range", api.ListQuery{MinPrice: price("10"), MaxPrice: price("20"), PerPage: 20}},
		{"facets", api.ListQuery{Facets: true, PerPage: 20}},
		{"facets-filtered", api.ListQuery{Facets: true, Framework: "esx", MaxPrice: price("30"), OnSale: flag(false), PerPage: 20}},
		// A word in the description every product shares, in one
		// product's title only, in the excerpt; three words; by relevance;
		// with facets.
		{"search-shared-word", api.ListQuery{Search: words[0], PerPage: 20}},
		{"search-title-word", api.ListQuery{Search: words[1], PerPage: 20}},
		{"search-excerpt-word", api.ListQuery{Search: words[2], PerPage: 20}},
		{"search-3-words", api.ListQuery{Search: "script " + words[1] + " " + words[2], PerPage: 20}},
		{"search-3-words-relevance", api.ListQuery{Search: "script with " + words[2], OrderBy: "relevance", PerPage: 20}},
		{"search-facets", api.ListQuery{Search: "script", Facets: true, PerPage: 20}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			getList(b, c, tc.q) // the orders and columns made
			b.ReportAllocs()
			// On one thread, whose CPU time is the calls' own (cpu-ns):
			// other work on the machine inflates the wall clock's.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var took []time.Duration
			cpu := threadCPU()
			for b.Loop() {
				start := time.Now()
				if _, err := c.Products(b.Context(), tc.q); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			b.ReportMetric(float64(threadCPU()-cpu)/float64(len(took)), "cpu-ns/op")
			reportP99(b, took)
		})
	}
	b.Run("first-order", func(b *testing.B) {
		snap, err := c.Snapshot(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			snap.find = &finder{}
			snap.order(orderTitle)
			snap.order(orderMinPrice)
		}
	})
	// A product's change, its rows read: with no order made, and with
	// every order, the columns and the search texts made, which the new
	// snapshot derives.
	for _, warm := range []bool{false, true} {
		name := "patch"
		if warm {
			name = "patch-orders-made"
		}
		b.Run(name, func(b *testing.B) {
			snap, err := c.Snapshot(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			snap.find = &finder{}
			if warm {
				for k := range orderKinds {
					snap.order(k)
				}
				snap.cols()
				snap.searchTexts()
			}
			id := snap.served[len(snap.served)/2].id
			rows := st.productRows([]int64{id})
			for b.Loop() {
				snap.With(rows, []int64{id}, snap.Version+1, Config{})
			}
		})
	}
}

func reportP99(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)*99/100].Nanoseconds()), "p99-ns")
}

// BenchmarkFindMemory reports the heap of a snapshot of 100 000 products
// (snapshot-MB), and what its finder adds once every order, the columns,
// the on-sale set and the search texts are made (finder-MB).
func BenchmarkFindMemory(b *testing.B) {
	for _, shop := range []struct {
		name  string
		store func(int) *store
	}{{"bench-shop", seedStore}, {"own-excerpts", benchStore}} {
		b.Run(shop.name, func(b *testing.B) {
			rows := shop.store(findBenchSize).shopRows()
			for b.Loop() {
				runtime.GC()
				base := heapBytes()
				fresh := cloneRows(rows)
				s, err := Build(fresh, Config{}, 1, t0)
				if err != nil {
					b.Fatal(err)
				}
				fresh = nil
				runtime.GC()
				built := heapBytes()
				for k := range orderKinds {
					s.order(k)
				}
				s.onSale(t0)
				s.searchTexts()
				runtime.GC()
				made := heapBytes()
				runtime.KeepAlive(s)
				b.ReportMetric(float64(built-base)/(1<<20), "snapshot-MB")
				b.ReportMetric(float64(made-built)/(1<<20), "finder-MB")
			}
		})
	}
}

// heapBytes is the heap's live and not yet swept objects.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
