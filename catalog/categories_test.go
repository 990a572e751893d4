package catalog_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"catalogd/api"

	"catalogd/catalog"
	"catalogd/internal/wpfixture"
)

// categoryShop has a three-level tree, a product filed under both a parent
// and its child, hidden and out-of-stock products, and a category holding
// only products a visitor cannot see.
func categoryShop(hideOutOfStock bool) *wpfixture.Shop {
	s := newShop()
	if hideOutOfStock {
		s.SetOption("woocommerce_hide_out_of_stock_items", "yes")
	}
	s.Category("Jobs", "jobs", "", 2)
	s.Category("Emergency Services", "emergency", "jobs", 0)
	s.Category("Police", "police", "emergency", 0)
	s.Category("UI & HUD", "ui-hud", "", 1)
	s.Category("Vehicles", "vehicles", "", 1)
	s.Category("Secret Stuff", "secret", "", 0)
	// A post category with a product category's slug must not be confused.
	s.Term("category", "Police (blog)", "police-blog", 0)

	s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "1", Categories: []string{"police", "emergency"}, Frameworks: []string{"esx"}})
	s.Add(wpfixture.Product{Title: "Ambulance Job", RegularPrice: "1", Categories: []string{"emergency"}, Frameworks: []string{"qbcore"}})
	s.Add(wpfixture.Product{Title: "Mechanic", RegularPrice: "1", Categories: []string{"jobs"}, Frameworks: []string{"esx", "qbcore"}})
	s.Add(wpfixture.Product{Title: "Cuffs", RegularPrice: "1", Categories: []string{"police"}, StockStatus: "outofstock", Frameworks: []string{"esx"}})
	s.Add(wpfixture.Product{Title: "Hidden Badge", RegularPrice: "1", Categories: []string{"police"}, Visibility: "hidden"})
	s.Add(wpfixture.Product{Title: "Minimap", RegularPrice: "1", Categories: []string{"ui-hud"}, Frameworks: []string{"standalone"}})
	s.Add(wpfixture.Product{Title: "Draft Thing", RegularPrice: "1", Categories: []string{"secret"}, Status: "draft"})
	s.Add(wpfixture.Product{Title: "Search Thing", RegularPrice: "1", Categories: []string{"secret"}, Visibility: "search"})
	s.Add(wpfixture.Product{Title: "Loose", RegularPrice: "1"}) // the default category
	return s
}

