package catalog

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"catalogd/api"
)

// TestFacets: the facets count the filtered products, each leaving its own
// filter out, as the storefront's filter widgets count; categories with
// their descendants, those the categories resource lists only; zero
// counts left out; the price range as the list writes prices.
func TestFacets(t *testing.T) {
	c, _, _ := serve(t, findShop())
	tests := []struct {
		name string
		q    api.ListQuery
		want api.Facets
	}{
		{"the whole catalog", api.ListQuery{},
			api.Facets{Categories: map[string]int{"tools": 3, "radars": 1, "misc": 2, "uncategorized": 1},
				Frameworks: map[string]int{"esx": 2, "qbcore": 2}, Stock: api.StockFacet{InStock: 5, OutOfStock: 1},
				OnSale: 1, Price: &api.PriceFacet{Min: "0.00", Max: "20.00"}}},
		{"a category: every category still counted", api.ListQuery{Category: "tools"},
			api.Facets{Categories: map[string]int{"tools": 3, "radars": 1, "misc": 2, "uncategorized": 1},
				Frameworks: map[string]int{"esx": 1, "qbcore": 1}, Stock: api.StockFacet{InStock: 3},
				OnSale: 1, Price: &api.PriceFacet{Min: "3.00", Max: "20.00"}}},
		{"a framework: every framework still counted", api.ListQuery{Framework: "esx"},
			api.Facets{Categories: map[string]int{"radars": 1, "tools": 1, "misc": 1},
				Frameworks: map[string]int{"esx": 2, "qbcore": 2}, Stock: api.StockFacet{InStock: 2},
				Price: &api.PriceFacet{Min: "4.00", Max: "12.00"}}},
		{"in stock: both stocks still counted", api.ListQuery{InStock: flag(true)},
			api.Facets{Categories: map[string]int{"tools": 3, "radars": 1, "misc": 1, "uncategorized": 1},
				Frameworks: map[string]int{"esx": 2, "qbcore": 2}, Stock: api.StockFacet{InStock: 5, OutOfStock: 1},
				OnSale: 1, Price: &api.PriceFacet{Min: "0.00", Max: "20.00"}}},
		{"on sale: the sale still counted over the rest", api.ListQuery{OnSale: flag(true)},
			api.Facets{Categories: map[string]int{"tools": 1}, Frameworks: map[string]int{"qbcore": 1},
				Stock: api.StockFacet{InStock: 1}, OnSale: 1, Price: &api.PriceFacet{Min: "3.00", Max: "3.00"}}},
		{"a price range: the range over the rest", api.ListQuery{MinPrice: price("4"), MaxPrice: price("10")},
			api.Facets{Categories: map[string]int{"tools": 1, "radars": 1, "misc": 1},
				Frameworks: map[string]int{"esx": 2, "qbcore": 1}, Stock: api.StockFacet{InStock: 2},
				Price: &api.PriceFacet{Min: "0.00", Max: "20.00"}}},
		{"nothing selected", api.ListQuery{Category: "misc", MinPrice: price("50"), InStock: flag(true)},
			api.Facets{Categories: map[string]int{}, Frameworks: map[string]int{}, Price: &api.PriceFacet{Min: "4.00", Max: "12.00"}}},
		{"nothing at all", api.ListQuery{Framework: "standalone"},
			api.Facets{Categories: map[string]int{}, Frameworks: map[string]int{"esx": 2, "qbcore": 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.q.Facets = true
			l := getList(t, c, tt.q)
			if l.Facets == nil || !reflect.DeepEqual(*l.Facets, tt.want) {
				t.Errorf("%+v: facets\n%s\nwant\n%s", tt.q, facetString(l.Facets), facetString(&tt.want))
			}
			if !l.Finding {
				t.Error("a page with facets is no finding page")
			}
			// Facets ignore paging.
			tt.q.PerPage = 1
			if l := getList(t, c, tt.q); !reflect.DeepEqual(*l.Facets, tt.want) {
				t.Errorf("per_page=1: facets %s", facetString(l.Facets))
			}
		})
	}
	if l := getList(t, c, api.ListQuery{}); l.Facets != nil {
		t.Errorf("facets unasked: %s", facetString(l.Facets))
	}
}

func facetString(f *api.Facets) string {
	if f == nil {
		return "<nil>"
	}
	p := "<nil>"
	if f.Price != nil {
		p = fmt.Sprintf("%+v", *f.Price)
	}
	return fmt.Sprintf("categories %v frameworks %v stock %+v on sale %d price %s", f.Categories, f.Frameworks, f.Stock, f.OnSale, p)
}

// TestFacetsPriceFormat: the range is written with the shop's decimals,
// rounded as the list rounds prices.
func TestFacetsPriceFormat(t *testing.T) {
	tests := []struct {
		decimals string
		prices   []string
		min, max string
	}{
		{"2", []string{"1.5", "30"}, "1.50", "30.00"},
		{"0", []string{"1.5", "30.49"}, "2", "30"},
		{"3", []string{"0.0005", "7.12345"}, "0.001", "7.124"}, // the lookup's four places, then the shop's three
	}
	for _, tt := range tests {
		s := newStore()
		s.options["woocommerce_price_num_decimals"] = tt.decimals
		for _, p := range tt.prices {
			s.add(product{Title: "P " + p, Regular: p})
		}
		c, _, _ := serve(t, s)
		f := getList(t, c, api.ListQuery{Facets: true}).Facets
		if f.Price == nil || f.Price.Min != tt.min || f.Price.Max != tt.max {
			t.Errorf("%v at %s decimals: price facet %s, want %s to %s", tt.prices, tt.decimals, facetString(f), tt.min, tt.max)
		}
	}
}

// TestFindAfterPatches: a snapshot made by patching products (a price, a
// sale, a title, stock, a date moved) sorts, filters and counts as one
// built whole from the same rows, whether its parent had made its orders
// or not.
func TestFindAfterPatches(t *testing.T) {
	ctx := context.Background()
	queries := []api.ListQuery{{Facets: true}, {OnSale: flag(true)}, {InStock: flag(false)}, {MaxPrice: price("9")},
		{Search: "golf"}, {Search: "aardvark", OrderBy: "relevance"}, {Search: "alpha", Facets: true}}
	for _, by := range []string{"date", "price", "popularity", "rating", "title", "menu_order"} {
		for _, order := range []string{"asc", "desc"} {
			queries = append(queries, api.ListQuery{OrderBy: by, Order: order})
		}
	}
	answers := func(c *Catalog) []*ProductList {
		var out []*ProductList
		for _, q := range queries {
			out = append(out, getList(t, c, q))
		}
		return out
	}
	edits := []struct {
		name string
		edit func(s *store, id func(slug string) int64)
	}{
		{"a price", func(s *store, id func(string) int64) {
			s.setMeta(id("a"), metaRegularPrice, "2")
			s.setMeta(id("a"), metaPrice, "2")
		}},
		{"sales and ratings", func(s *store, id func(string) int64) {
			s.setMeta(id("h"), metaTotalSales, "100")
			s.setMeta(id("d"), metaAverageRating, "5")
		}},
		{"a title and a date", func(s *store, id func(string) int64) {
			s.update(id("g"), t0, func(p *Post) { p.Title, p.Date = "Aardvark", "2027-01-01 00:00:00" })
		}},
		{"stock", func(s *store, id func(string) int64) { s.setMeta(id("a"), metaStockStatus, "outofstock") }},
		{"a sale", func(s *store, id func(string) int64) {
			s.setMeta(id("a"), metaSalePrice, "1")
			s.setMeta(id("a"), metaPrice, "1")
		}},
	}
	for _, tt := range edits {
		for _, warm := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, orders made before: %v", tt.name, warm), func(t *testing.T) {
				st := findShop()
				c, src, _ := serve(t, st)
				if warm {
					answers(c)
				}
				id := func(slug string) int64 {
					for id, p := range st.posts {
						if p.Slug == slug && p.Type == "product" {
							return id
						}
					}
					t.Fatalf("no product %q", slug)
					return 0
				}
				var ids []int64
				src.do(func(s *store) {
					tt.edit(s, id)
					for pid, p := range s.posts {
						if p.Type == "product" {
							ids = append(ids, pid)
						}
					}
				})
				slices.Sort(ids)
				if err := c.Refresh(ctx, ids[:4]...); err != nil { // a to d
					t.Fatal(err)
				}
				if err := c.Refresh(ctx, ids[4:]...); err != nil {
					t.Fatal(err)
				}
				if snap, err := c.Snapshot(ctx); err != nil {
					t.Fatal(err)
				} else if made, texts := snap.find.orders[orderTitle].peek() != nil, snap.find.texts.peek() != nil; made != warm || texts != warm {
					t.Errorf("the title order and search texts made before the patch: %v; carried into the patched snapshot: %v, %v",
						warm, made, texts)
				}
				fresh, _, _ := serve(t, st)
				got, want := answers(c), answers(fresh)
				for i := range queries {
					if g, w := got[i], want[i]; !slices.Equal(listSlugs(g.Products), listSlugs(w.Products)) ||
						!reflect.DeepEqual(g.Facets, w.Facets) {
						t.Errorf("%+v after the patch: %v %s; built whole: %v %s", queries[i],
							listSlugs(g.Products), facetString(g.Facets), listSlugs(w.Products), facetString(w.Facets))
					}
				}
			})
		}
	}
}
