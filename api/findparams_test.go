package api

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// TestFindParams: each finding parameter's good values, as read and as
// spelt canonically, and its bad ones, alone and together.
func TestFindParams(t *testing.T) {
	long := strings.Repeat("é", MaxSearchLength)
	tests := []struct {
		name      string
		raw       string
		want      ListQuery // the finding fields, for a valid query
		canonical string    // for a valid query
		params    []string  // every offending parameter
	}{
		{"search", "search=police", ListQuery{Search: "police"}, "?search=police", nil},
		{"search decoded", "search=p%C3%AAche+%22big+car%22+-radar", ListQuery{Search: `pêche "big car" -radar`},
			"?search=p%C3%AAche+%22big+car%22+-radar", nil},
		{"search spelt another way", "search=p%c3%aache%20%2Dx", ListQuery{Search: "pêche -x"}, "?search=p%C3%AAche+-x", nil},
		{"search keeps what cannot be decoded", "search=100%", ListQuery{Search: "100%"}, "?search=100%25", nil},
		{"search keeps HTML and spaces", "search=+%3Cb%3E+", ListQuery{Search: " <b> "}, "?search=+%3Cb%3E+", nil},
		{"empty search is no filter", "search=", ListQuery{}, "?search=", nil},
		{"search at the length limit", "search=" + url.QueryEscape(long), ListQuery{Search: long},
			"?search=" + url.QueryEscape(long), nil},
		{"search over the length limit", "search=" + url.QueryEscape(long+"e"), ListQuery{}, "", []string{"search"}},
		{"search not UTF-8", "search=%FF", ListQuery{}, "", []string{"search"}},
		{"search repeated", "search=a&search=b", ListQuery{}, "", []string{"search"}},

		{"orderby", "orderby=price", ListQuery{OrderBy: "price"}, "?orderby=price", nil},
		{"orderby menu_order", "orderby=menu_order&order=desc", ListQuery{OrderBy: "menu_order", Order: "desc"},
			"?order=desc&orderby=menu_order", nil},
		{"orderby relevance with a search", "orderby=relevance&search=radar",
			ListQuery{OrderBy: "relevance", Search: "radar"}, "?orderby=relevance&search=radar", nil},
		{"orderby relevance desc", "orderby=relevance&order=desc&search=radar",
			ListQuery{OrderBy: "relevance", Order: "desc", Search: "radar"}, "?order=desc&orderby=relevance&search=radar", nil},
		{"order alone", "order=desc", ListQuery{Order: "desc"}, "?order=desc", nil},
		{"orderby unknown", "orderby=price-desc", ListQuery{}, "", []string{"orderby"}},
		{"orderby is case-sensitive", "orderby=Price", ListQuery{}, "", []string{"orderby"}},
		{"orderby empty", "orderby=", ListQuery{}, "", []string{"orderby"}},
		{"orderby repeated", "orderby=date&orderby=date", ListQuery{}, "", []string{"orderby"}},
		{"order unknown", "order=DESC", ListQuery{}, "", []string{"order"}},
		{"order empty", "order=", ListQuery{}, "", []string{"order"}},
		{"relevance without a search", "orderby=relevance", ListQuery{}, "", []string{"orderby"}},
		{"relevance with an empty search", "orderby=relevance&search=", ListQuery{}, "", []string{"orderby"}},
		{"relevance with a bad search names the search", "orderby=relevance&search=%FF", ListQuery{}, "", []string{"search"}},
		{"relevance asc", "orderby=relevance&order=asc&search=x", ListQuery{}, "", []string{"order"}},
		{"popularity asc", "orderby=popularity&order=asc", ListQuery{}, "", []string{"order"}},
		{"rating asc", "orderby=rating&order=asc", ListQuery{}, "", []string{"order"}},
		{"relevance asc without a search", "orderby=relevance&order=asc", ListQuery{}, "", []string{"orderby", "order"}},

		{"price range", "min_price=10&max_price=49.99", ListQuery{MinPrice: ptr(Price(10e6)), MaxPrice: ptr(Price(49_990_000))},
			"?max_price=49.99&min_price=10", nil},
		{"price canonical spelling", "min_price=010.500", ListQuery{MinPrice: ptr(Price(10_500_000))}, "?min_price=10.5", nil},
		{"equal bounds", "min_price=5&max_price=5.0", ListQuery{MinPrice: ptr(Price(5e6)), MaxPrice: ptr(Price(5e6))},
			"?max_price=5&min_price=5", nil},
		{"zero bound", "max_price=0", ListQuery{MaxPrice: ptr(Price(0))}, "?max_price=0", nil},
		{"min above max", "min_price=10&max_price=9.99", ListQuery{}, "", []string{"min_price"}},
		{"negative price", "min_price=-1", ListQuery{}, "", []string{"min_price"}},
		{"price with a comma", "max_price=9,99", ListQuery{}, "", []string{"max_price"}},
		{"price exponent", "max_price=1e3", ListQuery{}, "", []string{"max_price"}},
		{"price empty", "min_price=", ListQuery{}, "", []string{"min_price"}},
		{"price repeated", "max_price=1&max_price=2", ListQuery{}, "", []string{"max_price"}},
		{"bad max leaves min alone", "min_price=10&max_price=x", ListQuery{}, "", []string{"max_price"}},

		{"in_stock true", "in_stock=true", ListQuery{InStock: ptr(true)}, "?in_stock=true", nil},
		{"in_stock false", "in_stock=false", ListQuery{InStock: ptr(false)}, "?in_stock=false", nil},
		{"on_sale true", "on_sale=true", ListQuery{OnSale: ptr(true)}, "?on_sale=true", nil},
		{"facets", "facets=true", ListQuery{Facets: true}, "?facets=true", nil},
		{"facets false", "facets=false", ListQuery{}, "?facets=false", nil},
		{"in_stock 1", "in_stock=1", ListQuery{}, "", []string{"in_stock"}},
		{"on_sale TRUE", "on_sale=TRUE", ListQuery{}, "", []string{"on_sale"}},
		{"facets yes", "facets=yes", ListQuery{}, "", []string{"facets"}},
		{"facets empty", "facets=", ListQuery{}, "", []string{"facets"}},
		{"on_sale repeated", "on_sale=true&on_sale=true", ListQuery{}, "", []string{"on_sale"}},

		{"all together", "search=radar&orderby=relevance&min_price=1&max_price=2&in_stock=true&on_sale=false&facets=true&category=jobs&page=2",
			ListQuery{Search: "radar", OrderBy: "relevance", MinPrice: ptr(Price(1e6)), MaxPrice: ptr(Price(2e6)),
				InStock: ptr(true), OnSale: ptr(false), Facets: true},
			"?category=jobs&facets=true&in_stock=true&max_price=2&min_price=1&on_sale=false&orderby=relevance&page=2&search=radar", nil},
		{"every problem named", "search=%FF&orderby=x&order=up&min_price=a&max_price=b&in_stock=c&on_sale=d&facets=e",
			ListQuery{}, "", []string{"search", "orderby", "order", "min_price", "max_price", "in_stock", "on_sale", "facets"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, problems := ParseListQuery(QueryValues(tt.raw))
			if len(problems) != len(tt.params) {
				t.Fatalf("problems = %v, want %v", problems, tt.params)
			}
			for _, name := range tt.params {
				if problems[name] == "" {
					t.Errorf("no message for %s: %v", name, problems)
				}
			}
			if len(tt.params) > 0 {
				if first := problems.First(); first != tt.params[0] || ParamHints[first] == "" {
					t.Errorf("first problem %q (hint %q), want %s", first, ParamHints[first], tt.params[0])
				}
				if c := q.Canonical(); !strings.Contains(c, tt.params[0]+"!") {
					t.Errorf("Canonical() = %q, does not key the problem on %s", c, tt.params[0])
				}
				return
			}
			if got := findFields(q); got != findFields(tt.want) {
				t.Errorf("got %s, want %s", got, findFields(tt.want))
			}
			if c := q.Canonical(); c != tt.canonical {
				t.Errorf("Canonical() = %q, want %q", c, tt.canonical)
			}
			if !CanonicalQuery(strings.TrimPrefix(tt.canonical, "?")) {
				t.Errorf("CanonicalQuery(%q) = false", tt.canonical)
			}
			if same := tt.raw == strings.TrimPrefix(tt.canonical, "?"); CanonicalQuery(tt.raw) != same {
				t.Errorf("CanonicalQuery(%q) = %v, want %v", tt.raw, !same, same)
			}
		})
	}
}

