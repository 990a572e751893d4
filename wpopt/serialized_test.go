package wpopt

import (
	"fmt"
	"slices"
	"testing"
)

// realPermalinks is the woocommerce_permalinks option of a fresh install.
const realPermalinks = `a:5:{s:12:"product_base";s:7:"product";s:13:"category_base";s:16:"product-category";` +
	`s:8:"tag_base";s:11:"product-tag";s:14:"attribute_base";s:0:"";s:22:"use_verbose_page_rules";b:0;}`

// noPanic runs fn and fails the test, instead of crashing it, on a panic.
func noPanic(t *testing.T, what string, fn func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v", what, r)
		}
	}()
	fn()
}

func TestParsePermalinks(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want Permalinks
	}{
		{"WooCommerce default", realPermalinks, Permalinks{ProductBase: "product", CategoryBase: "product-category"}},
		{"custom bases", `a:5:{s:12:"product_base";s:19:"/shop/%product_cat%";s:13:"category_base";s:5:"store";` +
			`s:8:"tag_base";s:0:"";s:14:"attribute_base";s:0:"";s:22:"use_verbose_page_rules";b:0;}`,
			Permalinks{ProductBase: "/shop/%product_cat%", CategoryBase: "store"}},
		{"multibyte base, byte lengths", `a:2:{s:12:"product_base";s:9:"tienda-ñ";s:13:"category_base";s:10:"categoría";}`,
			Permalinks{ProductBase: "tienda-ñ", CategoryBase: "categoría"}},
		{"false-valued fields", `a:2:{s:12:"product_base";b:0;s:13:"category_base";b:0;}`, Permalinks{}},
		{"null-valued fields", `a:2:{s:12:"product_base";N;s:13:"category_base";N;}`, Permalinks{}},
		{"empty strings", `a:2:{s:12:"product_base";s:0:"";s:13:"category_base";s:0:"";}`, Permalinks{}},
		{"one field only", `a:1:{s:13:"category_base";s:3:"cat";}`, Permalinks{CategoryBase: "cat"}},
		{"empty array", `a:0:{}`, Permalinks{}},
		{"empty input: defaults", "", Permalinks{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noPanic(t, "ParsePermalinks", func() {
				got, err := ParsePermalinks(tt.raw)
				if err != nil {
					t.Fatalf("ParsePermalinks(%q): %v", tt.raw, err)
				}
				if got != tt.want {
					t.Errorf("ParsePermalinks(%q) = %+v, want %+v", tt.raw, got, tt.want)
				}
			})
		})
	}
}

func TestParsePermalinksDamaged(t *testing.T) {
	tests := []struct {
		name string
		raw  string
	}{
		{"truncated string", `a:1:{s:12:"product_base";s:9:"trunc`},
		{"truncated array", `a:9:{`},
		{"string length past the end", `a:1:{s:12:"product_base";s:99:"product";}`},
		{"string length past the end, last field", `a:2:{s:12:"product_base";s:7:"product";s:13:"category_base";s:40:"x";}`},
		{"key length wrong", `a:1:{s:40:"product_base";s:7:"product";}`},
		{"missing closing brace", `a:1:{s:12:"product_base";s:7:"product";`},
		{"non-serialized text", `product/category`},
		{"JSON", `{"product_base":"product"}`},
		{"garbage", "\x00\xff\xfe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noPanic(t, fmt.Sprintf("ParsePermalinks(%q)", tt.raw), func() {
				got, err := ParsePermalinks(tt.raw)
				if err == nil {
					t.Errorf("ParsePermalinks(%q) = %+v, nil; want an error", tt.raw, got)
				}
				if got != (Permalinks{}) {
					t.Errorf("ParsePermalinks(%q) returned %+v with its error, want the zero value", tt.raw, got)
				}
			})
		})
	}
}

// Every proper prefix of a real value is damaged: an error, never a panic.
func TestParsePermalinksEveryTruncation(t *testing.T) {
	for n := 1; n < len(realPermalinks); n++ {
		raw := realPermalinks[:n]
		noPanic(t, fmt.Sprintf("ParsePermalinks(%q)", raw), func() {
			if got, err := ParsePermalinks(raw); err == nil {
				t.Errorf("ParsePermalinks(%q) = %+v, nil; want an error", raw, got)
			}
		})
	}
}

