package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"catalogd/api"
)

// facetedList answers one page of two products, with facets when the
// query asks for them.
func facetedList(n int, w http.ResponseWriter, r *http.Request) {
	l := api.ProductList{Page: 1, PerPage: 20, Total: 2, TotalPages: 1,
		Products: []api.Product{fakeProduct("alpha"), fakeProduct("bravo")}}
	if r.URL.Query().Get("facets") == "true" {
		l.Facets = &api.Facets{Categories: map[string]int{"jobs": 2, "police": 1, "ems": 1},
			Frameworks: map[string]int{"esx": 2}, Stock: api.StockFacet{InStock: 2, OutOfStock: 1}, OnSale: 1,
			Price: &api.PriceFacet{Min: "4.00", Max: "30.00"}}
	}
	writeJSONAnswer(w, 200, l)
}

// TestFindingOptions: the finding options become the list's parameters,
// spelt as the API reads them, and the facets follow the table when asked
// for.
func TestFindingOptions(t *testing.T) {
	query := func(want string) func(t *testing.T, r result, reqs []*http.Request) {
		return func(t *testing.T, r result, reqs []*http.Request) {
			t.Helper()
			if got := reqs[0].URL.RawQuery; got != want {
				t.Errorf("query %q, want %q", got, want)
			}
		}
	}
	runFakeCases(t, []fakeCase{
		{
			name:    "every finding option",
			handler: facetedList,
			args: []string{"products", "--search", "pêche radar", "--sort", "price:desc", "--min-price", "9.5",
				"--max-price", "20", "--in-stock", "--on-sale=false", "--facets"},
			requests: 1,
			stdout: []string{"alpha", "bravo", "page 1 of 1, 2 products\n\nFacets:\n",
				"  Categories:  jobs 2, ems 1, police 1\n", "  Frameworks:  esx 2\n",
				"  Stock:       2 in stock, 1 out of stock\n", "  On sale:     1\n", "  Price:       4.00 to 30.00 EUR\n"},
			check: query("facets=true&in_stock=true&max_price=20&min_price=9.5&on_sale=false&order=desc&orderby=price&search=p%C3%AAche+radar"),
		},
		{
			name: "--sort without an order sends orderby alone", handler: facetedList,
			args: []string{"products", "--search", "radar", "--sort", "relevance"}, requests: 1,
			check: func(t *testing.T, r result, reqs []*http.Request) {
				query("orderby=relevance&search=radar")(t, r, reqs)
				if strings.Contains(r.stdout, "Facets:") {
					t.Errorf("facets shown unasked:\n%s", r.stdout)
				}
			},
		},
		{
			name: "--in-stock=false asks for what is out of stock", handler: facetedList,
			args: []string{"products", "--in-stock=false", "--sort", "date:asc"}, requests: 1,
			check: query("in_stock=false&order=asc&orderby=date"),
		},
		{
			name: "--all --facets --json keeps the facets", handler: facetedList,
			args: []string{"products", "--all", "--facets", "--json"}, requests: 1,
			check: func(t *testing.T, r result, reqs []*http.Request) {
				var all struct {
					Products []api.Product `json:"products"`
					Total    int           `json:"total"`
					Facets   *api.Facets   `json:"facets"`
				}
				if err := json.Unmarshal([]byte(r.stdout), &all); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, r.stdout)
				}
				if len(all.Products) != 2 || all.Facets == nil || all.Facets.Categories["jobs"] != 2 {
					t.Errorf("got %s", r.stdout)
				}
			},
		},
		{
			name: "--all --facets shows them under the count", handler: facetedList,
			args: []string{"products", "--all", "--facets"}, requests: 1,
			stdout: []string{"\n2 products\n\nFacets:\n", "  Price:       4.00 to 30.00 EUR\n"},
		},
	})
}

func TestFindingUsageErrors(t *testing.T) {
	expectUsageErrors(t, []usageCase{
		{"unknown sort", []string{"products", "--sort", "name"}, nil, "--sort must be one of id, relevance, date, price"},
		{"WooCommerce's price-desc", []string{"products", "--sort", "price-desc"}, nil, "--sort must be one of"},
		{"bad order", []string{"products", "--sort", "price:up"}, nil, `--sort "price:up": want BY, BY:asc or BY:desc`},
		{"empty order", []string{"products", "--sort", "price:"}, nil, `--sort "price:": want BY`},
		{"relevance without a search", []string{"products", "--sort", "relevance"}, nil, "--sort relevance needs a non-empty --search"},
		{"relevance with an empty search", []string{"products", "--search", "", "--sort", "relevance"}, nil,
			"--sort relevance needs a non-empty --search"},
		{"rating ascending", []string{"products", "--sort", "rating:asc"}, nil,
			"--sort rating sorts in descending order only: leave out :asc"},
		{"min above max", []string{"products", "--min-price", "10", "--max-price", "5"}, nil,
			"--min-price must not be above --max-price"},
		{"negative price", []string{"products", "--min-price=-1"}, nil, "--min-price must be a plain decimal"},
		{"decimal comma", []string{"products", "--max-price", "9,99"}, nil, "--max-price must be a plain decimal"},
		{"in-stock not a bool", []string{"products", "--in-stock=maybe"}, nil, `--in-stock "maybe": want true or false`},
		{"search too long", []string{"products", "--search", strings.Repeat("x", api.MaxSearchLength+1)}, nil,
			"--search must be UTF-8 text of at most 200 characters"},
		{"an unquoted search", []string{"products", "--search", "police", "radar"}, nil,
			`quote a search of several words: --search "police radar"`},
	})
}
