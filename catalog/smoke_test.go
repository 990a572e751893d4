package catalog_test

import (
	"context"
	"encoding/json"
	"testing"

	"catalogd/catalog"
	"catalogd/wpdb/wpfixture"
)

func TestSmoke(t *testing.T) {
	s := newShop()
	s.Category("Jobs", "jobs", "", 1)
	s.Category("Police", "police", "jobs", 0)
	a := s.Add(wpfixture.Product{Title: "Police Radar & Plate Reader", RegularPrice: "20", SalePrice: "12.5",
		Categories: []string{"police"}, Frameworks: []string{"qbcore", "esx"}, Image: "2026/11/radar.jpg",
		Excerpt: "<p>Radar &amp; <strong>plates</strong> [youtube id=\"x\"]</p>", Content: "<!-- wp:paragraph --><p>One</p><!-- /wp:paragraph -->\n\n<!-- wp:list --><ul><li>a</li><li>b</li></ul><!-- /wp:list -->"})
	b := s.Add(wpfixture.Product{Title: "Gun Shop", Type: "variable", Variations: []wpfixture.Variation{
		{Framework: "esx", RegularPrice: "10"}, {Framework: "qbox", RegularPrice: "15", SalePrice: "9"}}})
	s.Add(wpfixture.Product{Title: "Bundle", Type: "grouped", Children: []int64{a, b}})
	s.Add(wpfixture.Product{Title: "Hidden", RegularPrice: "5", Visibility: "hidden"})
	f := load(t, s)
	ctx := context.Background()
	for _, fn := range []func() (any, error){
		func() (any, error) { return f.cat.Index(ctx) },
		func() (any, error) { return f.cat.Categories(ctx) },
		func() (any, error) { return f.cat.Products(ctx, catalog.ListQuery{}) },
		func() (any, error) { return f.cat.Product(ctx, "police-radar-plate-reader") },
	} {
		v, err := fn()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		t.Logf("%s", b)
	}
}
