package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"catalogd/api"
)

// productCases: product against the demo shop.
func productCases() []demoCase {
	return []demoCase{
		{
			name: "product", args: []string{"product", "dispatch-system"},
			stdout: []string{"Dispatch System", "http://localhost:8080/product/dispatch-system/",
				"10.00 EUR (on sale)", "Regular price:  14.00 EUR", "On sale:        yes", "in stock",
				"Purchasable:    yes", "ems, police", "qbcore, qbox", "dispatch-system.jpg",
				"SKU:            NW-DISPATCH\n", "Price range:    —\n", "Tags:           escrow-free, roleplay\n",
				"Attributes:     Framework: QBCore, Qbox\n", "One dispatch for all emergency services", "Panic button\nCall history per unit\nSound alerts"},
			check: func(t *testing.T, r result) {
				_, text, ok := strings.Cut(r.stdout, "\nSummary:\n")
				if !ok {
					t.Fatalf("no summary:\n%s", r.stdout)
				}
				for _, l := range strings.Split(text, "\n") {
					if n := utf8.RuneCountInString(l); n > 80 {
						t.Errorf("text line of %d runes, want at most 80: %q", n, l)
					}
				}
				if !strings.Contains(text, "\n\nFeatures\n\n") {
					t.Errorf("paragraphs not kept:\n%s", text)
				}
			},
		},
		{
			// A variable product's range; a product without a SKU or tags.
			name: "product with a price range", args: []string{"product", "housing-system"},
			stdout: []string{"SKU:            —\n", "Price range:    27.50 – 40.00 EUR\n", "Tags:           none\n"},
		},
		{
			name: "product as JSON", args: []string{"product", "dispatch-system", "--json"},
			check: func(t *testing.T, r result) {
				var p api.Product
				if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, r.stdout)
				}
				if p.Price == nil || *p.Price != "10.00" || !p.OnSale || p.Description == nil || p.SKU == nil || p.Tags == nil {
					t.Errorf("product = %+v", p)
				}
			},
		},
		{
			name: "no such product", args: []string{"product", "no-such-thing"}, code: 3,
			stderr: []string{"catalogctl: ", "404 shop_product_not_found", `"no-such-thing"`,
				"hint: List the products to find the English slug: http://localhost:8080/wp-json/shop/v1/catalog/products"},
		},
	}
}

func TestProductUsageErrors(t *testing.T) {
	expectUsageErrors(t, []usageCase{
		{"product without slug", []string{"product"}, nil, "product needs a slug"},
		{"product with --json only", []string{"product", "--json"}, nil, "product needs a slug"},
		{"product with two slugs", []string{"product", "k9-unit", "ems-job"}, nil, "product takes one slug"},
		{"slug with capitals", []string{"product", "Dispatch-System"}, nil, `"Dispatch-System" is not a product slug`},
		{"slug with a space", []string{"product", "dispatch system"}, nil, "is not a product slug"},
		{"slug with a path", []string{"product", "../catalog"}, nil, "is not a product slug"},
		{"slug with a query", []string{"product", "k9-unit?x=1"}, nil, "is not a product slug"},
		{"slug with a stray percent", []string{"product", "100%-cotton"}, nil, "is not a product slug"},
		{"empty slug", []string{"product", ""}, nil, "is not a product slug"},
		{"slug too long", []string{"product", strings.Repeat("a", api.MaxSlugLength+1)}, nil, "is not a product slug"},
	})
}

// A slug WordPress stored percent-encoded is accepted as the list shows it,
// with uppercase hex and decoded to UTF-8, as the server accepts it, and
// every spelling sends the same request.
func TestNonASCIISlug(t *testing.T) {
	const stored = "%d1%81%d0%ba%d1%80%d0%b8%d0%bf%d1%82" // скрипт
	for _, arg := range []string{stored, strings.ToUpper(stored), "скрипт"} {
		t.Run(arg, func(t *testing.T) {
			fake := newFakeAPI(t, func(n int, w http.ResponseWriter, r *http.Request) {
				writeJSONAnswer(w, 200, fakeProduct(stored))
			})
			ctl(t, nil, "--base-url", fake.base(), "product", arg).expect(t, 0, []string{"Slug:", stored}, nil)
			reqs := fake.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			// What the server's router sees once net/http decoded the path.
			if got := reqs[0].URL.Path; got != "/wp-json/shop/v1/catalog/products/"+stored {
				t.Errorf("requested %q (raw %q), want the stored form", got, reqs[0].URL.RawPath)
			}
		})
	}
}
