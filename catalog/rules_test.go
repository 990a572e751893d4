package catalog

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestRulesPrices: price, regular_price, on_sale, purchasable and in_stock
// as the storefront shows them, from the price meta as WooCommerce stores
// it.
func TestRulesPrices(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		name    string
		options map[string]string
		add     func(s *store) // adds the product with the slug "p"
		price   string
		regular string
		onSale  bool
		buy     bool // purchasable
		inStock bool
	}{
		{"simple", nil, one(product{Regular: "20"}), "20.00", "20.00", false, true, true},
		{"simple: a lower _price row later counts for nothing", nil, func(s *store) {
			id := s.add(product{Title: "P", Regular: "20"})
			s.addMeta(id, metaPrice, "15")
		}, "20.00", "20.00", false, true, true},
		{"simple: a higher _price row later counts for nothing", nil, func(s *store) {
			id := s.add(product{Title: "P", Regular: "20"})
			s.addMeta(id, metaPrice, "25")
		}, "20.00", "20.00", false, true, true},
		{"simple: first _price row empty", nil, func(s *store) {
			id := s.add(product{Title: "P", Sale: "5"}) // a sale without a regular price: _price stored empty
			s.addMeta(id, metaPrice, "5")
		}, "<nil>", "<nil>", false, false, true},
		{"no price", nil, one(product{}), "<nil>", "<nil>", false, false, true},
		{"free", nil, one(product{Regular: "0"}), "0.00", "0.00", false, true, true},
		{"half rounds up on the decimal string", nil, one(product{Regular: "3.995"}), "4.00", "4.00", false, true, true},
		{"out of stock is still purchasable", nil, one(product{Regular: "9", Stock: "outofstock"}), "9.00", "9.00", false, true, false},
		{"on backorder is in stock", nil, one(product{Regular: "9", Stock: "onbackorder"}), "9.00", "9.00", false, true, true},
		{"external is never purchasable", nil, one(product{Type: typeNameExternal, Regular: "9", Sale: "7"}), "7.00", "9.00", true, false, true},
		// WC_Product_External::set_stock_status() keeps every external
		// product in stock, whatever the meta says (an import, a product
		// whose type was changed in the database).
		{"external is always in stock", nil, func(s *store) {
			id := s.add(product{Title: "P", Type: typeNameExternal, Regular: "9"})
			s.setMeta(id, metaStockStatus, "outofstock")
		}, "9.00", "9.00", false, false, true},

		{"sale without dates", nil, one(product{Regular: "20", Sale: "15"}), "15.00", "20.00", true, true, true},
		{"sale not below regular is cleared", nil, one(product{Regular: "20", Sale: "25"}), "20.00", "20.00", false, true, true},
		{"sale compared as numbers, not text", nil, one(product{Regular: "100", Sale: "9.5"}), "9.50", "100.00", true, true, true},
		{"sale starts this second", nil, one(product{Regular: "20", Sale: "15", From: t0}), "15.00", "20.00", true, true, true},
		{"sale ends this second (inclusive)", nil, one(product{Regular: "20", Sale: "15", To: t0}), "15.00", "20.00", true, true, true},
		{"sale ended a second ago", nil, func(s *store) {
			s.now = t0.Add(-time.Hour) // saved while it ran
			s.add(product{Title: "P", Regular: "20", Sale: "15", To: t0.Add(-time.Second)})
		}, "15.00", "20.00", false, true, true}, // _price waits for the background job
		{"sale starts in a second", nil, one(product{Regular: "20", Sale: "15", From: t0.Add(time.Second)}), "20.00", "20.00", false, true, true},
		{"future sale", nil, one(product{Regular: "20", Sale: "15", From: t0.Add(2 * day), To: t0.Add(3 * day)}), "20.00", "20.00", false, true, true},
		{"ended sale keeps its sale price stored", nil, func(s *store) {
			s.now = t0.Add(-10 * day)
			s.add(product{Title: "P", Regular: "20", Sale: "15", From: t0.Add(-30 * day), To: t0.Add(-day)})
			s.setMeta(1, metaPrice, "20") // the background job ran
		}, "20.00", "20.00", false, true, true},
		{"sale started since the last save: the job has not run", nil, func(s *store) {
			s.now = t0.Add(-2 * time.Hour)
			s.add(product{Title: "P", Regular: "20", Sale: "15", From: t0.Add(-time.Hour)})
		}, "20.00", "20.00", true, true, true},

		{"decimals 0", map[string]string{"woocommerce_price_num_decimals": "0"}, one(product{Regular: "19.5"}), "20", "20", false, true, true},
		{"decimals 3", map[string]string{"woocommerce_price_num_decimals": "3"}, one(product{Regular: "19.5"}), "19.500", "19.500", false, true, true},
		{"decimals option missing: 2", map[string]string{"woocommerce_price_num_decimals": "<missing>"}, one(product{Regular: "19.5"}), "19.50", "19.50", false, true, true},
		// wc_get_price_decimals() is absint(get_option(…, 2)): the default
		// only for a missing option; a field saved empty shows no decimals.
		{"decimals option empty: 0", map[string]string{"woocommerce_price_num_decimals": ""}, one(product{Regular: "19.5"}), "20", "20", false, true, true},
		{"decimals option negative: its absolute value", map[string]string{"woocommerce_price_num_decimals": "-1"}, one(product{Regular: "19.55"}), "19.6", "19.6", false, true, true},
		{"decimals option with spaces", map[string]string{"woocommerce_price_num_decimals": " 3"}, one(product{Regular: "19.5"}), "19.500", "19.500", false, true, true},
		{"decimals option not a number: 0", map[string]string{"woocommerce_price_num_decimals": "two"}, one(product{Regular: "19.5"}), "20", "20", false, true, true},

		{"damaged regular price", nil, func(s *store) {
			id := s.add(product{Title: "P", Regular: "20"})
			s.setMeta(id, metaRegularPrice, "12,50")
		}, "20.00", "<nil>", false, true, true},
		{"damaged _price", nil, func(s *store) {
			id := s.add(product{Title: "P", Regular: "20"})
			s.setMeta(id, metaPrice, "1e3")
		}, "<nil>", "20.00", false, false, true},
		{"damaged sale price is no sale", nil, func(s *store) {
			id := s.add(product{Title: "P", Regular: "20"})
			s.setMeta(id, metaSalePrice, "abc")
		}, "20.00", "20.00", false, true, true},

		{"variable: lowest of the enabled variations", nil, func(s *store) {
			s.add(product{Title: "P", Type: typeNameVariable, Variations: []variation{
				{Framework: "esx", Regular: "30"},
				{Framework: "qbcore", Regular: "25", Sale: "19.99"},
				{Framework: "qbox", Regular: "10", Disabled: true}, // private: not a price of the product
			}})
		}, "19.99", "25.00", true, true, true},
		{"variable: a disabled variation's sale is no sale", nil, func(s *store) {
			s.add(product{Title: "P", Type: typeNameVariable, Variations: []variation{
				{Framework: "esx", Regular: "30"},
				{Framework: "qbox", Regular: "10", Sale: "5", Disabled: true},
			}})
		}, "30.00", "30.00", false, true, true},
		{"variable: out-of-stock variation counts while shown", nil, func(s *store) {
			s.add(product{Title: "P", Type: typeNameVariable, Variations: []variation{
				{Framework: "esx", Regular: "5", Sale: "4", Stock: "outofstock"},
				{Framework: "qbox", Regular: "12"},
			}})
		}, "4.00", "5.00", true, true, true},
		{"variable: out-of-stock variation ignored while hidden", map[string]string{"woocommerce_hide_out_of_stock_items": "yes"}, func(s *store) {
			s.add(product{Title: "P", Type: typeNameVariable, Variations: []variation{
				{Framework: "esx", Regular: "5", Sale: "4", Stock: "outofstock"},
				{Framework: "qbox", Regular: "12"},
			}})
		}, "12.00", "12.00", false, true, true},
		{"variable: every variation sold out", nil, func(s *store) {
			s.add(product{Title: "P", Type: typeNameVariable, Variations: []variation{
				{Framework: "esx", Regular: "8", Stock: "outofstock"},
				{Framework: "qbox", Regular: "6", Stock: "outofstock"},
			}})
		}, "6.00", "6.00", false, true, false},
		{"variable: scheduled variation sale", nil, func(s *store) {
			s.add(product{Title: "P", Type: typeNameVariable, Variations: []variation{
				{Framework: "esx", Regular: "8", Sale: "4", From: t0.Add(2 * day)},
			}})
		}, "8.00", "8.00", false, true, true},
		{"variable: no variations", nil, one(product{Type: typeNameVariable}), "<nil>", "<nil>", false, false, false},

		{"grouped: lowest child, never purchasable", nil, func(s *store) {
			a := s.add(product{Title: "A", Regular: "10", Sale: "8"})
			b := s.add(product{Title: "B", Regular: "30"})
			c := s.add(product{Title: "C", Slug: "c", Regular: "2", Status: "draft"})
			s.add(product{Title: "P", Type: typeNameGrouped, Children: []int64{a, b, c}})
		}, "2.00", "10.00", true, false, true}, // price: WooCommerce's sync counts the draft; the rest, visible children
		{"grouped: children without a sale", nil, func(s *store) {
			a := s.add(product{Title: "A", Regular: "50"})
			s.add(product{Title: "P", Type: typeNameGrouped, Children: []int64{a}})
		}, "50.00", "50.00", false, false, true},
		{"grouped: an external child's sale does not count", nil, func(s *store) {
			a := s.add(product{Title: "A", Type: typeNameExternal, Regular: "10", Sale: "5"})
			b := s.add(product{Title: "B", Regular: "20"})
			s.add(product{Title: "P", Type: typeNameGrouped, Children: []int64{a, b}})
		}, "5.00", "10.00", false, false, true},
		{"grouped: a variable child's sale does not count", nil, func(s *store) {
			a := s.add(product{Title: "A", Type: typeNameVariable, Variations: []variation{{Framework: "esx", Regular: "10", Sale: "5"}}})
			b := s.add(product{Title: "B", Regular: "20"})
			s.add(product{Title: "P", Type: typeNameGrouped, Children: []int64{a, b}})
		}, "5.00", "20.00", false, false, true},
		{"grouped: a draft child's sale does not count", nil, func(s *store) {
			a := s.add(product{Title: "A", Slug: "a", Regular: "10", Sale: "5", Status: "draft"})
			b := s.add(product{Title: "B", Regular: "20"})
			s.add(product{Title: "P", Type: typeNameGrouped, Children: []int64{a, b}})
		}, "5.00", "20.00", false, false, true},
		{"grouped: a child's sale that has not started", nil, func(s *store) {
			a := s.add(product{Title: "A", Regular: "10", Sale: "5", From: t0.Add(day)})
			s.add(product{Title: "P", Type: typeNameGrouped, Children: []int64{a}})
		}, "10.00", "10.00", false, false, true},
		{"grouped: a missing child", nil, func(s *store) {
			a := s.add(product{Title: "A", Regular: "10"})
			s.add(product{Title: "P", Type: typeNameGrouped, Children: []int64{a, 999}})
		}, "10.00", "10.00", false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore()
			for k, v := range tt.options {
				if v == "<missing>" {
					delete(s.options, k)
				} else {
					s.options[k] = v
				}
			}
			tt.add(s)
			c, _, _ := serve(t, s)
			p := getProduct(t, c, "p")
			if deref(p.Price) != tt.price || deref(p.RegularPrice) != tt.regular || p.OnSale != tt.onSale ||
				p.Purchasable != tt.buy || p.InStock != tt.inStock {
				t.Errorf("price %s, regular %s, on_sale %v, purchasable %v, in_stock %v; want %s, %s, %v, %v, %v",
					deref(p.Price), deref(p.RegularPrice), p.OnSale, p.Purchasable, p.InStock,
					tt.price, tt.regular, tt.onSale, tt.buy, tt.inStock)
			}
			if p.Currency != "EUR" {
				t.Errorf("currency %q, want EUR", p.Currency)
			}
			// The list shows the same prices.
			for _, lp := range getList(t, c, api.ListQuery{PerPage: api.MaxPerPage}).Products {
				if lp.Slug == "p" && (deref(lp.Price) != tt.price || lp.OnSale != tt.onSale) {
					t.Errorf("listed: price %s, on_sale %v; want %s, %v", deref(lp.Price), lp.OnSale, tt.price, tt.onSale)
				}
			}
		})
	}
}

