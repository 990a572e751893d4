package catalog

import (
	"slices"
	"testing"
	"time"

	"catalogd/api"
)

// findShop is the finding tests' shop: eight products (slugs a to h, in
// ID order) whose dates, prices, sales, ratings, titles and menu orders
// tie and cross so that every sort's keys and tie-breaks show; e is
// hidden, f found by search only, d out of stock and without a price,
// h free, b on sale, g on sale from an hour after t0.
func findShop() *store {
	s := newStore()
	s.category("Tools", "tools", "", 0)
	s.category("Radars", "radars", "tools", 0)
	s.category("Misc", "misc", "", 1)
	s.category("Secret", "secret", "", 2) // holds the hidden product only
	day := func(d int) time.Time { return time.Date(2026, 1, d, 9, 0, 0, 0, time.UTC) }
	s.add(product{Slug: "a", Title: "Mike", Regular: "10", Categories: []string{"radars"}, Frameworks: []string{"esx"},
		Date: day(5), Sales: "5", Rating: "4.5", RatingCounts: `a:1:{i:5;i:2;}`, MenuOrder: 2})
	s.add(product{Slug: "b", Title: "alpha", Regular: "5", Sale: "3", Categories: []string{"tools"}, Frameworks: []string{"qbcore"},
		Date: day(5), Sales: "5", Rating: "4.50", RatingCounts: `a:1:{i:5;i:3;}`, MenuOrder: 1})
	s.add(product{Slug: "c", Title: "Alpha", Type: typeNameVariable, Categories: []string{"misc"}, Date: day(1),
		Sales: "9", Rating: "4.5", RatingCounts: `a:2:{i:4;i:1;i:5;i:2;}`, MenuOrder: 1,
		Variations: []variation{{Framework: "esx", Regular: "4"}, {Framework: "qbcore", Regular: "12"}}})
	s.add(product{Slug: "d", Title: "zulu", Stock: "outofstock", Categories: []string{"misc"}, Date: day(20)})
	s.add(product{Slug: "e", Title: "Echo", Regular: "7", Visibility: "hidden", Categories: []string{"tools", "secret"}, Date: day(2)})
	s.add(product{Slug: "f", Title: "Fox", Regular: "8", Visibility: "search", Categories: []string{"misc"}, Date: day(2)})
	s.add(product{Slug: "g", Title: "Golf", Regular: "20", Sale: "15", From: t0.Add(time.Hour), Categories: []string{"tools"},
		Date: day(10), Sales: "1", Rating: "3", MenuOrder: 5})
	s.add(product{Slug: "h", Title: "golf ", Regular: "0", Date: day(3), MenuOrder: 0})
	return s
}

func price(s string) *api.Price {
	d, ok := parseDecimal(s)
	if !ok {
		panic(s)
	}
	p := api.Price(d.scaled(6))
	return &p
}

func flag(b bool) *bool { return &b }

// TestFindOrders: each sort orders the catalog-visible products as the
// storefront's clauses do, ties and directions included.
func TestFindOrders(t *testing.T) {
	c, _, _ := serve(t, findShop())
	tests := []struct {
		by, order string
		want      []string
	}{
		{"", "", []string{"a", "b", "c", "d", "g", "h"}},
		{"id", "desc", []string{"h", "g", "d", "c", "b", "a"}},
		// post_date, then ID, both descending by default: b and a share a date.
		{"date", "", []string{"d", "g", "b", "a", "h", "c"}},
		{"date", "asc", []string{"c", "h", "a", "b", "g", "d"}},
		// min_price then ID ascending: no price (d) sorts as 0, with the
		// free h, by ID; a sale's price is the active one (b).
		{"price", "", []string{"d", "h", "b", "c", "a", "g"}},
		// max_price then ID descending: c's dearest variation counts.
		{"price", "desc", []string{"g", "c", "a", "b", "h", "d"}},
		// total_sales then ID, descending: a and b sell alike.
		{"popularity", "", []string{"c", "b", "a", "g", "h", "d"}},
		// average_rating, rating_count, ID, descending.
		{"rating", "", []string{"c", "b", "a", "g", "h", "d"}},
		// post_title under the collation: case and a trailing space tie,
		// broken by ID.
		{"title", "", []string{"b", "c", "g", "h", "a", "d"}},
		{"title", "desc", []string{"d", "a", "h", "g", "c", "b"}},
		// menu_order, then title (then ID), one direction for all.
		{"menu_order", "", []string{"h", "d", "b", "c", "a", "g"}},
		{"menu_order", "desc", []string{"g", "a", "c", "b", "d", "h"}},
	}
	for _, tt := range tests {
		t.Run(tt.by+" "+tt.order, func(t *testing.T) {
			l := getList(t, c, api.ListQuery{OrderBy: tt.by, Order: tt.order})
			if got := listSlugs(l.Products); !slices.Equal(got, tt.want) {
				t.Errorf("orderby=%s order=%s: %v, want %v", tt.by, tt.order, got, tt.want)
			}
			// Every page of two holds the next two: the walk skips as it counts.
			var paged []string
			for page := 1; page <= 3; page++ {
				l := getList(t, c, api.ListQuery{OrderBy: tt.by, Order: tt.order, Page: page, PerPage: 2})
				paged = append(paged, listSlugs(l.Products)...)
			}
			if !slices.Equal(paged, tt.want) {
				t.Errorf("orderby=%s order=%s in pages of 2: %v, want %v", tt.by, tt.order, paged, tt.want)
			}
			wantFinding := tt.by != "" && tt.by != "id"
			if l.Finding != wantFinding {
				t.Errorf("Finding = %v, want %v", l.Finding, wantFinding)
			}
		})
	}
}

