package catalog_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"catalogd/api"

	"catalogd/catalog"
	"catalogd/internal/wpfixture"
)

// TestListedAndServed checks who is listed, who is served by slug, and the
// index's counts, for every post status and visibility WooCommerce stores.
func TestListedAndServed(t *testing.T) {
	for _, hide := range []bool{false, true} {
		name := map[bool]string{false: "out of stock shown", true: "out of stock hidden"}[hide]
		t.Run(name, func(t *testing.T) {
			s := newShop()
			if hide {
				s.SetOption("woocommerce_hide_out_of_stock_items", "yes")
			}
			s.Add(wpfixture.Product{Title: "Visible", RegularPrice: "1"})
			s.Add(wpfixture.Product{Title: "Shop Only", RegularPrice: "1", Visibility: "catalog"})
			s.Add(wpfixture.Product{Title: "Search Only", RegularPrice: "1", Visibility: "search"})
			s.Add(wpfixture.Product{Title: "Hidden", RegularPrice: "1", Visibility: "hidden"})
			s.Add(wpfixture.Product{Title: "Sold Out", RegularPrice: "1", StockStatus: "outofstock"})
			s.Add(wpfixture.Product{Title: "Backorder", RegularPrice: "1", StockStatus: "onbackorder"})
			s.Add(wpfixture.Product{Title: "Protected", RegularPrice: "1", Password: "pw"})
			s.Add(wpfixture.Product{Title: "Draft", Slug: "draft", RegularPrice: "1", Status: "draft"})
			s.Add(wpfixture.Product{Title: "Draft Without Slug", RegularPrice: "1", Status: "draft"})
			s.Add(wpfixture.Product{Title: "Pending", Slug: "pending", RegularPrice: "1", Status: "pending"})
			s.Add(wpfixture.Product{Title: "Private", RegularPrice: "1", Status: "private"})
			s.Add(wpfixture.Product{Title: "Future", RegularPrice: "1", Status: "future"})
			s.Add(wpfixture.Product{Title: "Trashed", RegularPrice: "1", Status: "trash"})
			s.Add(wpfixture.Product{Title: "Options", Type: "variable", Variations: []wpfixture.Variation{
				{Framework: "esx", RegularPrice: "5"}}})
			f := load(t, s)

			want := []string{"visible", "shop-only", "sold-out", "backorder", "protected", "options"}
			if hide {
				want = []string{"visible", "shop-only", "backorder", "protected", "options"}
			}
			l := f.list(t, api.ListQuery{})
			if got := slugs(l.Products); !reflect.DeepEqual(got, want) {
				t.Errorf("list = %v, want %v", got, want)
			}
			if l.Total != len(want) {
				t.Errorf("total = %d, want %d", l.Total, len(want))
			}
			idx, err := f.cat.Index(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if idx.ProductCount != len(want) || idx.CatalogVisibleProductCount != len(want) {
				t.Errorf("index counts = %d, %d; want %d", idx.ProductCount, idx.CatalogVisibleProductCount, len(want))
			}
			if idx.PublishedProductCount != 8 {
				t.Errorf("published_product_count = %d, want 8", idx.PublishedProductCount)
			}

			// The single-product endpoint serves every published product,
			// hidden from the catalog or not.
			for _, slug := range []string{"visible", "shop-only", "search-only", "hidden", "sold-out", "protected", "options"} {
				f.product(t, slug)
			}
			for _, slug := range []string{"draft", "pending", "private", "future", "trashed", "options-esx"} {
				_, err := f.cat.Product(context.Background(), slug)
				var e *catalog.Error
				if !errors.As(err, &e) || e.Kind != catalog.ENOTFOUND || e.Reason != "product_not_found" {
					t.Errorf("Product(%q) err = %v, want product_not_found", slug, err)
				}
			}
		})
	}
}

func TestPrices(t *testing.T) {
	tests := []struct {
		name        string
		p           wpfixture.Product
		decimals    string
		price       string
		regular     string
		purchasable bool
	}{
		{"whole number", wpfixture.Product{RegularPrice: "20"}, "", "20.00", "20.00", true},
		{"one decimal", wpfixture.Product{RegularPrice: "12.5"}, "", "12.50", "12.50", true},
		{"half rounds up", wpfixture.Product{RegularPrice: "3.995"}, "", "4.00", "4.00", true},
		{"long decimals", wpfixture.Product{RegularPrice: "7.12345"}, "", "7.12", "7.12", true},
		{"free", wpfixture.Product{RegularPrice: "0"}, "", "0.00", "0.00", true},
		{"no decimals option", wpfixture.Product{RegularPrice: "19.5"}, "0", "20", "20", true},
		{"three decimals option", wpfixture.Product{RegularPrice: "19.5"}, "3", "19.500", "19.500", true},
		{"no price", wpfixture.Product{}, "", "<nil>", "<nil>", false},
		{"sale price without regular", wpfixture.Product{SalePrice: "5"}, "", "<nil>", "<nil>", false},
		{"external is never purchasable", wpfixture.Product{Type: "external", RegularPrice: "9", URL: "https://x.example"}, "", "9.00", "9.00", false},
		{"out of stock is still purchasable", wpfixture.Product{RegularPrice: "9", StockStatus: "outofstock"}, "", "9.00", "9.00", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newShop()
			if tt.decimals != "" {
				s.SetOption("woocommerce_price_num_decimals", tt.decimals)
			}
			tt.p.Title = "P"
			s.Add(tt.p)
			f := load(t, s)
			p := f.product(t, "p")
			if str(p.Price) != tt.price || str(p.RegularPrice) != tt.regular || p.Purchasable != tt.purchasable {
				t.Errorf("price %s, regular %s, purchasable %v; want %s, %s, %v",
					str(p.Price), str(p.RegularPrice), p.Purchasable, tt.price, tt.regular, tt.purchasable)
			}
			if p.Currency != "USD" {
				t.Errorf("currency = %q", p.Currency)
			}
		})
	}
}