// one adds the product as "P".
func one(p product) func(*store) {
	return func(s *store) {
		p.Title = "P"
		s.add(p)
	}
}

// TestRulesSaleClock: on_sale follows the clock with no edit at all; Until
// says when it next flips (a cached copy must not outlive it), Modified
// includes the last sale boundary passed.
func TestRulesSaleClock(t *testing.T) {
	saved := t0.Add(-10 * 24 * time.Hour) // every post's post_modified_gmt
	loaded := t0.Add(-3 * time.Hour)      // the first snapshot: terms and settings seen
	tests := []struct {
		name     string
		p        product
		at       time.Time // the clock when asked
		onSale   bool
		until    time.Time
		modified time.Time
	}{
		{"no sale", product{Regular: "9"}, t0, false, time.Time{}, loaded},
		{"sale without dates", product{Regular: "9", Sale: "5"}, t0, true, time.Time{}, loaded},
		{"sale ahead", product{Regular: "9", Sale: "5", From: t0.Add(time.Hour), To: t0.Add(5 * time.Hour)},
			t0, false, t0.Add(time.Hour), loaded},
		{"sale on its first second", product{Regular: "9", Sale: "5", From: t0, To: t0.Add(5 * time.Hour)},
			t0, true, t0.Add(5*time.Hour + time.Second), t0},
		{"sale on its last second", product{Regular: "9", Sale: "5", To: t0},
			t0, true, t0.Add(time.Second), loaded},
		{"sale ended: the second after its end passed", product{Regular: "9", Sale: "5", To: t0.Add(-time.Hour)},
			t0, false, time.Time{}, t0.Add(-time.Hour + time.Second)},
		{"sale ended before the load: the load is newer", product{Regular: "9", Sale: "5", To: t0.Add(-5 * time.Hour)},
			t0, false, time.Time{}, loaded},
		{"sale started since the load", product{Regular: "9", Sale: "5", From: t0.Add(-time.Hour)},
			t0, true, time.Time{}, t0.Add(-time.Hour)},
		{"variable: the earliest variation's flip", product{Type: typeNameVariable, Variations: []variation{
			{Framework: "esx", Regular: "9", Sale: "4", From: t0.Add(2 * time.Hour)},
			{Framework: "qbox", Regular: "9", Sale: "4", To: t0.Add(time.Hour)},
		}}, t0, true, t0.Add(time.Hour + time.Second), loaded},
		{"variable: a disabled variation's dates do not count", product{Type: typeNameVariable, Variations: []variation{
			{Framework: "esx", Regular: "9"},
			{Framework: "qbox", Regular: "9", Sale: "4", From: t0.Add(time.Hour), Disabled: true},
		}}, t0, false, time.Time{}, loaded},
		{"variable: a variation saved since the load", product{Type: typeNameVariable, Variations: []variation{
			{Framework: "esx", Regular: "9", Modified: t0.Add(-time.Minute)},
		}}, t0, false, time.Time{}, t0.Add(-time.Minute)},
		{"post-dated save is clamped to now", product{Regular: "9", Modified: t0.Add(24 * time.Hour)},
			t0, false, time.Time{}, t0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore()
			s.now = saved
			tt.p.Title = "P"
			if tt.p.Modified.IsZero() {
				tt.p.Modified = saved
			}
			for i := range tt.p.Variations {
				if tt.p.Variations[i].Modified.IsZero() {
					tt.p.Variations[i].Modified = saved
				}
			}
			s.add(tt.p)
			c, _, clk := serve(t, s)
			clk.set(loaded)
			if err := c.Ready(context.Background()); err != nil {
				t.Fatal(err)
			}
			clk.set(tt.at)
			p := getProduct(t, c, "p")
			if p.OnSale != tt.onSale || !p.ExpiresAt.Equal(tt.until) || !p.Modified.Equal(tt.modified) {
				t.Errorf("on_sale %v, Until %v, Modified %v; want %v, %v, %v", p.OnSale, p.ExpiresAt.UTC(), p.Modified.UTC(),
					tt.onSale, tt.until.UTC(), tt.modified.UTC())
			}
			// At the instant Until names, on_sale has flipped.
			if !tt.until.IsZero() {
				clk.set(tt.until)
				if q := getProduct(t, c, "p"); q.OnSale == p.OnSale {
					t.Errorf("at Until %v: on_sale still %v", tt.until.UTC(), q.OnSale)
				} else if !q.Modified.Equal(tt.until) {
					t.Errorf("at Until: Modified %v, want %v (the flip)", q.Modified.UTC(), tt.until.UTC())
				}
			}
		})
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

// TestRulesProductURLs: get_permalink() of a product under the permalink
// settings, %product_cat% expanding to its deepest category with the
// ancestors.
func TestRulesProductURLs(t *testing.T) {
	const home = "https://shop.example"
	tests := []struct {
		name      string
		structure string
		base      string
		cats      []string
		want      string
	}{
		{"default base", "/%postname%/", "product", []string{"police"}, home + "/product/radar/"},
		{"no trailing slash", "/%postname%", "product", []string{"police"}, home + "/product/radar"},
		{"plain permalinks", "", "product", []string{"police"}, home + "/?product=radar"},
		{"custom base", "/%postname%/", "/shop/", []string{"police"}, home + "/shop/radar/"},
		{"empty base falls back", "/%postname%/", "", []string{"police"}, home + "/product/radar/"},
		{"category in the base", "/%postname%/", "/shop/%product_cat%", []string{"police"}, home + "/shop/jobs/police/radar/"},
		{"category in the base: a parent and its child", "/%postname%/", "/shop/%product_cat%", []string{"jobs", "police"},
			home + "/shop/jobs/police/radar/"},
		{"category in the base: the deepest across trees", "/%postname%/", "/shop/%product_cat%",
			[]string{"vehicles", "traffic", "police"}, home + "/shop/jobs/police/traffic/radar/"},
		{"category in the base: a top-level one", "/%postname%/", "/shop/%product_cat%", []string{"vehicles"},
			home + "/shop/vehicles/radar/"},
		{"category in the base, no trailing slash", "/%postname%", "/shop/%product_cat%", []string{"police"},
			home + "/shop/jobs/police/radar"},
		{"category in the base, plain permalinks", "", "/shop/%product_cat%", []string{"police"}, home + "/?product=radar"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore()
			s.options["permalink_structure"] = tt.structure
			s.options["woocommerce_permalinks"] = permalinks(tt.base, "")
			s.category("Vehicles", "vehicles", "", 0)
			s.category("Jobs", "jobs", "", 0)
			s.category("Police", "police", "jobs", 0)
			s.category("Traffic", "traffic", "police", 0)
			s.add(product{Title: "Radar", Regular: "1", Categories: tt.cats})
			c, _, _ := serve(t, s)
			if got := getProduct(t, c, "radar").URL; got != tt.want {
				t.Errorf("url %s, want %s", got, tt.want)
			}
			if got := getList(t, c, api.ListQuery{}).Products[0].URL; got != tt.want {
				t.Errorf("listed url %s, want %s", got, tt.want)
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

// TestRulesRefresh: a refresh re-reads the products changed (and the
// grouped products listing them) and swaps in a snapshot sharing every
// other product with the old one.
func TestRulesRefresh(t *testing.T) {
	ctx := context.Background()
	s := newStore()
	s.category("Jobs", "jobs", "", 0)
	a := s.add(product{Title: "A", Regular: "10", Categories: []string{"jobs"}})
	b := s.add(product{Title: "B", Regular: "20"})
	c := s.add(product{Title: "C", Regular: "30", Categories: []string{"jobs"}})
	kid := s.add(product{Title: "Kid", Regular: "40"})
	group := s.add(product{Title: "Group", Type: typeNameGrouped, Children: []int64{kid, b}})
	cat, src, clk := serve(t, s)
	old, err := cat.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// B's price edited, A unpublished, a new product D saved, Kid put on
	// sale; the store holds them before the catalog hears of them.
	edited := t0.Add(time.Minute)
	var d int64
	src.do(func(s *store) {
		s.setMeta(b, metaRegularPrice, "7")
		s.setMeta(b, metaPrice, "7")
		s.stored[b] = "7"
		s.update(b, edited, func(*Post) {})
		s.update(a, edited, func(p *Post) { p.Status = "draft" })
		d = s.add(product{Title: "D", Regular: "5", Categories: []string{"jobs"}})
		s.setMeta(kid, metaSalePrice, "35")
		s.setMeta(kid, metaPrice, "35")
		s.update(kid, edited, func(*Post) {})
	})
	clk.set(edited)
	if got := getProduct(t, cat, "b"); deref(got.Price) != "20.00" {
		t.Errorf("before the refresh: b price %s, want the snapshot's 20.00", deref(got.Price))
	}
	if err := cat.Refresh(ctx, a, b, d, kid); err != nil {
		t.Fatal(err)
	}
	if asked, want := src.products[len(src.products)-1], []int64{a, b, kid, group, d}; !reflect.DeepEqual(asked, want) {
		t.Errorf("refresh read %v, want %v: the changed products and the grouped one listing two of them", asked, want)
	}
	if src.shops != 1 {
		t.Errorf("%d whole-shop reads, want 1: a refresh reads only the products", src.shops)
	}
	cur, err := cat.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cur == old || cur.Version <= old.Version {
		t.Fatalf("snapshot %d after the refresh, was %d", cur.Version, old.Version)
	}

	tests := []struct {
		name  string
		check func() error
	}{
		{"a refreshed product replaces the old one", func() error {
			if p := getProduct(t, cat, "b"); deref(p.Price) != "7.00" || !p.Modified.Equal(edited) {
				return fmt.Errorf("b: price %s, modified %v; want 7.00, %v", deref(p.Price), p.Modified, edited)
			}
			return nil
		}},
		{"an unpublished one disappears", func() error {
			if _, err := cat.Product(ctx, "a"); ErrorKind(err) != ENOTFOUND {
				return fmt.Errorf("a: %v, want not found", err)
			}
			return nil
		}},
		{"a new one appears in its place by ID", func() error {
			l := getList(t, cat, api.ListQuery{})
			if got, want := listSlugs(l.Products), []string{"b", "c", "kid", "group", "d"}; !reflect.DeepEqual(got, want) || l.Total != 5 {
				return fmt.Errorf("list %v (total %d), want %v", got, l.Total, want)
			}
			return nil
		}},
		{"the counts follow", func() error {
			cats := getCategories(t, cat)
			for _, cg := range cats {
				if cg.Slug == "jobs" && cg.Count != 2 {
					return fmt.Errorf("jobs count %d, want 2 (c and d)", cg.Count)
				}
			}
			if l := getList(t, cat, api.ListQuery{Category: "jobs"}); !reflect.DeepEqual(listSlugs(l.Products), []string{"c", "d"}) {
				return fmt.Errorf("category=jobs: %v, want [c d]", listSlugs(l.Products))
			}
			return nil
		}},
		{"lists and counts are modified at the refresh", func() error {
			// A left the jobs list: no product on it says so, the list's
			// Last-Modified must (If-Modified-Since would answer 304).
			if l := getList(t, cat, api.ListQuery{Category: "jobs"}); !l.Modified.Equal(edited) {
				return fmt.Errorf("category=jobs Modified %v, want the refresh %v", l.Modified, edited)
			}
			cl, err := cat.Categories(ctx)
			if err != nil || !cl.Modified.Equal(edited) {
				return fmt.Errorf("categories Modified %v (%v), want the refresh %v", cl.Modified, err, edited)
			}
			if p := getProduct(t, cat, "c"); !p.Modified.Equal(t0) {
				return fmt.Errorf("c Modified %v, want the load %v: its settings did not change", p.Modified, t0)
			}
			return nil
		}},
		{"the grouped parent is re-priced from its children", func() error {
			p := getProduct(t, cat, "group")
			if !p.OnSale || deref(p.RegularPrice) != "7.00" || !p.Modified.Equal(edited) {
				return fmt.Errorf("group: on_sale %v, regular %s, modified %v; want true, 7.00, %v",
					p.OnSale, deref(p.RegularPrice), p.Modified, edited)
			}
			return nil
		}},
		{"other products are shared", func() error {
			if cur.all[c] != old.all[c] {
				return fmt.Errorf("c was rebuilt: %p, was %p", cur.all[c], old.all[c])
			}
			if cur.all[b] == old.all[b] {
				return fmt.Errorf("b is the old item")
			}
			if cur.sh != old.sh || cur.t != old.t {
				return fmt.Errorf("settings or terms rebuilt")
			}
			return nil
		}},
		{"the old snapshot is untouched", func() error {
			if old.Products() != 5 || old.all[a] == nil || deref(old.sh.product(old.all[b], false, edited).Price) != "20.00" {
				return fmt.Errorf("old snapshot: %d products, a %v, b %s", old.Products(), old.all[a] != nil,
					deref(old.sh.product(old.all[b], false, edited).Price))
			}
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.check(); err != nil {
				t.Error(err)
			}
		})
	}

	// Affected: a child names its grouped parents; others only themselves.
	for _, tt := range []struct{ ids, want []int64 }{
		{[]int64{kid}, []int64{kid, group}},
		{[]int64{b, c}, []int64{b, c, group}},
		{[]int64{c}, []int64{c}},
		{[]int64{group}, []int64{group}},
	} {
		if got := cur.Affected(tt.ids); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Affected(%v) = %v, want %v", tt.ids, got, tt.want)
		}
	}

	// The child Kid trashed: the group no longer shows its sale.
	src.do(func(s *store) { s.update(kid, edited, func(p *Post) { p.Status = "trash"; p.Slug += "__trashed" }) })
	if err := cat.Refresh(ctx, kid); err != nil {
		t.Fatal(err)
	}
	if p := getProduct(t, cat, "group"); p.OnSale || deref(p.RegularPrice) != "7.00" {
		t.Errorf("group after its child was trashed: on_sale %v, regular %s; want false, 7.00", p.OnSale, deref(p.RegularPrice))
	}
	if _, err := cat.Product(ctx, "kid"); ErrorKind(err) != ENOTFOUND {
		t.Errorf("trashed kid: %v, want not found", err)
	}

	// A product deleted outright comes back from the source as nothing.
	src.do(func(s *store) { delete(s.posts, c) })
	if err := cat.Refresh(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.Product(ctx, "c"); ErrorKind(err) != ENOTFOUND {
		t.Errorf("deleted c: %v, want not found", err)
	}
}

// TestRulesNoMixedSnapshots: while refreshes swap snapshots in, every
// response comes from one: a page's products all carry the same version's
// price, and its total agrees with them.
func TestRulesNoMixedSnapshots(t *testing.T) {
	ctx := context.Background()
	s := newStore()
	var ids []int64
	for i := 0; i < 10; i++ {
		ids = append(ids, s.add(product{Title: fmt.Sprintf("P%d", i), Regular: "10"}))
	}
	cat, src, _ := serve(t, s)
	if err := cat.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	const versions = 30
	done := make(chan struct{})
	var wg sync.WaitGroup
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				l, err := cat.Products(ctx, api.ListQuery{PerPage: api.MaxPerPage})
				if err != nil {
					t.Error(err)
					return
				}
				// Version v has 10+v products, every one priced 10+v.
				want := fmt.Sprintf("%d.00", l.Total)
				for _, p := range l.Products {
					if deref(p.Price) != want {
						t.Errorf("a page of %d products holds %s priced %s: two snapshots mixed", l.Total, p.Slug, deref(p.Price))
						return
					}
				}
			}
		}()
	}
	for v := 1; v <= versions; v++ {
		price := fmt.Sprint(10 + v)
		src.do(func(s *store) {
			for _, id := range ids {
				s.setMeta(id, metaRegularPrice, price)
				s.setMeta(id, metaPrice, price)
			}
			ids = append(ids, s.add(product{Title: fmt.Sprintf("New%d", v), Regular: price}))
		})
		if err := cat.Refresh(ctx, ids...); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if l := getList(t, cat, api.ListQuery{PerPage: api.MaxPerPage}); l.Total != 10+versions {
		t.Errorf("total %d, want %d", l.Total, 10+versions)
	}
}

// TestRulesSlugLookup: a slug is found as the database compares post_name
// (case-insensitively, trailing spaces ignored), the lowest ID first among
// duplicates.
func TestRulesSlugLookup(t *testing.T) {
	s := newStore()
	s.add(product{Title: "Upper", Slug: "Radar-Pro", Regular: "1"})
	s.add(product{Title: "First", Slug: "twin", Regular: "1"})
	s.add(product{Title: "Second", Slug: "twin", Regular: "2"})
	s.add(product{Title: "Draft Twin", Slug: "solo", Regular: "3", Status: "draft"})
	s.add(product{Title: "Solo", Slug: "solo", Regular: "4"})
	s.add(product{Title: "Spaced", Slug: "spaced ", Regular: "5"})
	s.add(product{Title: "Cyrillic", Slug: "%d1%80%d0%b0%d0%b4%d0%b0%d1%80", Regular: "6"})
	c, _, _ := serve(t, s)
	tests := []struct {
		slug string
		name string // "" for not found
		kind string // the error's kind otherwise
	}{
		{"radar-pro", "Upper", ""},
		{"twin", "First", ""},
		{"solo", "Solo", ""}, // the draft's lower ID does not count
		{"spaced", "Spaced", ""},
		{"%d1%80%d0%b0%d0%b4%d0%b0%d1%80", "Cyrillic", ""},
		{"%D1%80%D0%B0%D0%B4%D0%B0%D1%80", "Cyrillic", ""},
		{"радар", "Cyrillic", ""},
		{"Radar-Pro", "", EINVALID}, // uppercase ASCII is not a spelling the API accepts
		{"nope", "", ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			p, err := c.Product(context.Background(), tt.slug)
			if tt.name == "" {
				if ErrorKind(err) != tt.kind {
					t.Errorf("%v, want kind %s", err, tt.kind)
				}
				return
			}
			if err != nil || p.Name != tt.name {
				t.Errorf("got %v (%v), want %s", p, err, tt.name)
			}
		})
	}
}

// TestRulesTranslationHints: a slug of another language answers 404 with
// a hint naming the served language's slug, as each plugin relates
// translations: WPML by trid, Polylang by post_translations group,
// TranslatePress by its table of translated slugs.
func TestRulesTranslationHints(t *testing.T) {
	plugins := map[string]func(s *store){
		"wpml": func(s *store) {
			s.options["active_plugins"] = phpList("woocommerce/woocommerce.php", "sitepress-multilingual-cms/sitepress.php")
			s.options["icl_sitepress_settings"] = `a:4:{s:16:"default_language";s:2:"en";s:25:"language_negotiation_type";i:1;` +
				`s:24:"custom_posts_sync_option";a:1:{s:7:"product";i:1;}s:22:"taxonomies_sync_option";a:1:{s:11:"product_cat";i:0;}}`
			s.tables[TableWPMLTranslations], s.tables[TableWPMLLanguages] = true, true
			s.langs = []Language{{Code: "de", Name: "Deutsch"}, {Code: "en", Name: "English"}}
			file := func(id int64, lang string, trid int64) { s.wpml[id] = WPMLElement{Language: lang, TRID: trid} }
			file(s.add(product{Title: "Police Radar", Regular: "1"}), "en", 1)
			file(s.add(product{Title: "Polizeiradar", Regular: "1"}), "de", 1)
			file(s.add(product{Title: "Nur Deutsch", Regular: "1"}), "de", 2)
			file(s.add(product{Title: "Entwurf", Slug: "entwurf-de", Regular: "1"}), "de", 3)
			file(s.add(product{Title: "Draft", Slug: "draft-en", Regular: "1", Status: "draft"}), "en", 3)
		},
		"polylang": func(s *store) {
			s.options["active_plugins"] = phpList("woocommerce/woocommerce.php", "polylang/polylang.php")
			s.options["polylang"] = `a:4:{s:12:"default_lang";s:2:"en";s:10:"force_lang";i:1;` +
				`s:10:"post_types";a:1:{i:0;s:7:"product";}s:10:"taxonomies";a:0:{}}`
			s.term(taxLanguage, "English", "en", "", 0)
			s.term(taxLanguage, "Deutsch", "de", "", 1)
			s.term(taxTermLanguage, "English", "pll_en", "", 0)
			s.term(taxTermLanguage, "Deutsch", "pll_de", "", 0)
			group := func(name string, members map[string]int64) {
				tt := s.term("post_translations", name, name, "", 0)
				s.groups[tt] = members
				for _, id := range members {
					s.rels[id] = append(s.rels[id], tt)
				}
			}
			in := func(id int64, lang string) int64 { s.relate(id, taxLanguage, lang); return id }
			en := in(s.add(product{Title: "Police Radar", Regular: "1"}), "en")
			de := in(s.add(product{Title: "Polizeiradar", Regular: "1"}), "de")
			group("pll_1", map[string]int64{"en": en, "de": de})
			in(s.add(product{Title: "Nur Deutsch", Regular: "1"}), "de")
			deDraft := in(s.add(product{Title: "Entwurf", Slug: "entwurf-de", Regular: "1"}), "de")
			enDraft := in(s.add(product{Title: "Draft", Slug: "draft-en", Regular: "1", Status: "draft"}), "en")
			group("pll_2", map[string]int64{"en": enDraft, "de": deDraft})
		},
		"translatepress": func(s *store) {
			s.options["active_plugins"] = phpList("woocommerce/woocommerce.php", "translatepress-multilingual/index.php")
			s.options["trp_settings"] = `a:1:{s:16:"default-language";s:5:"en_US";}`
			s.tables[TableTRPSlugOriginals], s.tables[TableTRPSlugTranslations] = true, true
			s.add(product{Title: "Police Radar", Regular: "1"})
			s.add(product{Title: "Draft", Slug: "draft-en", Regular: "1", Status: "draft"})
			s.trp["polizeiradar"] = "police-radar"
			s.trp["entwurf-de"] = "draft-en"
		},
	}
	tests := []struct {
		plugin, slug string
		hint         string // the served language's slug the 404 names; "" for none
	}{
		{"wpml", "polizeiradar", "police-radar"},
		{"wpml", "nur-deutsch", ""}, // no English translation
		{"wpml", "entwurf-de", ""},  // its English translation is a draft
		{"wpml", "nope", ""},
		{"polylang", "polizeiradar", "police-radar"},
		{"polylang", "nur-deutsch", ""},
		{"polylang", "entwurf-de", ""},
		{"polylang", "nope", ""},
		{"translatepress", "polizeiradar", "police-radar"},
		{"translatepress", "entwurf-de", ""}, // the original is a draft
		{"translatepress", "nope", ""},
	}
	for _, tt := range tests {
		t.Run(tt.plugin+" "+tt.slug, func(t *testing.T) {
			s := newStore()
			plugins[tt.plugin](s)
			c, _, _ := serve(t, s)
			if l := getList(t, c, api.ListQuery{}); tt.plugin != "translatepress" && !reflect.DeepEqual(listSlugs(l.Products), []string{"police-radar"}) {
				t.Errorf("served %v, want the English product only", listSlugs(l.Products))
			}
			_, err := c.Product(context.Background(), tt.slug)
			var e *Error
			if !errors.As(err, &e) || e.Kind != ENOTFOUND || e.Reason != "product_not_found" {
				t.Fatalf("%v, want product_not_found", err)
			}
			named := strings.Contains(e.Hint, `"`+tt.hint+`"`) && e.Link == "/catalog/products/"+tt.hint &&
				strings.Contains(e.Message, "translation")
			if tt.hint != "" && !named {
				t.Errorf("message %q, hint %q, link %q; want the English slug %s named", e.Message, e.Hint, e.Link, tt.hint)
			}
			if tt.hint == "" && (strings.Contains(e.Message, "translation") || e.Link != "/catalog/products") {
				t.Errorf("message %q, hint %q, link %q; want the plain not-found hint", e.Message, e.Hint, e.Link)
			}
		})
	}
}

// TestRulesImages: the featured image's full-size URL under the uploads
// settings; none for a product without one.
func TestRulesImages(t *testing.T) {
	tests := []struct {
		name    string
		options map[string]string
		file    string
		want    string
	}{
		{"default uploads", nil, "2026/11/radar.jpg", "https://shop.example/wp-content/uploads/2026/11/radar.jpg"},
		{"upload_url_path", map[string]string{"upload_url_path": "https://cdn.example/media/"}, "2026/11/radar.jpg",
			"https://cdn.example/media/2026/11/radar.jpg"},
		{"relative upload_path", map[string]string{"upload_path": "files"}, "2026/11/radar.jpg", "https://shop.example/files/2026/11/radar.jpg"},
		{"siteurl differs from home", map[string]string{"siteurl": "https://shop.example/wp"}, "2026/11/radar.jpg",
			"https://shop.example/wp/wp-content/uploads/2026/11/radar.jpg"},
		{"offloaded media stores the whole URL", nil, "https://media.example/radar.jpg", "https://media.example/radar.jpg"},
		{"no featured image", nil, "", "<nil>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore()
			for k, v := range tt.options {
				s.options[k] = v
			}
			s.add(product{Title: "Radar", Regular: "1", Image: tt.file})
			id := s.add(product{Title: "Dangling", Regular: "1"})
			s.setMeta(id, MetaThumbnail, "999") // the attachment was deleted
			c, _, _ := serve(t, s)
			if got := deref(getProduct(t, c, "radar").Image); got != tt.want {
				t.Errorf("image %s, want %s", got, tt.want)
			}
			if img := getProduct(t, c, "dangling").Image; img != nil {
				t.Errorf("a deleted attachment: image %s, want null", *img)
			}
		})
	}
}

// TestRulesFrameworks: a product's frameworks in the attribute's
// storefront order, and the framework filter.
func TestRulesFrameworks(t *testing.T) {
	tests := []struct {
		orderBy string
		rename  map[string]string // term names changed (name_num)
		want    []string
	}{
		{"menu_order", nil, []string{"esx", "qbcore", "qbox", "standalone"}}, // "order" meta 0…3
		{"name", map[string]string{"esx": "Zap"}, []string{"qbcore", "qbox", "standalone", "esx"}},
		{"id", map[string]string{"esx": "Zap"}, []string{"qbcore", "qbox", "standalone", "esx"}}, // WooCommerce drops "id": by name
		{"name_num", map[string]string{"esx": "10 ESX", "qbcore": "9 QBCore", "qbox": "Qbox", "standalone": "2 Standalone"},
			[]string{"qbox", "standalone", "qbcore", "esx"}},
	}
	for _, tt := range tests {
		t.Run(tt.orderBy, func(t *testing.T) {
			s := newStore()
			s.orderBy["framework"] = tt.orderBy
			for slug, name := range tt.rename {
				s.terms[s.termIx[taxFramework][slug]].Name = name
			}
			s.add(product{Title: "All", Regular: "1", Frameworks: []string{"qbox", "standalone", "qbcore", "esx"}})
			s.add(product{Title: "Garage", Type: typeNameVariable, Variations: []variation{
				{Framework: "qbox", Regular: "2"}, {Framework: "esx", Regular: "3"}}})
			c, _, _ := serve(t, s)
			if got := getProduct(t, c, "all").Frameworks; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("frameworks %v, want %v", got, tt.want)
			}
			if got := listSlugs(getList(t, c, api.ListQuery{Framework: "esx"}).Products); !reflect.DeepEqual(got, []string{"all", "garage"}) {
				t.Errorf("framework=esx: %v, want [all garage]", got)
			}
			if got := listSlugs(getList(t, c, api.ListQuery{Framework: "standalone"}).Products); !reflect.DeepEqual(got, []string{"all"}) {
				t.Errorf("framework=standalone: %v, want [all]", got)
			}
		})
	}
}