// TestFindFilters: the price filter keeps the products whose price range
// meets the one asked; in_stock and on_sale keep those whose field says
// so; each combines with the others and with category and framework.
func TestFindFilters(t *testing.T) {
	c, _, _ := serve(t, findShop())
	tests := []struct {
		name string
		q    api.ListQuery
		want []string
	}{
		{"a range meeting a variable product's", api.ListQuery{MinPrice: price("4"), MaxPrice: price("10")}, []string{"a", "c"}},
		{"a range's bounds inclusive", api.ListQuery{MinPrice: price("10"), MaxPrice: price("10")}, []string{"a", "c"}},
		{"only an upper bound: from 0, no price and free included", api.ListQuery{MaxPrice: price("3")}, []string{"b", "d", "h"}},
		{"only a lower bound", api.ListQuery{MinPrice: price("12")}, []string{"c", "g"}},
		{"a fractional bound", api.ListQuery{MinPrice: price("10.000001")}, []string{"c", "g"}},
		{"no product in range", api.ListQuery{MinPrice: price("100")}, []string{}},
		{"in stock", api.ListQuery{InStock: flag(true)}, []string{"a", "b", "c", "g", "h"}},
		{"out of stock", api.ListQuery{InStock: flag(false)}, []string{"d"}},
		{"on sale", api.ListQuery{OnSale: flag(true)}, []string{"b"}},
		{"not on sale", api.ListQuery{OnSale: flag(false)}, []string{"a", "c", "d", "g", "h"}},
		{"with a category and its descendants", api.ListQuery{Category: "tools", MaxPrice: price("10")}, []string{"a", "b"}},
		{"with a framework", api.ListQuery{Framework: "esx", InStock: flag(true)}, []string{"a", "c"}},
		{"sorted", api.ListQuery{InStock: flag(true), OrderBy: "price", Order: "desc"}, []string{"g", "c", "a", "b", "h"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := getList(t, c, tt.q)
			if got := listSlugs(l.Products); !slices.Equal(got, tt.want) || l.Total != len(tt.want) {
				t.Errorf("%+v: %v (total %d), want %v", tt.q, got, l.Total, tt.want)
			}
			if !l.Finding {
				t.Error("a filtered page is no finding page")
			}
		})
	}
}

// TestFindOnSaleMovesWithTheClock: on_sale selects what the products'
// on_sale says at the time asked, and its page expires when any product's
// sale starts or ends, listed or not.
func TestFindOnSaleMovesWithTheClock(t *testing.T) {
	c, _, clk := serve(t, findShop())
	q := api.ListQuery{OnSale: flag(true)}
	l := getList(t, c, q)
	if got := listSlugs(l.Products); !slices.Equal(got, []string{"b"}) || !l.ExpiresAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("at t0: %v, expiring %v; want [b], expiring when g's sale starts, %v", got, l.ExpiresAt, t0.Add(time.Hour))
	}
	clk.set(t0.Add(2 * time.Hour))
	l = getList(t, c, q)
	if got := listSlugs(l.Products); !slices.Equal(got, []string{"b", "g"}) || !l.ExpiresAt.IsZero() {
		t.Errorf("once g's sale began: %v, expiring %v; want [b g], never", got, l.ExpiresAt)
	}
	if !l.Modified.Equal(t0.Add(time.Hour)) {
		t.Errorf("once g's sale began: modified %v, want its start %v", l.Modified, t0.Add(time.Hour))
	}
	clk.set(t0)
	if got := listSlugs(getList(t, c, q).Products); !slices.Equal(got, []string{"b"}) {
		t.Errorf("the clock set back: %v, want [b]", got)
	}
}