// TestDuplicatePriceRows: a simple or external product carrying more than
// one _price row (an import or a plugin's add_post_meta) shows what
// get_price() reads, the first row by meta_id, even when a later row is
// lower. A grouped product keeps the lowest row (decisions.md); WooCommerce
// writes its children's min before their max, so on the rows it writes the
// first row is the lowest as well.
func TestDuplicatePriceRows(t *testing.T) {
	tests := []struct {
		name        string
		p           func(s *wpfixture.Shop) wpfixture.Product
		extra       []string // _price rows added after WooCommerce's save
		price       string
		purchasable bool
	}{
		{"simple: a lower row later", simple(wpfixture.Product{RegularPrice: "20"}), []string{"15"}, "20.00", true},
		{"simple: a higher row later", simple(wpfixture.Product{RegularPrice: "20"}), []string{"25"}, "20.00", true},
		{"simple: first row empty", simple(wpfixture.Product{SalePrice: "5"}), []string{"5"}, "<nil>", false},
		{"external: a lower row later", simple(wpfixture.Product{Type: "external", RegularPrice: "9", URL: "https://x.example"}),
			[]string{"4"}, "9.00", false},
		{"grouped: min and max as WooCommerce writes them", grouped, nil, "10.00", false},
		{"grouped: a lower row later", grouped, []string{"5"}, "5.00", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newShop()
			p := tt.p(s)
			p.Title = "P"
			id := s.Add(p)
			for _, v := range tt.extra {
				s.PostMeta(id, "_price", v)
			}
			got := load(t, s).product(t, "p")
			if str(got.Price) != tt.price || got.Purchasable != tt.purchasable {
				t.Errorf("price %s, purchasable %v; want %s, %v", str(got.Price), got.Purchasable, tt.price, tt.purchasable)
			}
		})
	}
}

func simple(p wpfixture.Product) func(*wpfixture.Shop) wpfixture.Product {
	return func(*wpfixture.Shop) wpfixture.Product { return p }
}

// grouped adds two children priced 30 and 10 and returns a grouped product
// of them.
func grouped(s *wpfixture.Shop) wpfixture.Product {
	a := s.Add(wpfixture.Product{Title: "Part A", RegularPrice: "30"})
	b := s.Add(wpfixture.Product{Title: "Part B", RegularPrice: "10"})
	return wpfixture.Product{Type: "grouped", Children: []int64{a, b}}
}