// findFields is the finding parameters of q, as text.
func findFields(q ListQuery) string {
	b, _ := json.Marshal(struct {
		S, By, O    string
		Min, Max    *Price
		Stock, Sale *bool
		Facets      bool
	}{q.Search, q.OrderBy, q.Order, q.MinPrice, q.MaxPrice, q.InStock, q.OnSale, q.Facets})
	return string(b)
}

func TestSort(t *testing.T) {
	tests := []struct {
		orderBy, order string
		by             string
		desc           bool
	}{
		{"", "", "id", false},
		{"", "desc", "id", true},
		{"id", "", "id", false},
		{"id", "desc", "id", true},
		{"relevance", "", "relevance", true},
		{"relevance", "desc", "relevance", true},
		{"date", "", "date", true},
		{"date", "asc", "date", false},
		{"price", "", "price", false},
		{"price", "desc", "price", true},
		{"popularity", "", "popularity", true},
		{"rating", "", "rating", true},
		{"title", "", "title", false},
		{"title", "desc", "title", true},
		{"menu_order", "", "menu_order", false},
		{"menu_order", "desc", "menu_order", true},
	}
	for _, tt := range tests {
		t.Run(tt.orderBy+"_"+tt.order, func(t *testing.T) {
			if by, desc := (ListQuery{OrderBy: tt.orderBy, Order: tt.order}).Sort(); by != tt.by || desc != tt.desc {
				t.Errorf("Sort() = %s, %v; want %s, %v", by, desc, tt.by, tt.desc)
			}
		})
	}
}

