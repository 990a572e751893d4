package httpapi_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/internal/wpfixture"
)

// A finding page (a search, an order other than by ID, a price, stock or
// sale filter, facets) names its kind and shop-query, not its products:
// a product it does not show can enter it, leave it or move it. Every
// other page names its products, so that an edit elsewhere leaves it at
// the edge.
func TestFindingPagesNameTheQueryTag(t *testing.T) {
	srv := serve(t, openDB(t, loadShop(t), "wp_", 5*time.Second), "shop")
	byID := "shop-list shop-product-1 shop-product-2"
	finding := "shop-list shop-query"
	tests := []struct {
		query, want string
	}{
		{"per_page=2", byID},
		{"per_page=2&orderby=id", byID},
		{"per_page=2&facets=false", byID},
		{"per_page=2&search=", byID},
		{"per_page=2&orderby=price", finding},
		{"per_page=2&orderby=date&order=asc", finding},
		{"per_page=2&orderby=title", finding},
		{"per_page=2&orderby=popularity", finding},
		{"per_page=2&min_price=10", finding},
		{"per_page=2&max_price=20", finding},
		{"per_page=2&in_stock=true", finding},
		{"per_page=2&in_stock=false", finding},
		{"per_page=2&on_sale=false", finding},
		{"per_page=2&facets=true", finding},
		{"per_page=2&search=radar", finding},
		{"per_page=2&search=radar&orderby=relevance", finding},
		{"category=jobs&orderby=price", finding},
		{"orderby=cheapest", "shop-miss"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := get(t, srv, base+"/catalog/products?"+tt.query)
			if got := r.header.Get("Surrogate-Key"); got != tt.want {
				t.Errorf("%d, Surrogate-Key %q, want %q", r.status, got, tt.want)
			}
		})
	}
	// Sorted by ID descending, the page changes only with a product it
	// shows or the lists: it names its products.
	r := get(t, srv, base+"/catalog/products?per_page=1&order=desc")
	if tags := strings.Fields(r.header.Get("Surrogate-Key")); len(tags) != 2 || tags[0] != "shop-list" ||
		!strings.HasPrefix(tags[1], "shop-product-") {
		t.Errorf("order=desc: Surrogate-Key %q, want the kind and its one product", tags)
	}
}

// An edit of a product a cached finding page does not show drops that
// page from the origin cache (and names shop-query, which purges it at
// the edge): the next request answers what the edit made of it. A page in
// ID order that does not show the product stays cached.
func TestFindingPageDroppedByAnotherProductsEdit(t *testing.T) {
	c := serveCached(t, newShop(), func() time.Time { return now })
	list := base + "/catalog/products"
	// before and after are a part of the body, and the products listed,
	// before and after the edit; empty: not checked.
	pages := []struct {
		name, path    string
		before, after string
		listed, then  []string
	}{
		{name: "price range", path: list + "?min_price=10&max_price=20",
			listed: []string{"police-radar", "gun-shop"}, then: []string{"police-radar", "gun-shop", "car-dealer"}},
		{name: "sorted by price, page 2", path: list + "?orderby=price&order=desc&per_page=1&page=2",
			listed: []string{"police-radar"}, then: []string{"car-dealer"}},
		{name: "facets", path: list + "?facets=true&per_page=1",
			before: `"max":"30.00"}}`, after: `"max":"20.00"}}`},
		{name: "in stock", path: list + "?in_stock=true&per_page=1"},
		{name: "a search", path: list + "?search=radar&per_page=1"},
	}
	check := func(t *testing.T, path, cache, part string, slugs []string) {
		t.Helper()
		r := get(t, c.srv, path)
		if r.status != 200 || r.header.Get("X-Cache") != cache {
			t.Errorf("%s: %d, X-Cache %q, want 200 %s", path, r.status, r.header.Get("X-Cache"), cache)
		}
		if part != "" && !strings.Contains(string(r.body), part) {
			t.Errorf("%s: %s, want %s in it", path, r.body, part)
		}
		if slugs != nil && !slices.Equal(productSlugs(t, r.body), slugs) {
			t.Errorf("%s: products %v, want %v", path, productSlugs(t, r.body), slugs)
		}
	}
	for _, p := range pages {
		check(t, p.path, "MISS", p.before, p.listed)
		check(t, p.path, "HIT", p.before, p.listed)
	}
	plain := list + "?per_page=1"
	check(t, plain, "MISS", "", []string{"police-radar"})
	check(t, plain, "HIT", "", []string{"police-radar"})

	var id int64
	if err := c.raw.QueryRow(`SELECT ID FROM wp_posts WHERE post_name = 'car-dealer'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	ops := &wpfixture.Ops{DB: c.raw, Prefix: "wp_", Now: func() time.Time { return now }}
	if err := ops.EditPrice(t.Context(), id, "15", ""); err != nil {
		t.Fatal(err)
	}
	named := changeTags(t, c.cat, c.cache, catalog.Change{Posts: []int64{id}, Kind: catalog.KindProduct})
	if !slices.Contains(named, "shop-query") {
		t.Errorf("car-dealer's price edit named %q, not shop-query: the finding pages stay stale at the edge", named)
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) { check(t, p.path, "MISS", p.after, p.then) })
	}
	check(t, plain, "HIT", "", []string{"police-radar"})
}
