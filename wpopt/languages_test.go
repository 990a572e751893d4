package wpopt

import (
	"reflect"
	"testing"
)

func TestParsePolylang(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  string
		want PolylangSettings
	}{
		{"defaults for missing keys", `a:1:{s:12:"default_lang";s:2:"en";}`,
			PolylangSettings{DefaultLang: "en", ForceLang: 1, HideDefault: true, Rewrite: true,
				Domains: map[string]string{}, PostTypes: []string{}, Taxonomies: []string{}}},
		// As Polylang 3.8's settings screen saves them.
		{"subdomain, default shown, product and product_cat translated",
			`a:6:{s:12:"default_lang";s:2:"de";s:10:"force_lang";i:2;s:12:"hide_default";b:0;s:7:"rewrite";b:1;` +
				`s:10:"post_types";a:1:{i:0;s:7:"product";}s:10:"taxonomies";a:2:{i:0;s:11:"product_cat";i:1;s:11:"product_tag";}}`,
			PolylangSettings{DefaultLang: "de", ForceLang: 2, HideDefault: false, Rewrite: true,
				Domains: map[string]string{}, PostTypes: []string{"product"}, Taxonomies: []string{"product_cat", "product_tag"}}},
		{"domains, numeric strings from an old version",
			`a:4:{s:12:"default_lang";s:2:"en";s:10:"force_lang";s:1:"3";s:12:"hide_default";s:1:"0";` +
				`s:7:"domains";a:2:{s:2:"en";s:20:"https://shop.example";s:2:"de";s:23:"https://shop.example.de";}}`,
			PolylangSettings{DefaultLang: "en", ForceLang: 3, HideDefault: false, Rewrite: true,
				Domains:   map[string]string{"en": "https://shop.example", "de": "https://shop.example.de"},
				PostTypes: []string{}, Taxonomies: []string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePolylang(tt.raw)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParsePolylang = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	if _, err := ParsePolylang(`a:1:{s:12:"default_lang";s:2:"e`); err == nil {
		t.Error("a truncated option decoded without error")
	}
}
