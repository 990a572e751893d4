package catalog_test

import (
	"reflect"
	"testing"

	"catalogd/api"
	"catalogd/internal/wpfixture"
)

// TestAttributesOnMariaDB: the "Additional information" attributes of a
// shop stored as WooCommerce stores them, read from MariaDB, as
// wc_display_product_attributes shows them: the framework attribute
// (menu_order), a second global attribute ordered by name_num whose term
// name is stored escaped, a local attribute, a hidden one left out.
func TestAttributesOnMariaDB(t *testing.T) {
	s := newShop()
	s.Attribute("size", "Size & Fit", "name_num", [2]string{"10 cm", "10-cm"}, [2]string{"2 cm", "2-cm"}, [2]string{"XL & up", "xl-up"})
	s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5", Frameworks: []string{"qbox", "esx"},
		Attributes: []wpfixture.Attribute{
			{Name: "pa_size", Values: []string{"10-cm", "xl-up", "2-cm"}},
			{Name: "Screen Size", Values: []string{"Small", "Large & Wide"}},
			{Name: "Secret", Values: []string{"x"}, Hidden: true},
		}})
	s.Add(wpfixture.Product{Title: "Bare", RegularPrice: "5"})
	f := load(t, s)

	want := map[string][]api.Attribute{
		"radar": {
			{Name: "pa_framework", Label: "Framework", Values: []api.AttributeValue{{Slug: "esx", Name: "ESX"}, {Slug: "qbox", Name: "Qbox"}}},
			{Name: "pa_size", Label: "Size & Fit", Values: []api.AttributeValue{
				{Slug: "xl-up", Name: "XL & up"}, {Slug: "2-cm", Name: "2 cm"}, {Slug: "10-cm", Name: "10 cm"}}},
			{Name: "screen-size", Label: "Screen Size", Values: []api.AttributeValue{
				{Slug: "Small", Name: "Small"}, {Slug: "Large & Wide", Name: "Large & Wide"}}},
		},
		"bare": {},
	}
	for slug, w := range want {
		p := f.product(t, slug)
		if p.Attributes == nil || !reflect.DeepEqual(*p.Attributes, w) {
			t.Errorf("%s: attributes %+v\nwant %+v", slug, p.Attributes, w)
		}
	}
}