func TestOnSale(t *testing.T) {
	day := 24 * time.Hour
	midnight := func(d time.Time) time.Time { return d.Truncate(day) }
	tests := []struct {
		name    string
		p       wpfixture.Product
		savedAt time.Time // when WooCommerce last saved the product (wrote _price)
		onSale  bool
		price   string
	}{
		{"sale without dates", wpfixture.Product{RegularPrice: "20", SalePrice: "15"}, now, true, "15.00"},
		{"inside the window", wpfixture.Product{RegularPrice: "20", SalePrice: "15",
			SaleFrom: midnight(now).Add(-day), SaleTo: midnight(now).Add(day - time.Second)}, now, true, "15.00"},
		{"scheduled in the future", wpfixture.Product{RegularPrice: "20", SalePrice: "15",
			SaleFrom: midnight(now).Add(2 * day)}, now, false, "20.00"},
		{"ended: the sale price stays stored", wpfixture.Product{RegularPrice: "20", SalePrice: "15",
			SaleFrom: now.Add(-30 * day), SaleTo: now.Add(-day)}, now, false, "20.00"},
		{"ended since the last save: cron has not run", wpfixture.Product{RegularPrice: "20", SalePrice: "15",
			SaleTo: now.Add(-time.Hour)}, now.Add(-2 * time.Hour), false, "15.00"},
		{"started since the last save: cron has not run", wpfixture.Product{RegularPrice: "20", SalePrice: "15",
			SaleFrom: now.Add(-time.Hour)}, now.Add(-2 * time.Hour), true, "20.00"},
		{"the end second is inclusive", wpfixture.Product{RegularPrice: "20", SalePrice: "15", SaleTo: now}, now, true, "15.00"},
		{"sale not below regular is cleared", wpfixture.Product{RegularPrice: "20", SalePrice: "25"}, now, false, "20.00"},
		{"numeric comparison, not text", wpfixture.Product{RegularPrice: "100", SalePrice: "9.5"}, now, true, "9.50"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newShop()
			s.Now = tt.savedAt
			tt.p.Title = "P"
			s.Add(tt.p)
			f := load(t, s)
			p := f.product(t, "p")
			if p.OnSale != tt.onSale || str(p.Price) != tt.price {
				t.Errorf("on_sale %v, price %s; want %v, %s", p.OnSale, str(p.Price), tt.onSale, tt.price)
			}
			if str(p.RegularPrice) != "20.00" && tt.p.RegularPrice == "20" {
				t.Errorf("regular_price = %s, want 20.00", str(p.RegularPrice))
			}
		})
	}
}

func TestVariableProducts(t *testing.T) {
	s := newShop()
	s.Add(wpfixture.Product{Title: "Garage", Type: "variable", Variations: []wpfixture.Variation{
		{Framework: "esx", RegularPrice: "30"},
		{Framework: "qbcore", RegularPrice: "25", SalePrice: "19.99"},
		{Framework: "qbox", RegularPrice: "10", Disabled: true}, // disabled: not a price of the product
	}})
	s.Add(wpfixture.Product{Title: "Sold Out Variants", Type: "variable", Variations: []wpfixture.Variation{
		{Framework: "esx", RegularPrice: "8", StockStatus: "outofstock"},
		{Framework: "qbox", RegularPrice: "6", StockStatus: "outofstock"},
	}})
	s.Add(wpfixture.Product{Title: "Scheduled Variant", Type: "variable", Variations: []wpfixture.Variation{
		{Framework: "esx", RegularPrice: "8", SalePrice: "4", SaleFrom: now.Add(48 * time.Hour)},
	}})
	s.Add(wpfixture.Product{Title: "No Variations", Type: "variable"})
	f := load(t, s)

	g := f.product(t, "garage")
	if str(g.Price) != "19.99" || str(g.RegularPrice) != "25.00" || !g.OnSale || !g.Purchasable || !g.InStock {
		t.Errorf("garage: price %s regular %s on_sale %v purchasable %v in_stock %v; want 19.99 25.00 true true true",
			str(g.Price), str(g.RegularPrice), g.OnSale, g.Purchasable, g.InStock)
	}
	if want := []string{"esx", "qbcore", "qbox"}; !reflect.DeepEqual(g.Frameworks, want) {
		t.Errorf("garage frameworks = %v, want %v", g.Frameworks, want)
	}

	// A variable product whose variations are all out of stock is itself
	// out of stock, and still purchasable.
	so := f.product(t, "sold-out-variants")
	if so.InStock || !so.Purchasable || str(so.Price) != "6.00" || str(so.RegularPrice) != "6.00" {
		t.Errorf("sold-out-variants: in_stock %v purchasable %v price %s regular %s",
			so.InStock, so.Purchasable, str(so.Price), str(so.RegularPrice))
	}

	sv := f.product(t, "scheduled-variant")
	if sv.OnSale || str(sv.Price) != "8.00" {
		t.Errorf("scheduled-variant: on_sale %v price %s; want false 8.00", sv.OnSale, str(sv.Price))
	}

	nv := f.product(t, "no-variations")
	if nv.Price != nil || nv.RegularPrice != nil || nv.Purchasable {
		t.Errorf("no-variations: price %s regular %s purchasable %v", str(nv.Price), str(nv.RegularPrice), nv.Purchasable)
	}
}