func TestParseIDList(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []int64
	}{
		{"integers and numeric strings", `a:2:{i:0;i:12;i:1;s:2:"13";}`, []int64{12, 13}},
		{"PHP order kept, not value order", `a:3:{i:0;i:30;i:1;i:10;i:2;i:20;}`, []int64{30, 10, 20}},
		{"ordered by key", `a:3:{i:2;i:30;i:0;i:10;i:1;i:20;}`, []int64{10, 20, 30}},
		{"zeros dropped", `a:3:{i:0;i:0;i:1;i:5;i:2;s:1:"0";}`, []int64{5}},
		{"duplicates dropped", `a:3:{i:0;i:5;i:1;i:7;i:2;s:1:"5";}`, []int64{5, 7}},
		{"duplicate keeps the first place", `a:3:{i:0;i:9;i:1;i:4;i:2;i:9;}`, []int64{9, 4}},
		{"non-numeric dropped", `a:3:{i:0;s:3:"abc";i:1;i:8;i:2;b:1;}`, []int64{8}},
		{"written by the fixture", `a:2:{i:0;i:101;i:1;i:102;}`, []int64{101, 102}},
		{"empty array", `a:0:{}`, nil},
		{"empty input", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Map order is random: run enough times to meet a bad one.
			for run := 1; run <= 50; run++ {
				var got []int64
				var err error
				noPanic(t, "ParseIDList", func() { got, err = ParseIDList(tt.raw) })
				if err != nil {
					t.Fatalf("ParseIDList(%q): %v", tt.raw, err)
				}
				if !slices.Equal(got, tt.want) {
					t.Fatalf("ParseIDList(%q) = %v, want %v (run %d of 50)", tt.raw, got, tt.want, run)
				}
			}
		})
	}
}

func TestParseIDListDamaged(t *testing.T) {
	tests := []struct {
		name string
		raw  string
	}{
		{"truncated", `a:2:{i:0;i:12;`},
		{"truncated string", `a:1:{i:0;s:5:"12`},
		{"string length past the end", `a:1:{i:0;s:9:"12";}`},
		{"truncated array", `a:9:{`},
		{"non-serialized text", `12,13`},
		{"garbage", "\x00\xff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noPanic(t, fmt.Sprintf("ParseIDList(%q)", tt.raw), func() {
				got, err := ParseIDList(tt.raw)
				if err == nil {
					t.Errorf("ParseIDList(%q) = %v, nil; want an error", tt.raw, got)
				}
				if got != nil {
					t.Errorf("ParseIDList(%q) returned %v with its error, want nil", tt.raw, got)
				}
			})
		})
	}
}

// The parsers read values a shop manager's plugins wrote: whatever the
// input, they return and do not panic. `go test` runs the seeds.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{realPermalinks, `a:2:{i:0;i:12;i:1;s:2:"13";}`, `a:1:{s:12:"product_base";s:9:"trunc`,
		`a:9:{`, `s:5:"hello";`, `i:5;`, `b:1;`, `N;`, `a:1:{i:0;a:1:{i:0;i:1;}}`, `O:8:"stdClass":0:{}`, "x",
		`a:2:{s:10:"force_lang";i:2;s:7:"domains";a:1:{s:2:"de";s:2:"x/";}}`, `a:1:{s:4:"urls";a:1:{i:0;b:1;}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		noPanic(t, fmt.Sprintf("ParsePermalinks(%q)", raw), func() { _, _ = ParsePermalinks(raw) })
		noPanic(t, fmt.Sprintf("ParseIDList(%q)", raw), func() { _, _ = ParseIDList(raw) })
		noPanic(t, fmt.Sprintf("ParsePluginList(%q)", raw), func() { _, _ = ParsePluginList(raw) })
		noPanic(t, fmt.Sprintf("ParsePolylang(%q)", raw), func() { _, _ = ParsePolylang(raw) })
		noPanic(t, fmt.Sprintf("ParseWPML(%q)", raw), func() { _, _ = ParseWPML(raw) })
	})
}
