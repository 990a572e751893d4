package catalog

import (
	"runtime"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	"catalogd/api"
)

// findBenchSize is the shop BenchmarkFind measures.
const findBenchSize = 100_000

// findBenchShop is a catalog over benchStore(n), its snapshot made, and
// the store.
func findBenchShop(b *testing.B, n int) (*Catalog, *store) {
	b.Helper()
	st := benchStore(n)
	c := New(&fakeSource{st: st}, Config{Now: func() time.Time { return t0 }})
	if _, err := c.Snapshot(b.Context()); err != nil {
		b.Fatal(err)
	}
	return c, st
}

// BenchmarkFind is what finding requests cost on a shop of 100 000
// products, each its own sub-benchmark, with the 99th percentile of the
// calls (p99-ns) beside the mean; first-order is the first sorted request
// after a change, which makes the order, and patch the change itself
// with every order made (each is carried into the new snapshot).
func BenchmarkFind(b *testing.B) {
	c, st := findBenchShop(b, findBenchSize)
	cases := []struct {
		name string
		q    api.ListQuery
	}{
		{"sorted-page", api.ListQuery{OrderBy: "price", PerPage: 20}},
		{"sorted-deep-page", api.ListQuery{OrderBy: "title", Page: 2000, PerPage: 20}},
		{"sorted-filtered-page", api.ListQuery{OrderBy: "popularity", Category: "kind-03", InStock: flag(true), PerPage: 20}},
		{"price-range", api.ListQuery{MinPrice: price("10"), MaxPrice: price("20"), PerPage: 20}},
		{"facets", api.ListQuery{Facets: true, PerPage: 20}},
		{"facets-filtered", api.ListQuery{Facets: true, Category: "kind-01", MaxPrice: price("30"), OnSale: flag(false), PerPage: 20}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			getList(b, c, tc.q) // the orders and columns made
			b.ReportAllocs()
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := c.Products(b.Context(), tc.q); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
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
	// every order and the columns made, which the new snapshot derives.
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
// (snapshot-MB), and what its finder adds once every order, the columns
// and the on-sale set are made (finder-MB).
func BenchmarkFindMemory(b *testing.B) {
	rows := benchShopRows(findBenchSize)
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
		runtime.GC()
		made := heapBytes()
		runtime.KeepAlive(s)
		b.ReportMetric(float64(built-base)/(1<<20), "snapshot-MB")
		b.ReportMetric(float64(made-built)/(1<<20), "finder-MB")
	}
}

// heapBytes is the heap's live and not yet swept objects.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