// With out-of-stock items hidden, the storefront prices a variable product
// from its in-stock variations only.
func TestVariableHidesOutOfStockVariations(t *testing.T) {
	s := newShop()
	s.SetOption("woocommerce_hide_out_of_stock_items", "yes")
	s.Add(wpfixture.Product{Title: "Mixed", Type: "variable", Variations: []wpfixture.Variation{
		{Framework: "esx", RegularPrice: "5", SalePrice: "4", StockStatus: "outofstock"},
		{Framework: "qbox", RegularPrice: "12"},
	}})
	f := load(t, s)
	p := f.product(t, "mixed")
	if str(p.RegularPrice) != "12.00" || p.OnSale {
		t.Errorf("regular %s on_sale %v; want 12.00 false", str(p.RegularPrice), p.OnSale)
	}
}

func TestGroupedProducts(t *testing.T) {
	s := newShop()
	a := s.Add(wpfixture.Product{Title: "Part A", RegularPrice: "10", SalePrice: "8"})
	b := s.Add(wpfixture.Product{Title: "Part B", RegularPrice: "30"})
	c := s.Add(wpfixture.Product{Title: "Part C", RegularPrice: "2", Status: "draft", Slug: "part-c"})
	s.Add(wpfixture.Product{Title: "Bundle", Type: "grouped", Children: []int64{a, b, c}})
	d := s.Add(wpfixture.Product{Title: "Plain", RegularPrice: "50"})
	s.Add(wpfixture.Product{Title: "Plain Bundle", Type: "grouped", Children: []int64{d}})
	f := load(t, s)

	p := f.product(t, "bundle")
	if p.Purchasable {
		t.Error("a grouped product is never purchasable")
	}
	// price is get_price(): the lowest _price row, which WooCommerce's
	// grouped save computes over every child, the draft one included;
	// regular_price and on_sale look at the children a visitor can see.
	if str(p.Price) != "2.00" || str(p.RegularPrice) != "10.00" || !p.OnSale {
		t.Errorf("bundle: price %s regular %s on_sale %v; want 2.00 10.00 true", str(p.Price), str(p.RegularPrice), p.OnSale)
	}
	pb := f.product(t, "plain-bundle")
	if pb.OnSale || str(pb.Price) != "50.00" {
		t.Errorf("plain-bundle: on_sale %v price %s", pb.OnSale, str(pb.Price))
	}
}

func TestStockStatus(t *testing.T) {
	s := newShop()
	two := 2
	s.Add(wpfixture.Product{Title: "In", RegularPrice: "1"})
	s.Add(wpfixture.Product{Title: "Out", RegularPrice: "1", StockStatus: "outofstock"})
	s.Add(wpfixture.Product{Title: "Back", RegularPrice: "1", StockStatus: "onbackorder"})
	s.Add(wpfixture.Product{Title: "Managed", RegularPrice: "1", Stock: &two})
	f := load(t, s)
	for slug, want := range map[string]bool{"in": true, "out": false, "back": true, "managed": true} {
		if got := f.product(t, slug).InStock; got != want {
			t.Errorf("%s in_stock = %v, want %v", slug, got, want)
		}
	}
}

