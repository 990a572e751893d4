package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"catalogd/api"
)

// renderFacets writes the list's facets under its table, when it sent
// them: the counts a shop's filter widgets show, most first.
func renderFacets(w io.Writer, f *api.Facets, currency string) error {
	if f == nil {
		return nil
	}
	priceRange := "no product has a price"
	if f.Price != nil {
		priceRange = strings.TrimSpace(f.Price.Min + " to " + f.Price.Max + " " + currency)
	}
	var b strings.Builder
	b.WriteString("\nFacets:\n")
	fields := [][2]string{
		{"  Categories", counts(f.Categories)},
		{"  Frameworks", counts(f.Frameworks)},
		{"  Stock", fmt.Sprintf("%d in stock, %d out of stock", f.Stock.InStock, f.Stock.OutOfStock)},
		{"  On sale", fmt.Sprint(f.OnSale)},
		{"  Price", priceRange},
	}
	const indent = len("  Categories:  ")
	for i, fl := range fields {
		lines := strings.Split(strings.TrimSuffix(wrap(fl[1], width-indent), "\n"), "\n")
		fields[i][1] = strings.Join(lines, "\n"+strings.Repeat(" ", indent))
	}
	writeFields(&b, fields)
	_, err := io.WriteString(w, b.String())
	return err
}

// counts lists a facet's counts as "slug n", the largest first, then by
// slug; "none" for an empty facet.
func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b))
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d,", k, m[k])
	}
	return strings.TrimSuffix(strings.Join(parts, " "), ",")
}

// currencyOf is the currency the products are priced in ("" for none).
func currencyOf(products []api.Product) string {
	for _, p := range products {
		if p.Currency != "" {
			return p.Currency
		}
	}
	return ""
}