func TestCategories(t *testing.T) {
	tests := []struct {
		hide bool
		want []api.Category
	}{
		{false, []api.Category{
			// "order" meta first (missing is 0), then name.
			{Slug: "emergency", Name: "Emergency Services", Count: 3, Parent: ptr("jobs"), URL: "https://shop.example/product-category/jobs/emergency/"},
			{Slug: "police", Name: "Police", Count: 2, Parent: ptr("emergency"), URL: "https://shop.example/product-category/jobs/emergency/police/"},
			{Slug: "uncategorized", Name: "Uncategorized", Count: 1, URL: "https://shop.example/product-category/uncategorized/"},
			{Slug: "ui-hud", Name: "UI & HUD", Count: 1, URL: "https://shop.example/product-category/ui-hud/"},
			{Slug: "jobs", Name: "Jobs", Count: 4, URL: "https://shop.example/product-category/jobs/"},
		}},
		{true, []api.Category{
			{Slug: "emergency", Name: "Emergency Services", Count: 2, Parent: ptr("jobs"), URL: "https://shop.example/product-category/jobs/emergency/"},
			{Slug: "police", Name: "Police", Count: 1, Parent: ptr("emergency"), URL: "https://shop.example/product-category/jobs/emergency/police/"},
			{Slug: "uncategorized", Name: "Uncategorized", Count: 1, URL: "https://shop.example/product-category/uncategorized/"},
			{Slug: "ui-hud", Name: "UI & HUD", Count: 1, URL: "https://shop.example/product-category/ui-hud/"},
			{Slug: "jobs", Name: "Jobs", Count: 3, URL: "https://shop.example/product-category/jobs/"},
		}},
	}
	for _, tt := range tests {
		t.Run(map[bool]string{false: "out of stock shown", true: "out of stock hidden"}[tt.hide], func(t *testing.T) {
			f := load(t, categoryShop(tt.hide))
			ctx := context.Background()
			got, err := f.cat.Categories(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Categories, tt.want) {
				t.Errorf("categories:\n got %+v\nwant %+v", got.Categories, tt.want)
			}
			// Invariant: the list filtered by a category has its count.
			for _, c := range got.Categories {
				l := f.list(t, api.ListQuery{Category: c.Slug})
				if l.Total != c.Count {
					t.Errorf("products?category=%s total = %d, categories count = %d", c.Slug, l.Total, c.Count)
				}
			}
			idx, err := f.cat.Index(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if idx.CategoryCount != len(tt.want) {
				t.Errorf("category_count = %d, want %d", idx.CategoryCount, len(tt.want))
			}
		})
	}
}

func TestCategoryFilter(t *testing.T) {
	f := load(t, categoryShop(false))
	tests := []struct {
		q    api.ListQuery
		want []string
	}{
		{api.ListQuery{Category: "jobs"}, []string{"radar", "ambulance-job", "mechanic", "cuffs"}},
		{api.ListQuery{Category: "police"}, []string{"radar", "cuffs"}},
		// An existing category without visible products: 200, empty.
		{api.ListQuery{Category: "secret"}, []string{}},
		{api.ListQuery{Category: "vehicles"}, []string{}},
		{api.ListQuery{Framework: "esx"}, []string{"radar", "mechanic", "cuffs"}},
		// category and framework combine with AND; category includes descendants.
		{api.ListQuery{Category: "jobs", Framework: "qbcore"}, []string{"ambulance-job", "mechanic"}},
		{api.ListQuery{Category: "ui-hud", Framework: "esx"}, []string{}},
		{api.ListQuery{Framework: "qbox"}, []string{}},
	}
	for _, tt := range tests {
		l := f.list(t, tt.q)
		if got := slugs(l.Products); !reflect.DeepEqual(got, tt.want) || l.Total != len(tt.want) {
			t.Errorf("%+v: got %v (total %d), want %v", tt.q, got, l.Total, tt.want)
		}
	}

	// The post category "police-blog" and unknown slugs are not product
	// categories.
	for _, slug := range []string{"nope", "police-blog"} {
		_, err := f.cat.Products(context.Background(), api.ListQuery{Category: slug})
		var e *catalog.Error
		if !errors.As(err, &e) || e.Reason != "invalid_category" || e.Params["category"] == "" || e.Hint == "" {
			t.Errorf("category %q: err = %v, want invalid_category with a hint", slug, err)
		}
	}
}

func TestProductCategoriesAndFrameworks(t *testing.T) {
	s := categoryShop(false)
	s.Add(wpfixture.Product{Title: "Everything", RegularPrice: "1", Categories: []string{"vehicles", "ui-hud", "jobs"},
		Frameworks: []string{"standalone", "qbox", "esx", "qbcore"}})
	s.Add(wpfixture.Product{Title: "Local Only", RegularPrice: "1", LocalFrameworks: []string{"esx", "qbcore"}})
	f := load(t, s)
	p := f.product(t, "everything")
	// Categories by term name; frameworks in the attribute's menu order.
	if want := []string{"jobs", "ui-hud", "vehicles"}; !reflect.DeepEqual(p.Categories, want) {
		t.Errorf("categories = %v, want %v", p.Categories, want)
	}
	if want := []string{"esx", "qbcore", "qbox", "standalone"}; !reflect.DeepEqual(p.Frameworks, want) {
		t.Errorf("frameworks = %v, want %v", p.Frameworks, want)
	}
	if p := f.product(t, "local-only"); len(p.Frameworks) != 0 || p.Frameworks == nil {
		t.Errorf("a local attribute is no framework: %#v", p.Frameworks)
	}
	if p := f.product(t, "loose"); !reflect.DeepEqual(p.Categories, []string{"uncategorized"}) {
		t.Errorf("loose categories = %v", p.Categories)
	}
}

func TestFrameworkOrder(t *testing.T) {
	tests := []struct {
		orderBy string
		order   map[string]string // "order" term meta
		want    []string
	}{
		{"menu_order", map[string]string{"standalone": "-1", "esx": "5"}, []string{"standalone", "qbcore", "qbox", "esx"}},
		{"name", nil, []string{"esx", "qbcore", "qbox", "standalone"}},
		{"id", nil, []string{"esx", "qbcore", "qbox", "standalone"}},
	}
	for _, tt := range tests {
		t.Run(tt.orderBy, func(t *testing.T) {
			s := newShop()
			s.Add(wpfixture.Product{Title: "All", RegularPrice: "1", Frameworks: []string{"qbox", "standalone", "qbcore", "esx"}})
			f := load(t, s)
			if _, err := f.raw.Exec(`UPDATE wp_woocommerce_attribute_taxonomies SET attribute_orderby = ?`, tt.orderBy); err != nil {
				t.Fatal(err)
			}
			for slug, o := range tt.order {
				if _, err := f.raw.Exec(`UPDATE wp_termmeta tm JOIN wp_terms t ON t.term_id = tm.term_id
					SET tm.meta_value = ? WHERE t.slug = ? AND tm.meta_key = 'order'`, o, slug); err != nil {
					t.Fatal(err)
				}
			}
			if got := f.product(t, "all").Frameworks; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("frameworks = %v, want %v", got, tt.want)
			}
		})
	}
}