func TestTexts(t *testing.T) {
	long := strings.Repeat("Ein sehr langer Satz über Polizeifahrzeuge und Größen. ", 10)
	s := newShop()
	s.Add(wpfixture.Product{Title: "Police Radar &amp; Plate Reader", Excerpt: "<p>" + long + "</p>",
		Content: "<!-- wp:heading --><h2>Setup</h2><!-- /wp:heading -->\n\n<!-- wp:list --><ul><li>Drop in</li><li>Restart</li></ul><!-- /wp:list -->"})
	s.Add(wpfixture.Product{Title: "Locked", RegularPrice: "3", Password: "secret",
		Excerpt: "SECRET excerpt", Content: "<p>SECRET content</p>"})
	s.Add(wpfixture.Product{Title: "Bare", RegularPrice: "3"})
	f := load(t, s)

	p := f.product(t, "police-radar-amp-plate-reader")
	if p.Name != "Police Radar & Plate Reader" {
		t.Errorf("name = %q", p.Name)
	}
	if p.Summary != strings.TrimSpace(long) {
		t.Errorf("single summary is not whole: %d characters", len([]rune(p.Summary)))
	}
	if p.Description == nil || *p.Description != "Setup\n\nDrop in\nRestart" {
		t.Errorf("description = %q", str(p.Description))
	}

	l := f.list(t, api.ListQuery{})
	for _, lp := range l.Products {
		if lp.Description != nil {
			t.Errorf("%s: the list carries a description", lp.Slug)
		}
		if n := len([]rune(lp.Summary)); n > catalog.SummaryLimit {
			t.Errorf("%s: list summary has %d characters", lp.Slug, n)
		}
	}
	if got := l.Products[0].Summary; !strings.HasSuffix(got, "…") || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
		t.Errorf("list summary not cut at a word with …: %q", got)
	}

	locked := f.product(t, "locked")
	if locked.Summary != "" || locked.Description == nil || *locked.Description != "" {
		t.Errorf("protected texts leak: summary %q description %q", locked.Summary, str(locked.Description))
	}
	if str(locked.Price) != "3.00" || !locked.Purchasable {
		t.Errorf("a protected product is still priced and sold: price %s purchasable %v", str(locked.Price), locked.Purchasable)
	}
	bare := f.product(t, "bare")
	if bare.Summary != "" || bare.Description == nil || *bare.Description != "" {
		t.Errorf("bare: summary %q description %q", bare.Summary, str(bare.Description))
	}
}

func TestImages(t *testing.T) {
	tests := []struct {
		name    string
		options map[string]string
		want    string
	}{
		{"default uploads", nil, "https://shop.example/wp-content/uploads/2026/11/radar.jpg"},
		{"upload_url_path", map[string]string{"upload_url_path": "https://cdn.example/media/"}, "https://cdn.example/media/2026/11/radar.jpg"},
		{"relative upload_path", map[string]string{"upload_path": "files"}, "https://shop.example/files/2026/11/radar.jpg"},
		{"siteurl differs from home", map[string]string{"siteurl": "https://shop.example/wp"}, "https://shop.example/wp/wp-content/uploads/2026/11/radar.jpg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newShop()
			for k, v := range tt.options {
				s.SetOption(k, v)
			}
			s.Add(wpfixture.Product{Title: "Radar", Image: "2026/11/radar.jpg", Gallery: []string{"2026/11/g.jpg"}})
			s.Add(wpfixture.Product{Title: "Gallery Only", Gallery: []string{"2026/11/g2.jpg"}})
			s.Add(wpfixture.Product{Title: "None"})
			f := load(t, s)
			if got := str(f.product(t, "radar").Image); got != tt.want {
				t.Errorf("image = %s, want %s", got, tt.want)
			}
			if img := f.product(t, "gallery-only").Image; img != nil {
				t.Errorf("gallery only: image = %s, want null", *img)
			}
			if img := f.product(t, "none").Image; img != nil {
				t.Errorf("none: image = %s, want null", *img)
			}
		})
	}
}