// TestCanonicalSearch: a search's raw value is canonical exactly when it
// is url.QueryEscape of a valid search.
func TestCanonicalSearch(t *testing.T) {
	for _, s := range []string{"", "radar", "a b", "pêche", "Großes", "\"big car\" -x", "a+b", "~._-", "100%",
		"東京", "<p>x</p>", "\x00", strings.Repeat("ж", MaxSearchLength)} {
		if !canonicalSearch(url.QueryEscape(s)) {
			t.Errorf("canonicalSearch(QueryEscape(%q)) = false", s)
		}
	}
	for _, raw := range []string{"a%20b", "%e2%82%ac", "%41", "%2D", "%7E", "a b", "a/b", "%FF", "%C3", "%", "%2",
		"%zz", url.QueryEscape(strings.Repeat("ж", MaxSearchLength+1)), strings.Repeat("a", MaxSearchLength+1)} {
		if canonicalSearch(raw) {
			t.Errorf("canonicalSearch(%q) = true", raw)
		}
	}
}

// TestFacetsWire: a list answers without facets unless they were asked
// for; asked for, every facet is there, and price is null when no
// product has a price.
func TestFacetsWire(t *testing.T) {
	b, err := json.Marshal(ProductList{Products: []Product{}})
	if err != nil || strings.Contains(string(b), "facets") {
		t.Fatalf("without facets: %s, %v", b, err)
	}
	b, err = json.Marshal(ProductList{Products: []Product{}, Facets: &Facets{
		Categories: map[string]int{"jobs": 2}, Frameworks: map[string]int{"esx": 1},
		Stock: StockFacet{InStock: 2, OutOfStock: 1}, OnSale: 1}})
	want := `"facets":{"categories":{"jobs":2},"frameworks":{"esx":1},"stock":{"in_stock":2,"out_of_stock":1},"on_sale":1,"price":null}`
	if err != nil || !strings.Contains(string(b), want) {
		t.Fatalf("with facets: %s, %v; want %s", b, err, want)
	}
	b, _ = json.Marshal(Facets{Price: &PriceFacet{Min: "1.5", Max: "30"}})
	if !strings.Contains(string(b), `"price":{"min":"1.5","max":"30"}`) {
		t.Errorf("price facet: %s", b)
	}
}
