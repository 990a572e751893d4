package catalog

import (
	"context"
	"testing"
	"time"

	"catalogd/api"
)

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