// A change to one variation refreshes its product: the parent is read
// again with every variation, and its price follows.
func TestRulesRefreshVariation(t *testing.T) {
	ctx := context.Background()
	s := newStore()
	parent := s.add(product{Title: "Garage", Type: typeNameVariable, Variations: []variation{
		{Framework: "esx", Regular: "10"}, {Framework: "qbox", Regular: "15"}}})
	other := s.add(product{Title: "Other", Regular: "3"})
	var esx int64
	for id, p := range s.posts {
		if p.Type == "product_variation" && p.Parent == parent && strings.HasSuffix(p.Slug, "-esx") {
			esx = id
		}
	}
	if esx == 0 {
		t.Fatal("no esx variation in the store")
	}
	cat, src, clk := serve(t, s)
	if p := getProduct(t, cat, "garage"); deref(p.RegularPrice) != "10.00" {
		t.Fatalf("before: regular %s, want 10.00", deref(p.RegularPrice))
	}
	edited := t0.Add(time.Minute)
	src.do(func(s *store) {
		s.setMeta(esx, metaRegularPrice, "12")
		s.setMeta(esx, metaPrice, "12")
		s.update(esx, edited, func(*Post) {})
		s.setMeta(parent, metaPrice, "12", "15")
	})
	clk.set(edited)
	if err := cat.Refresh(ctx, esx); err != nil {
		t.Fatal(err)
	}
	if asked := src.products[len(src.products)-1]; !slices.Contains(asked, parent) || slices.Contains(asked, other) {
		t.Errorf("refresh read %v, want the variation's product %d and not %d", asked, parent, other)
	}
	if p := getProduct(t, cat, "garage"); deref(p.RegularPrice) != "12.00" || !p.Modified.Equal(edited) {
		t.Errorf("after: regular %s, modified %v; want 12.00, %v", deref(p.RegularPrice), p.Modified, edited)
	}
}
