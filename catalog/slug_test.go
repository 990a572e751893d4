package catalog_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"catalogd/api"

	"catalogd/internal/wpfixture"
)

// Slugs WordPress stored percent-encoded: "радар" and "полиция".
const (
	radar  = "%d1%80%d0%b0%d0%b4%d0%b0%d1%80"
	police = "%d0%bf%d0%be%d0%bb%d0%b8%d1%86%d0%b8%d1%8f"
)

// A product and a category whose slugs WordPress stored percent-encoded
// are found in every spelling the API accepts, and their URLs are the
// storefront's: the stored form as it is, pretty or plain permalinks.
func TestNonASCIISlugs(t *testing.T) {
	tests := []struct {
		name, structure, product, category string
	}{
		{"pretty permalinks", "/%postname%/", "https://shop.example/product/" + radar + "/",
			"https://shop.example/product-category/jobs/" + police + "/"},
		{"plain permalinks", "", "https://shop.example/?product=" + radar, "https://shop.example/?product_cat=" + police},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newShop()
			f := withOptions(t, s, map[string]string{"permalink_structure": tt.structure}, func(s *wpfixture.Shop) {
				s.Category("Jobs", "jobs", "", 0)
				s.Category("Полиция", police, "jobs", 0)
				s.Add(wpfixture.Product{Title: "Радар", Slug: radar, RegularPrice: "1", Categories: []string{police}})
			})
			decoded, _ := url.PathUnescape(radar)
			for _, spelling := range []string{radar, strings.ToUpper(radar), decoded} {
				p := f.product(t, spelling)
				if p.Slug != radar || p.URL != tt.product || !slices.Equal(p.Categories, []string{police}) {
					t.Errorf("Product(%q): slug %q, url %s, categories %v; want %q, %s", spelling, p.Slug, p.URL, p.Categories, radar, tt.product)
				}
			}
			decodedCat, _ := url.PathUnescape(police)
			for _, spelling := range []string{police, strings.ToUpper(police), decodedCat} {
				q, problems := api.ParseListQuery(map[string][]string{"category": {spelling}})
				if len(problems) > 0 {
					t.Fatalf("ParseListQuery(category=%q): %v", spelling, problems)
				}
				if l := f.list(t, q); l.Total != 1 || l.Products[0].Slug != radar {
					t.Errorf("category=%q: total %d", spelling, l.Total)
				}
			}
			cats, err := f.cat.Categories(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(cats.Categories, func(c api.Category) bool { return c.Slug == police })
			if i < 0 || cats.Categories[i].URL != tt.category {
				t.Errorf("categories: %+v; want %s at %s", cats.Categories, police, tt.category)
			}
		})
	}
}