// The options in these tests are stored as the database keeps them: an
// option added twice keeps its first row, so each test sets its own once.
func TestURLs(t *testing.T) {
	permalinks := func(product, category string) string {
		return wpfixture.Serialize(map[string]any{"product_base": product, "category_base": category},
			"product_base", "category_base")
	}
	tests := []struct {
		name      string
		options   map[string]string
		product   string
		category  string
		structure string
	}{
		{"defaults", nil, "https://shop.example/product/radar/", "https://shop.example/product-category/jobs/police/", ""},
		{"custom bases", map[string]string{"woocommerce_permalinks": permalinks("/shop", "/cat/")},
			"https://shop.example/shop/radar/", "https://shop.example/cat/jobs/police/", ""},
		{"empty bases fall back", map[string]string{"woocommerce_permalinks": permalinks("", "")},
			"https://shop.example/product/radar/", "https://shop.example/product-category/jobs/police/", ""},
		{"category in the product base", map[string]string{"woocommerce_permalinks": permalinks("/shop/%product_cat%", "")},
			"https://shop.example/shop/jobs/police/radar/", "https://shop.example/product-category/jobs/police/", ""},
		{"damaged option", map[string]string{"woocommerce_permalinks": `a:2:{s:12:"product_base";s:40:"tru`},
			"https://shop.example/product/radar/", "https://shop.example/product-category/jobs/police/", ""},
		{"no trailing slash structure", map[string]string{"permalink_structure": "/%postname%"},
			"https://shop.example/product/radar", "https://shop.example/product-category/jobs/police", ""},
		{"plain permalinks", map[string]string{"permalink_structure": ""},
			"https://shop.example/?product=radar", "https://shop.example/?product_cat=police", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := wpfixture.New("wp_", "https://shop.example")
			s.Now = now
			f := withOptions(t, s, tt.options, func(s *wpfixture.Shop) {
				s.Category("Jobs", "jobs", "", 0)
				s.Category("Police", "police", "jobs", 0)
				s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "1", Categories: []string{"jobs", "police"}})
			})
			if got := f.product(t, "radar").URL; got != tt.product {
				t.Errorf("product url = %s, want %s", got, tt.product)
			}
			cats, err := f.cat.Categories(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var police string
			for _, c := range cats.Categories {
				if c.Slug == "police" {
					police = c.URL
				}
			}
			if police != tt.category {
				t.Errorf("category url = %s, want %s", police, tt.category)
			}
		})
	}
}

// withOptions loads a shop whose options are replaced before loading.
func withOptions(t *testing.T, s *wpfixture.Shop, opts map[string]string, build func(*wpfixture.Shop)) *fixture {
	t.Helper()
	build(s)
	f := load(t, s)
	for k, v := range opts {
		if _, err := f.raw.Exec(`UPDATE wp_options SET option_value = ? WHERE option_name = ?`, v, k); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func TestSiteAndUploadsOverride(t *testing.T) {
	s := newShop()
	s.Add(wpfixture.Product{Title: "Radar", Image: "2026/11/radar.jpg"})
	f := load(t, s)
	cat := catalog.New(f.db, catalog.Config{SiteURL: "https://www.shop.example/", UploadsURL: "https://media.example/up",
		Now: func() time.Time { return now }})
	p, err := cat.Product(context.Background(), "radar")
	if err != nil {
		t.Fatal(err)
	}
	if p.URL != "https://www.shop.example/product/radar/" || str(p.Image) != "https://media.example/up/2026/11/radar.jpg" {
		t.Errorf("url %s image %s", p.URL, str(p.Image))
	}
}

// A cached response must not outlive the next sale start or end among its
// products: Until says when that is.
func TestSaleChangeInstant(t *testing.T) {
	start := now.Add(3 * time.Hour)
	end := now.Add(5 * time.Hour)
	s := newShop()
	s.Add(wpfixture.Product{Title: "Soon", RegularPrice: "9", SalePrice: "5", SaleFrom: start, SaleTo: end})
	s.Add(wpfixture.Product{Title: "Running", RegularPrice: "9", SalePrice: "5", SaleTo: end})
	s.Add(wpfixture.Product{Title: "Variants", Type: "variable", Variations: []wpfixture.Variation{
		{Framework: "esx", RegularPrice: "9", SalePrice: "4", SaleFrom: now.Add(time.Hour)}}})
	s.Add(wpfixture.Product{Title: "Plain", RegularPrice: "9"})
	f := load(t, s)
	for slug, want := range map[string]time.Time{
		"soon": start, "running": end.Add(time.Second), "variants": now.Add(time.Hour), "plain": {},
	} {
		if got := f.product(t, slug).ExpiresAt; !got.Equal(want) {
			t.Errorf("%s: Until = %v, want %v", slug, got, want)
		}
	}
	if got := f.list(t, api.ListQuery{}).ExpiresAt; !got.Equal(now.Add(time.Hour)) {
		t.Errorf("list Until = %v, want the earliest, %v", got, now.Add(time.Hour))
	}
}
