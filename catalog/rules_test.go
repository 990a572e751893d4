package catalog

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"catalogd/api"
)

// The WooCommerce rules, table-tested through the Service on shops built
// in Go (rowsbuilder_test.go): no database.

// TestRulesListedAndServed: who is listed, who is found by slug, and the
// index's counts, for every post status and visibility WooCommerce
// stores, with out-of-stock items shown and hidden; and with a Source that
// hands over every product post, whatever its status.
func TestRulesListedAndServed(t *testing.T) {
	tests := []struct {
		p                         product
		listedShown, listedHidden bool // listed while out-of-stock items are shown, hidden
		found                     bool // served by slug
	}{
		{product{Title: "Visible", Regular: "1"}, true, true, true},
		{product{Title: "Shop Only", Regular: "1", Visibility: "catalog"}, true, true, true},
		{product{Title: "Search Only", Regular: "1", Visibility: "search"}, false, false, true},
		{product{Title: "Hidden", Regular: "1", Visibility: "hidden"}, false, false, true},
		{product{Title: "Sold Out", Regular: "1", Stock: "outofstock"}, true, false, true},
		{product{Title: "Backorder", Regular: "1", Stock: "onbackorder"}, true, true, true},
		{product{Title: "Protected", Regular: "1", Password: "pw", Excerpt: "<p>Secret</p>", Content: "<p>Secret</p>"}, true, true, true},
		{product{Title: "Draft", Slug: "draft", Regular: "1", Status: "draft"}, false, false, false},
		{product{Title: "Pending", Slug: "pending", Regular: "1", Status: "pending"}, false, false, false},
		{product{Title: "Private", Regular: "1", Status: "private"}, false, false, false},
		{product{Title: "Future", Regular: "1", Status: "future"}, false, false, false},
		{product{Title: "Trashed", Regular: "1", Status: "trash"}, false, false, false},
		{product{Title: "Options", Type: typeNameVariable, Variations: []variation{{Framework: "esx", Regular: "5"}}}, true, true, true},
		{product{Title: "All Sold", Type: typeNameVariable, Variations: []variation{{Framework: "esx", Regular: "5", Stock: "outofstock"}}}, true, false, true},
	}
	for _, hide := range []bool{false, true} {
		for _, every := range []bool{false, true} {
			t.Run(fmt.Sprintf("hide out of stock %v, source hands every status %v", hide, every), func(t *testing.T) {
				s := newStore()
				if hide {
					s.options["woocommerce_hide_out_of_stock_items"] = "yes"
				}
				var listed []string
				published := 0
				for _, tt := range tests {
					s.add(tt.p)
					slug := strings.ToLower(strings.ReplaceAll(tt.p.Title, " ", "-"))
					if hide && tt.listedHidden || !hide && tt.listedShown {
						listed = append(listed, slug)
					}
					if tt.found {
						published++
					}
				}
				c, src, _ := serve(t, s)
				src.every = every

				l := getList(t, c, api.ListQuery{PerPage: api.MaxPerPage})
				if got := listSlugs(l.Products); !reflect.DeepEqual(got, listed) {
					t.Errorf("list = %v, want %v", got, listed)
				}
				if l.Total != len(listed) || l.TotalPages != 1 {
					t.Errorf("total %d, pages %d; want %d, 1", l.Total, l.TotalPages, len(listed))
				}
				idx, err := c.Index(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if idx.ProductCount != len(listed) || idx.CatalogVisibleProductCount != len(listed) || idx.PublishedProductCount != published {
					t.Errorf("index counts: product %d, visible %d, published %d; want %d, %d, %d", idx.ProductCount,
						idx.CatalogVisibleProductCount, idx.PublishedProductCount, len(listed), len(listed), published)
				}
				for _, tt := range tests {
					slug := strings.ToLower(strings.ReplaceAll(tt.p.Title, " ", "-"))
					p, err := c.Product(context.Background(), slug)
					switch {
					case tt.found && err != nil:
						t.Errorf("%s: %v, want it served (hidden from the catalog or not)", slug, err)
					case !tt.found && ErrorKind(err) != ENOTFOUND:
						t.Errorf("%s: %v, want not found", slug, err)
					}
					if tt.p.Status == "trash" {
						if _, err := c.Product(context.Background(), slug+"__trashed"); ErrorKind(err) != ENOTFOUND {
							t.Errorf("%s__trashed: %v, want not found", slug, err)
						}
					}
					if err != nil || tt.p.Password == "" {
						continue
					}
					// Listed, priced and sold; its texts hidden.
					if p.Summary != "" || p.Description == nil || *p.Description != "" || deref(p.Price) != "1.00" || !p.Purchasable {
						t.Errorf("protected: summary %q, description %q, price %s, purchasable %v; want empty texts, 1.00, true",
							p.Summary, deref(p.Description), deref(p.Price), p.Purchasable)
					}
				}
				// A variation's slug is never a product.
				if _, err := c.Product(context.Background(), "options-esx"); ErrorKind(err) != ENOTFOUND {
					t.Errorf("a variation's slug: %v, want not found", err)
				}
				if src.shops != 1 || len(src.products) != 0 {
					t.Errorf("source read %d shops and %d product sets; want one shop, no product set", src.shops, len(src.products))
				}
			})
		}
	}
}

// TestRulesCategories: counts over subtrees of catalog-visible products,
// the storefront's order, plain names, parents, URLs; a category's count
// is its filter's total.
func TestRulesCategories(t *testing.T) {
	type want struct {
		slug, name string
		count      int
		url        string
		parent     string
	}
	build := func(s *store) {
		s.category("Jobs", "jobs", "", 2)
		s.category("Police", "police", "jobs", 0)
		s.category("Traffic", "traffic", "police", 0)
		s.category("Medic", "medic", "jobs", 0)
		s.category("UI & HUD", "ui-hud", "", 1)
		s.category("Maps", "maps", "", 1) // same order as UI & HUD: by name
		s.category("Vehicles", "vehicles", "", 0)
		s.category("Empty", "empty", "", 0) // no visible product: not listed
		s.add(product{Title: "Radar", Regular: "1", Categories: []string{"traffic"}})
		s.add(product{Title: "Cuffs", Regular: "1", Categories: []string{"police", "jobs"}}) // counted once in jobs
		s.add(product{Title: "Ambulance", Regular: "1", Categories: []string{"medic", "vehicles"}})
		s.add(product{Title: "Sold Out", Regular: "1", Categories: []string{"medic"}, Stock: "outofstock"})
		s.add(product{Title: "Secret", Regular: "1", Categories: []string{"traffic"}, Visibility: "search"})
		s.add(product{Title: "Draft", Slug: "draft", Regular: "1", Categories: []string{"empty"}, Status: "draft"})
		s.add(product{Title: "Minimap", Regular: "1", Categories: []string{"ui-hud"}})
		s.add(product{Title: "City", Regular: "1", Categories: []string{"maps"}})
		s.add(product{Title: "Loose", Regular: "1"}) // the default category
	}
	const home = "https://shop.example"
	tests := []struct {
		name    string
		options map[string]string
		want    []want
	}{
		{"out of stock shown", nil, []want{
			{"medic", "Medic", 2, home + "/product-category/jobs/medic/", "jobs"},
			{"police", "Police", 2, home + "/product-category/jobs/police/", "jobs"},
			{"traffic", "Traffic", 1, home + "/product-category/jobs/police/traffic/", "police"},
			{"uncategorized", "Uncategorized", 1, home + "/product-category/uncategorized/", ""},
			{"vehicles", "Vehicles", 1, home + "/product-category/vehicles/", ""},
			{"maps", "Maps", 1, home + "/product-category/maps/", ""},
			{"ui-hud", "UI & HUD", 1, home + "/product-category/ui-hud/", ""},
			{"jobs", "Jobs", 4, home + "/product-category/jobs/", ""},
		}},
		{"out of stock hidden", map[string]string{"woocommerce_hide_out_of_stock_items": "yes"}, []want{
			{"medic", "Medic", 1, home + "/product-category/jobs/medic/", "jobs"},
			{"police", "Police", 2, home + "/product-category/jobs/police/", "jobs"},
			{"traffic", "Traffic", 1, home + "/product-category/jobs/police/traffic/", "police"},
			{"uncategorized", "Uncategorized", 1, home + "/product-category/uncategorized/", ""},
			{"vehicles", "Vehicles", 1, home + "/product-category/vehicles/", ""},
			{"maps", "Maps", 1, home + "/product-category/maps/", ""},
			{"ui-hud", "UI & HUD", 1, home + "/product-category/ui-hud/", ""},
			{"jobs", "Jobs", 3, home + "/product-category/jobs/", ""},
		}},
		{"custom category base, no trailing slash", map[string]string{"woocommerce_permalinks": permalinks("/shop/", "/cat/"),
			"permalink_structure": "/%postname%"}, []want{
			{"medic", "Medic", 2, home + "/cat/jobs/medic", "jobs"},
			{"police", "Police", 2, home + "/cat/jobs/police", "jobs"},
			{"traffic", "Traffic", 1, home + "/cat/jobs/police/traffic", "police"},
			{"uncategorized", "Uncategorized", 1, home + "/cat/uncategorized", ""},
			{"vehicles", "Vehicles", 1, home + "/cat/vehicles", ""},
			{"maps", "Maps", 1, home + "/cat/maps", ""},
			{"ui-hud", "UI & HUD", 1, home + "/cat/ui-hud", ""},
			{"jobs", "Jobs", 4, home + "/cat/jobs", ""},
		}},
		{"plain permalinks", map[string]string{"permalink_structure": ""}, []want{
			{"medic", "Medic", 2, home + "/?product_cat=medic", "jobs"},
			{"police", "Police", 2, home + "/?product_cat=police", "jobs"},
			{"traffic", "Traffic", 1, home + "/?product_cat=traffic", "police"},
			{"uncategorized", "Uncategorized", 1, home + "/?product_cat=uncategorized", ""},
			{"vehicles", "Vehicles", 1, home + "/?product_cat=vehicles", ""},
			{"maps", "Maps", 1, home + "/?product_cat=maps", ""},
			{"ui-hud", "UI & HUD", 1, home + "/?product_cat=ui-hud", ""},
			{"jobs", "Jobs", 4, home + "/?product_cat=jobs", ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore()
			for k, v := range tt.options {
				s.options[k] = v
			}
			build(s)
			c, _, _ := serve(t, s)
			var got []want
			for _, cat := range getCategories(t, c) {
				p := ""
				if cat.Parent != nil {
					p = *cat.Parent
				}
				got = append(got, want{cat.Slug, cat.Name, cat.Count, cat.URL, p})
				// The invariant: the category filter's total is the count.
				if l := getList(t, c, api.ListQuery{Category: cat.Slug}); l.Total != cat.Count {
					t.Errorf("category=%s: total %d, count %d", cat.Slug, l.Total, cat.Count)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("categories:\n got %v\nwant %v", got, tt.want)
			}
			idx, err := c.Index(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if idx.CategoryCount != len(tt.want) {
				t.Errorf("index category_count %d, want %d", idx.CategoryCount, len(tt.want))
			}
			// A product's categories: its own terms, by name.
			if p := getProduct(t, c, "cuffs"); !reflect.DeepEqual(p.Categories, []string{"jobs", "police"}) {
				t.Errorf("cuffs categories %v, want [jobs police]", p.Categories)
			}
		})
	}
}

// TestRulesPaging: pages, filters and their errors.
func TestRulesPaging(t *testing.T) {
	s := newStore()
	s.category("Jobs", "jobs", "", 0)
	s.category("Police", "police", "jobs", 0)
	s.category("Empty", "empty", "", 0)
	var all, police, policeESX []string
	for i := 1; i <= 7; i++ {
		p := product{Title: fmt.Sprintf("P%d", i), Regular: "1", Frameworks: []string{"qbox"}}
		if i%2 == 1 {
			p.Categories = []string{"police"}
			police = append(police, fmt.Sprintf("p%d", i))
		}
		if i%3 == 0 {
			p.Frameworks = []string{"esx"}
			if i%2 == 1 {
				policeESX = append(policeESX, fmt.Sprintf("p%d", i))
			}
		}
		s.add(p)
		all = append(all, fmt.Sprintf("p%d", i))
	}
	hidden := s.add(product{Title: "Hidden", Regular: "1", Categories: []string{"police"}, Frameworks: []string{"esx"}, Visibility: "hidden"})
	_ = hidden
	c, src, _ := serve(t, s)

	tests := []struct {
		name   string
		q      api.ListQuery
		slugs  []string
		total  int
		pages  int
		reason string // the error's reason, when it fails
		params []string
	}{
		{"defaults", api.ListQuery{}, all, 7, 1, "", nil},
		{"first page", api.ListQuery{PerPage: 3}, all[:3], 7, 3, "", nil},
		{"last page", api.ListQuery{Page: 3, PerPage: 3}, all[6:], 7, 3, "", nil},
		{"page beyond the last", api.ListQuery{Page: 4, PerPage: 3}, nil, 0, 0, "invalid_page", []string{"page"}},
		{"category includes descendants", api.ListQuery{Category: "jobs"}, police, 4, 1, "", nil},
		{"category and framework combine with AND", api.ListQuery{Category: "jobs", Framework: "esx"}, policeESX, 1, 1, "", nil},
		{"framework the shop has no product for", api.ListQuery{Framework: "standalone"}, []string{}, 0, 0, "", nil},
		{"empty category: page 1 is an empty list", api.ListQuery{Category: "empty"}, []string{}, 0, 0, "", nil},
		{"empty category: page 2 is beyond", api.ListQuery{Category: "empty", Page: 2}, nil, 0, 0, "invalid_page", []string{"page"}},
		{"unknown category", api.ListQuery{Category: "nope"}, nil, 0, 0, "invalid_category", []string{"category"}},
		// What the parse rejects reaches the catalog with the query, which
		// reports it with what only it can tell.
		{"unknown category and framework", api.ParseListQueryString("category=nope&framework=vrp"), nil, 0, 0, "invalid_category",
			[]string{"category", "framework"}},
		{"per_page too large", api.ParseListQueryString("per_page=51"), nil, 0, 0, "invalid_per_page", []string{"per_page"}},
		{"negative page", api.ParseListQueryString("page=-1"), nil, 0, 0, "invalid_page", []string{"page"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := c.Products(context.Background(), tt.q)
			if tt.reason != "" {
				var e *Error
				if !errors.As(err, &e) || e.Kind != EINVALID || e.Reason != tt.reason {
					t.Fatalf("error %v, want %s %s", err, EINVALID, tt.reason)
				}
				var params []string
				for k := range e.Params {
					params = append(params, k)
				}
				slices.Sort(params)
				if !reflect.DeepEqual(params, tt.params) {
					t.Errorf("params %v, want %v", params, tt.params)
				}
				if e.Hint == "" {
					t.Error("no hint")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := listSlugs(l.Products); !reflect.DeepEqual(got, tt.slugs) || l.Total != tt.total || l.TotalPages != tt.pages {
				t.Errorf("products %v, total %d, pages %d; want %v, %d, %d", got, l.Total, l.TotalPages, tt.slugs, tt.total, tt.pages)
			}
		})
	}
	if src.shops != 1 || len(src.products) != 0 {
		t.Errorf("source: %d shop reads, %d product reads; want 1, 0: requests run from the snapshot", src.shops, len(src.products))
	}
}
