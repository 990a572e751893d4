package catalog

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"catalogd/api"
)

// The fields of the storefront's product page beyond the contract's: the
// SKU, the price range and the tags, each as the WooCommerce function named
// in its test shows it to an anonymous visitor.

// rangeOf spells a price range for the tests: "" for none.
func rangeOf(r *api.PriceRange) string {
	if r == nil {
		return ""
	}
	return r.Min + "–" + r.Max
}

// TestRulesSKU mirrors the single product page's meta
// (single-product/meta.php): WC_Product::get_sku(), the first _sku row,
// where wc_product_sku_enabled() (a filter, true by default); null when
// empty. The list shows it too.
func TestRulesSKU(t *testing.T) {
	tests := []struct {
		name string
		p    product
		rows []string // _sku rows, when not the product's SKU
		want string   // "<nil>" for none
	}{
		{"a SKU", product{Regular: "5", SKU: "PD-MDT-01"}, nil, "PD-MDT-01"},
		{"as stored, not trimmed or cased", product{Regular: "5", SKU: "ab 12/x"}, nil, "ab 12/x"},
		{"the empty row every product carries", product{Regular: "5"}, nil, "<nil>"},
		{"the first row counts", product{Regular: "5"}, []string{"FIRST", "SECOND"}, "FIRST"},
		{"a variable product's own", product{Type: typeNameVariable, SKU: "VAR-1",
			Variations: []variation{{Framework: "esx", Regular: "5"}}}, nil, "VAR-1"},
		{"a grouped product's own", product{Type: typeNameGrouped, SKU: "KIT"}, nil, "KIT"},
		// Its page shows the password form alone (content-single-product.php),
		// and no other page shows a SKU.
		{"password-protected: none", product{Regular: "5", SKU: "SECRET-1", Password: "pw"}, nil, "<nil>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore()
			tt.p.Title = "P"
			id := s.add(tt.p)
			if tt.rows != nil {
				s.setMeta(id, metaSKU, tt.rows...)
			}
			c, _, _ := serve(t, s)
			if got := deref(getProduct(t, c, "p").SKU); got != tt.want {
				t.Errorf("single sku = %s, want %s", got, tt.want)
			}
			if l := getList(t, c, api.ListQuery{}); len(l.Products) != 1 || deref(l.Products[0].SKU) != tt.want {
				t.Errorf("listed sku = %v, want %s", l.Products, tt.want)
			}
		})
	}
}

