package httpapi_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"catalogd/catalog"
)

// keysOf decodes a JSON object and returns its keys.
func keysOf(t *testing.T, raw []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %q", err, raw)
	}
	return m
}

var productRequired = []string{"slug", "name", "url", "price", "currency", "in_stock", "purchasable"}

func TestSuccess(t *testing.T) {
	srv := serve(t, openDB(t, loadShop(t), "wp_", 5*time.Second), "shop")
	list := func(want []string, total, pages int) func(t *testing.T, body []byte) {
		return func(t *testing.T, body []byte) {
			t.Helper()
			var l catalog.ProductList
			if err := json.Unmarshal(body, &l); err != nil {
				t.Fatal(err)
			}
			if got := productSlugs(t, body); !slices.Equal(got, want) {
				t.Errorf("products = %v, want %v", got, want)
			}
			if l.Total != total || l.TotalPages != pages {
				t.Errorf("total, total_pages = %d, %d, want %d, %d", l.Total, l.TotalPages, total, pages)
			}
		}
	}
	products := base + "/catalog/products"
	tests := []struct {
		name  string
		path  string
		check func(t *testing.T, body []byte)
	}{
		{"index", base + "/catalog", func(t *testing.T, body []byte) {
			var idx catalog.Index
			if err := json.Unmarshal(body, &idx); err != nil {
				t.Fatal(err)
			}
			if idx.ProductCount != 4 || idx.CatalogVisibleProductCount != 4 || idx.PublishedProductCount != 5 {
				t.Errorf("product_count, catalog_visible, published = %d, %d, %d, want 4, 4, 5",
					idx.ProductCount, idx.CatalogVisibleProductCount, idx.PublishedProductCount)
			}
			if idx.CategoryCount != 3 {
				t.Errorf("category_count = %d, want 3", idx.CategoryCount)
			}
			if want := siteURL + base + "/catalog/products"; idx.Endpoints.Products != want {
				t.Errorf("endpoints.products = %q, want %q", idx.Endpoints.Products, want)
			}
			for _, k := range []string{"name", "currency", "product_count", "category_count", "endpoints"} {
				if _, ok := keysOf(t, body)[k]; !ok {
					t.Errorf("index has no %q", k)
				}
			}
		}},
		{"categories", base + "/catalog/categories", func(t *testing.T, body []byte) {
			var cl catalog.CategoryList
			if err := json.Unmarshal(body, &cl); err != nil {
				t.Fatal(err)
			}
			counts := map[string]int{}
			for _, c := range cl.Categories {
				counts[c.Slug] = c.Count
			}
			want := map[string]int{"jobs": 2, "police": 1, "vehicles": 2}
			if len(counts) != len(want) {
				t.Errorf("categories = %v, want %v", counts, want)
			}
			for k, v := range want {
				if counts[k] != v {
					t.Errorf("count of %s = %d, want %d (all: %v)", k, counts[k], v, counts)
				}
			}
		}},
		{"products", products, list(visibleSlugs, 4, 1)},
		{"products trailing slash", products + "/", list(visibleSlugs, 4, 1)},
		{"unknown parameters ignored", products + "?foo=bar&utm_source=x&_=1", list(visibleSlugs, 4, 1)},
		// WordPress accepts every REST route in two more spellings.
		{"rest_route form", "/?rest_route=/shop/v1/catalog/products&per_page=3&page=2", list([]string{"free-thing"}, 4, 2)},
		{"rest_route form, encoded, on any path", "/shop/?rest_route=%2Fshop%2Fv1%2Fcatalog%2Fproducts%2F&category=jobs",
			list([]string{"police-radar", "gun-shop"}, 2, 1)},
		{"rest_route wins over the path, the last one counts", products + "/police-radar?rest_route=/x&rest_route=shop/v1/catalog/products",
			list(visibleSlugs, 4, 1)},
		{"index.php form", "/index.php" + products + "?framework=qbox", list([]string{"gun-shop"}, 1, 1)},
		{"page 2 of 2", products + "?per_page=3&page=2", list([]string{"free-thing"}, 4, 2)},
		{"per_page=50", products + "?per_page=50&page=1", list(visibleSlugs, 4, 1)},
		{"category includes descendants", products + "?category=jobs", list([]string{"police-radar", "gun-shop"}, 2, 1)},
		{"framework", products + "?framework=qbcore", list([]string{"police-radar", "car-dealer"}, 2, 1)},
		{"framework from a variation", products + "?framework=qbox", list([]string{"gun-shop"}, 1, 1)},
		{"category AND framework", products + "?category=jobs&framework=qbcore", list([]string{"police-radar"}, 1, 1)},
		{"category AND framework, no match", products + "?category=vehicles&framework=esx", list([]string{}, 0, 0)},
		{"category with no visible product", products + "?category=empty", list([]string{}, 0, 0)},
		{"product", products + "/police-radar", func(t *testing.T, body []byte) {
			var p catalog.Product
			if err := json.Unmarshal(body, &p); err != nil {
				t.Fatal(err)
			}
			if p.Slug != "police-radar" || p.Price == nil || *p.Price != "20.00" {
				t.Errorf("slug, price = %q, %v; want police-radar, 20.00", p.Slug, p.Price)
			}
		}},
		{"product trailing slash", products + "/police-radar/", func(t *testing.T, body []byte) {
			if s := string(keysOf(t, body)["slug"]); s != `"police-radar"` {
				t.Errorf("slug = %s", s)
			}
		}},
		{"hidden but published product", products + "/hidden-gem", func(t *testing.T, body []byte) {
			if s := string(keysOf(t, body)["slug"]); s != `"hidden-gem"` {
				t.Errorf("slug = %s", s)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := get(t, srv, tc.path)
			if r.status != http.StatusOK {
				t.Fatalf("status = %d, want 200; body %s", r.status, r.body)
			}
			checkHeaders(t, r)
			tc.check(t, r.body)
		})
	}
}

func TestShapes(t *testing.T) {
	srv := serve(t, openDB(t, loadShop(t), "wp_", 5*time.Second), "shop")

	t.Run("list", func(t *testing.T) {
		r := get(t, srv, base+"/catalog/products")
		if r.status != http.StatusOK {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		top := keysOf(t, r.body)
		for _, k := range []string{"products", "page", "per_page", "total", "total_pages"} {
			if _, ok := top[k]; !ok {
				t.Errorf("ProductList has no %q", k)
			}
		}
		for _, k := range []string{"page", "per_page", "total", "total_pages"} {
			if _, err := strconv.Atoi(string(top[k])); err != nil {
				t.Errorf("%s = %s, want an integer", k, top[k])
			}
		}
		var items []json.RawMessage
		if err := json.Unmarshal(top["products"], &items); err != nil {
			t.Fatalf("products is not an array: %v", err)
		}
		if len(items) != len(visibleSlugs) {
			t.Fatalf("%d products, want %d", len(items), len(visibleSlugs))
		}
		for i, raw := range items {
			p := keysOf(t, raw)
			for _, k := range []string{"description", "tags"} {
				if _, ok := p[k]; ok {
					t.Errorf("product %d of the list has a %s key", i, k)
				}
			}
			for _, k := range []string{"sku", "price_range"} {
				if _, ok := p[k]; !ok {
					t.Errorf("product %d of the list has no %q", i, k)
				}
			}
			for _, k := range productRequired {
				if _, ok := p[k]; !ok {
					t.Errorf("product %d of the list has no %q", i, k)
				}
			}
			if string(p["slug"]) == `"free-thing"` && string(p["price"]) != "null" {
				t.Errorf("price of free-thing in the list = %s, want null", p["price"])
			}
		}
	})

	for _, slug := range []string{"police-radar", "free-thing"} {
		t.Run("single "+slug, func(t *testing.T) {
			r := get(t, srv, base+"/catalog/products/"+slug)
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			p := keysOf(t, r.body)
			for _, k := range append([]string{"description", "summary", "sku", "price_range", "tags"}, productRequired...) {
				if _, ok := p[k]; !ok {
					t.Errorf("single product has no %q", k)
				}
			}
			if tags := string(p["tags"]); tags != "[]" {
				t.Errorf("tags = %s, want [] (none)", tags)
			}
			price := string(p["price"])
			if slug == "free-thing" && price != "null" {
				t.Errorf("price = %s, want null", price)
			}
			if slug == "police-radar" && price != `"20.00"` {
				t.Errorf("price = %s, want \"20.00\"", price)
			}
			if slug == "police-radar" && !strings.Contains(string(p["description"]), "The full description.") {
				t.Errorf("description = %s", p["description"])
			}
		})
	}
}

// facets=true adds the facets object, spelt as api.Facets' JSON tags say
// and nothing more; each facet ignores its own filter (the categories
// stay whole under category=vehicles). Without facets=true, or with
// facets=false, the list has no facets key.
func TestSuccessFacets(t *testing.T) {
	srv := serve(t, openDB(t, loadShop(t), "wp_", 5*time.Second), "shop")
	products := base + "/catalog/products"
	keys := func(t *testing.T, raw json.RawMessage, want ...string) map[string]json.RawMessage {
		t.Helper()
		m := keysOf(t, raw)
		got := slices.Sorted(maps.Keys(m))
		if slices.Sort(want); !slices.Equal(got, want) {
			t.Errorf("keys %v, want %v in %s", got, want, raw)
		}
		return m
	}
	counts := func(t *testing.T, raw json.RawMessage) map[string]int {
		t.Helper()
		var m map[string]int
		if err := json.Unmarshal(raw, &m); err != nil || m == nil {
			t.Errorf("%s: not an object of counts: %v", raw, err)
		}
		return m
	}
	allCategories := map[string]int{"jobs": 2, "police": 1, "vehicles": 2}
	tests := []struct {
		query      string
		total      int
		frameworks map[string]int
		inStock    int
	}{
		{"facets=true", 4, map[string]int{"esx": 2, "qbcore": 2, "qbox": 1, "standalone": 1}, 4},
		{"facets=true&per_page=1&page=3", 4, map[string]int{"esx": 2, "qbcore": 2, "qbox": 1, "standalone": 1}, 4},
		{"facets=true&category=vehicles", 2, map[string]int{"qbcore": 1, "standalone": 1}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := get(t, srv, products+"?"+tt.query)
			if r.status != http.StatusOK {
				t.Fatalf("%d %s", r.status, r.body)
			}
			top := keys(t, r.body, "products", "page", "per_page", "total", "total_pages", "facets")
			if string(top["total"]) != strconv.Itoa(tt.total) {
				t.Errorf("total %s, want %d", top["total"], tt.total)
			}
			f := keys(t, top["facets"], "categories", "frameworks", "stock", "on_sale", "price")
			if got := counts(t, f["categories"]); !maps.Equal(got, allCategories) {
				t.Errorf("categories %v, want %v", got, allCategories)
			}
			if got := counts(t, f["frameworks"]); !maps.Equal(got, tt.frameworks) {
				t.Errorf("frameworks %v, want %v", got, tt.frameworks)
			}
			stock := keys(t, f["stock"], "in_stock", "out_of_stock")
			if string(stock["in_stock"]) != strconv.Itoa(tt.inStock) || string(stock["out_of_stock"]) != "0" {
				t.Errorf("stock %s, want %d in stock, none out", f["stock"], tt.inStock)
			}
			if string(f["on_sale"]) != "0" {
				t.Errorf("on_sale %s, want 0", f["on_sale"])
			}
			price := keys(t, f["price"], "min", "max")
			var low, high string
			if json.Unmarshal(price["min"], &low) != nil || json.Unmarshal(price["max"], &high) != nil ||
				!priceRE.MatchString(low) || high != "30.00" {
				t.Errorf("price %s, want two prices as the list spells them, the highest 30.00", f["price"])
			}
		})
	}
	for _, q := range []string{"", "?facets=false", "?orderby=price"} {
		if r := get(t, srv, products+q); r.status != http.StatusOK || keysOf(t, r.body)["facets"] != nil {
			t.Errorf("%s: %d, facets %s; want none", q, r.status, keysOf(t, r.body)["facets"])
		}
	}
}

// priceRE is a price as the list spells it in the fixture's currency.
var priceRE = regexp.MustCompile(`^[0-9]+\.[0-9]{2}$`)
