package main

import (
	"fmt"
	"testing"

	"catalogd/api"
)

// catalogCases: catalog against the demo shop, whose index is idx.
func catalogCases(idx api.Index) []demoCase {
	return []demoCase{
		{
			name: "catalog", args: []string{"catalog"},
			stdout: []string{"Northwind Scripts", "Premium FiveM scripts", "EUR",
				fmt.Sprintf("%d in the catalog, %d published", idx.ProductCount, idx.PublishedProductCount),
				fmt.Sprintf("Categories:  %d", idx.CategoryCount), "/catalog/products/{slug}"},
		},
	}
}

func TestCatalogUsageErrors(t *testing.T) {
	expectUsageErrors(t, []usageCase{
		{"catalog with an argument", []string{"catalog", "extra"}, nil, "catalog takes no arguments"},
	})
}