// TestRulesPriceRange mirrors WC_Product_Variable::get_price_html (the
// range of get_variation_prices(true): the visible children,
// read_children's, each at the active price a variation's read computes,
// rounded with wc_format_decimal and sorted) and
// WC_Product_Grouped::get_price_html (its published children's
// get_price(), min and max compared exactly): no range where the two are
// equal, and none for simple and external products.
func TestRulesPriceRange(t *testing.T) {
	tests := []struct {
		name     string
		p        product
		kids     []product // a grouped product's children, added first
		hide     bool
		decimals string
		want     string // "min–max", "" for null
	}{
		{"simple", product{Regular: "5", Sale: "3"}, nil, false, "", ""},
		{"external", product{Type: typeNameExternal, Regular: "5"}, nil, false, "", ""},
		{"variable: lowest and highest", product{Type: typeNameVariable, Variations: []variation{
			{Framework: "esx", Regular: "10"}, {Framework: "qbcore", Regular: "4.5"}, {Framework: "qbox", Regular: "12.995"}}},
			nil, false, "", "4.50–13.00"},
		{"variable: one price", product{Type: typeNameVariable, Variations: []variation{
			{Framework: "esx", Regular: "10"}, {Framework: "qbox", Regular: "10.00"}}}, nil, false, "", ""},
		{"variable: equal once rounded to the shop's decimals", product{Type: typeNameVariable, Variations: []variation{
			{Framework: "esx", Regular: "4.991"}, {Framework: "qbox", Regular: "4.994"}}}, nil, false, "", ""},
		{"variable: no decimals", product{Type: typeNameVariable, Variations: []variation{
			{Framework: "esx", Regular: "9.6"}, {Framework: "qbox", Regular: "12.4"}}}, nil, false, "0", "10–12"},
		{"variable: a variation on sale counts at its sale price", product{Type: typeNameVariable, Variations: []variation{
			{Framework: "esx", Regular: "10", Sale: "6"}, {Framework: "qbox", Regular: "8"}}}, nil, false, "", "6.00–8.00"},
		{"variable: a disabled variation is left out", product{Type: typeNameVariable, Variations: []variation{
			{Framework: "esx", Regular: "10"}, {Framework: "qbcore", Regular: "1", Disabled: true},
			{Framework: "qbox", Regular: "12"}}}, nil, false, "", "10.00–12.00"},
		{"variable: an out-of-stock variation counts where the shop shows them", product{Type: typeNameVariable,
			Variations: []variation{{Framework: "esx", Regular: "10"}, {Framework: "qbox", Regular: "99", Stock: "outofstock"}}},
			nil, false, "", "10.00–99.00"},
		{"variable: an out-of-stock variation is left out where the shop hides them", product{Type: typeNameVariable,
			Variations: []variation{{Framework: "esx", Regular: "10"}, {Framework: "qbcore", Regular: "11"},
				{Framework: "qbox", Regular: "99", Stock: "outofstock"}}}, nil, true, "", "10.00–11.00"},
		{"variable: a variation without a price is skipped", product{Type: typeNameVariable, Variations: []variation{
			{Framework: "esx", Regular: "10"}, {Framework: "qbox"}}}, nil, false, "", ""},
		{"variable: a sale ended while the job that rewrites _price lags", product{Type: typeNameVariable,
			Variations: []variation{{Framework: "esx", Regular: "10", Sale: "2", To: t0.Add(-time.Hour), Stored: storedAs("2")},
				{Framework: "qbox", Regular: "12"}}}, nil, false, "", "10.00–12.00"},
		{"grouped: its children's prices", product{Type: typeNameGrouped}, []product{
			{Title: "A", Regular: "5"}, {Title: "B", Regular: "12", Sale: "9"}, {Title: "C", Regular: "7"}},
			false, "", "5.00–9.00"},
		{"grouped: a draft child and one without a price are left out", product{Type: typeNameGrouped}, []product{
			{Title: "A", Regular: "5"}, {Title: "B", Regular: "1", Status: "draft"}, {Title: "C"}, {Title: "D", Regular: "8"}},
			false, "", "5.00–8.00"},
		{"grouped: one price", product{Type: typeNameGrouped}, []product{{Title: "A", Regular: "5"}, {Title: "B", Regular: "5.0"}},
			false, "", ""},
		// get_price_html compares the children's prices as numbers and
		// rounds each only when it prints it.
		{"grouped: unequal prices equal once rounded", product{Type: typeNameGrouped}, []product{
			{Title: "A", Regular: "10.001"}, {Title: "B", Regular: "10.004"}}, false, "", "10.00–10.00"},
		{"grouped: a variable child at its price", product{Type: typeNameGrouped}, []product{
			{Title: "A", Regular: "20"}, {Title: "V", Type: typeNameVariable, Variations: []variation{
				{Framework: "esx", Regular: "3"}, {Framework: "qbox", Regular: "30"}}}}, false, "", "3.00–20.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore()
			if tt.hide {
				s.options["woocommerce_hide_out_of_stock_items"] = "yes"
			}
			if tt.decimals != "" {
				s.options["woocommerce_price_num_decimals"] = tt.decimals
			}
			for _, k := range tt.kids {
				tt.p.Children = append(tt.p.Children, s.add(k))
			}
			tt.p.Title = "P"
			s.add(tt.p)
			c, _, _ := serve(t, s)
			p := getProduct(t, c, "p")
			if got := rangeOf(p.PriceRange); got != tt.want {
				t.Errorf("price_range = %q, want %q", got, tt.want)
			}
			for _, l := range getList(t, c, api.ListQuery{PerPage: 50}).Products {
				if l.Slug == "p" && rangeOf(l.PriceRange) != tt.want {
					t.Errorf("listed price_range = %q, want %q", rangeOf(l.PriceRange), tt.want)
				}
			}
		})
	}
}

// TestRulesPriceRangeSaleClock: a variation's active price is computed at
// every read from its sale dates (the variation data store's
// read_product_data), so the range moves as a sale starts and ends with
// no edit at all, and a cached copy expires then.
func TestRulesPriceRangeSaleClock(t *testing.T) {
	from, to := t0.Add(time.Hour), t0.Add(2*time.Hour)
	s := newStore()
	s.add(product{Title: "P", Type: typeNameVariable, Variations: []variation{
		{Framework: "esx", Regular: "10", Sale: "5", From: from, To: to}, {Framework: "qbox", Regular: "20"}}})
	c, _, clk := serve(t, s)
	for _, step := range []struct {
		at    time.Time
		want  string
		until time.Time
	}{
		{t0, "10.00–20.00", from},
		{from, "5.00–20.00", to.Add(time.Second)},
		{to, "5.00–20.00", to.Add(time.Second)},
		{to.Add(time.Second), "10.00–20.00", time.Time{}},
	} {
		clk.set(step.at)
		p := getProduct(t, c, "p")
		if got := rangeOf(p.PriceRange); got != step.want || !p.ExpiresAt.Equal(step.until) {
			t.Errorf("at %v: price_range %q, expires %v; want %q, %v", step.at, got, p.ExpiresAt, step.want, step.until)
		}
	}
}

// TestRulesTags mirrors wc_get_product_tag_list → get_the_term_list →
// get_the_terms: the product's product_tag terms by name (the query the
// page's main loop primes the term cache with orders them so, as
// wp_get_object_terms does); [] for none, and only on the single product.
func TestRulesTags(t *testing.T) {
	s := newStore()
	s.tag("Zebra", "zebra")
	s.tag("apple &amp; pear", "apple-pear") // names stored escaped, compared without case
	s.tag("Mango", "mango")
	s.tag("Unused", "unused")
	s.add(product{Title: "Tagged", Regular: "5", Tags: []string{"zebra", "mango", "apple-pear"}})
	s.add(product{Title: "Bare", Regular: "5"})
	s.add(product{Title: "Locked", Regular: "5", Password: "pw", Tags: []string{"mango"}})
	c, _, _ := serve(t, s)
	for slug, want := range map[string][]string{"tagged": {"apple-pear", "mango", "zebra"}, "bare": {}, "locked": {"mango"}} {
		p := getProduct(t, c, slug)
		if p.Tags == nil || !reflect.DeepEqual(*p.Tags, want) {
			t.Errorf("%s: tags %v, want %v", slug, p.Tags, want)
		}
	}
	for _, p := range getList(t, c, api.ListQuery{}).Products {
		if p.Tags != nil {
			t.Errorf("listed %s has tags %v: the list leaves them out", p.Slug, *p.Tags)
		}
	}
}

// TestApplyPageFields: an edit of each field shows after the change the
// feed reports for it: a tag's slug edited (a term of a taxonomy read
// whole: everything), a tag added to a product and a SKU edited (the
// product), a variation's price and status (the variable product).
func TestApplyPageFields(t *testing.T) {
	ctx := context.Background()
	edited := t0.Add(time.Minute)
	tests := []struct {
		name       string
		change     func(s *store, p, v int64) Change
		everything bool
		check      func(p *Product) string // what is wrong, "" when right
	}{
		{"a tag's slug edited", func(s *store, p, v int64) Change {
			s.terms[s.termIx[taxTag]["police"]].Slug = "law-enforcement"
			return Change{All: true, Kind: KindTerm}
		}, true, func(p *Product) string { return tagsWrong(p, "new", "law-enforcement") }},
		{"a tag renamed, moving it in the order", func(s *store, p, v int64) Change {
			s.terms[s.termIx[taxTag]["police"]].Name = "Alpha"
			return Change{All: true, Kind: KindTerm}
		}, true, func(p *Product) string { return tagsWrong(p, "police", "new") }},
		{"a tag added to the product", func(s *store, p, v int64) Change {
			s.relate(p, taxTag, "extra")
			s.update(p, edited, func(*Post) {})
			return Change{Posts: []int64{p}, Kind: KindProduct}
		}, false, func(p *Product) string { return tagsWrong(p, "extra", "new", "police") }},
		{"the SKU edited", func(s *store, p, v int64) Change {
			s.setMeta(p, metaSKU, "VAR-2")
			return Change{Posts: []int64{p}, Kind: KindProduct}
		}, false, func(p *Product) string {
			if deref(p.SKU) != "VAR-2" {
				return "sku " + deref(p.SKU)
			}
			return ""
		}},
		{"a variation's price edited", func(s *store, p, v int64) Change {
			s.setMeta(v, metaRegularPrice, "30")
			s.setMeta(v, metaPrice, "30")
			s.update(v, edited, func(*Post) {})
			return Change{Posts: []int64{v}, Kind: KindProduct}
		}, false, func(p *Product) string { return rangeWrong(p, "20.00–30.00") }},
		{"a variation disabled", func(s *store, p, v int64) Change {
			s.update(v, edited, func(x *Post) { x.Status = "private" })
			return Change{Products: []int64{v, p}, Kind: KindProduct}
		}, false, func(p *Product) string { return rangeWrong(p, "") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore()
			s.tag("Police", "police")
			s.tag("New", "new")
			s.tag("Extra", "extra")
			p := s.add(product{Title: "P", Type: typeNameVariable, SKU: "VAR-1", Tags: []string{"police", "new"},
				Variations: []variation{{Framework: "esx", Regular: "10"}, {Framework: "qbox", Regular: "20"}}})
			v := p + 1 // the first variation is the next post add writes
			cat, src, clk := serve(t, s)
			if got := getProduct(t, cat, "p"); rangeOf(got.PriceRange) != "10.00–20.00" || tagsWrong(got, "new", "police") != "" {
				t.Fatalf("before: price_range %q, tags %v", rangeOf(got.PriceRange), got.Tags)
			}
			var ch Change
			src.do(func(s *store) { ch = tt.change(s, p, v) })
			clk.set(edited)
			a, err := cat.Apply(ctx, ch)
			if err != nil {
				t.Fatal(err)
			}
			if a.Everything != tt.everything || !tt.everything && !reflect.DeepEqual(a.Products, []int64{p}) {
				t.Errorf("applied everything %v, products %v; want %v, [%d]", a.Everything, a.Products, tt.everything, p)
			}
			if wrong := tt.check(getProduct(t, cat, "p")); wrong != "" {
				t.Errorf("after the change: %s", wrong)
			}
		})
	}
}

func tagsWrong(p *Product, want ...string) string {
	if p.Tags == nil || !reflect.DeepEqual(*p.Tags, want) {
		return fmt.Sprintf("tags %v", p.Tags)
	}
	return ""
}

func rangeWrong(p *Product, want string) string {
	if got := rangeOf(p.PriceRange); got != want {
		return "price_range " + got
	}
	return ""
}

func storedAs(s string) *string { return &s }
