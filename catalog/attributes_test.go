package catalog

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"catalogd/api"
)

// productAttr is one attribute a shop manager adds on the product's
// Attributes tab: a global one (Taxonomy: the pa_… name, its term slugs)
// or a local one (its name and its values as typed, "|"-separated).
type productAttr struct {
	Name     string
	Value    string   // a local attribute's values
	Terms    []string // a global attribute's term slugs
	Position int
	Hidden   bool // "Visible on the product page" unticked
	Taxonomy bool
}

// storeAttributes writes _product_attributes as WooCommerce's
// update_attributes does (keyed by sanitize_title of the name) and relates
// a global attribute's terms (wp_set_object_terms).
func (s *store) storeAttributes(id int64, attrs []productAttr) {
	if len(attrs) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "a:%d:{", len(attrs))
	for _, a := range attrs {
		key := strings.ReplaceAll(strings.ToLower(a.Name), " ", "-")
		visible, tax := 1, 0
		if a.Hidden {
			visible = 0
		}
		if a.Taxonomy {
			tax = 1
			for _, t := range a.Terms {
				s.relate(id, a.Name, t)
			}
		}
		fmt.Fprintf(&b, `s:%d:%q;a:6:{s:4:"name";s:%d:%q;s:5:"value";s:%d:%q;s:8:"position";i:%d;`+
			`s:10:"is_visible";i:%d;s:12:"is_variation";i:0;s:11:"is_taxonomy";i:%d;}`,
			len(key), key, len(a.Name), a.Name, len(a.Value), a.Value, a.Position, visible, tax)
	}
	b.WriteString("}")
	s.setMeta(id, metaProductAttributes, b.String())
}

// attributesStore is a shop with a second global attribute, Size
// (ordered by name_num), and a registered Color whose terms a test orders.
func attributesStore() *store {
	s := newStore()
	// attribute_label is stored as typed (wc_clean), term names escaped.
	s.orderBy["size"], s.labels["size"] = "name_num", "Size & Fit"
	for _, n := range []string{"10 cm", "2 cm", "XL &amp; up"} {
		s.term("pa_size", n, strings.NewReplacer(" ", "-", "&amp;", "and").Replace(strings.ToLower(n)), "", 0)
	}
	s.orderBy["color"], s.labels["color"] = "menu_order", "Color"
	s.term("pa_color", "Red", "red", "", 2)
	s.term("pa_color", "Blue", "blue", "", 1)
	s.term("pa_color", "Green", "green", "", 0)
	// A pa_ taxonomy no attribute registers: WooCommerce skips it.
	s.term("pa_gone", "Old", "old", "", 0)
	return s
}

// TestRulesAttributes mirrors wc_display_product_attributes: the visible
// attributes of get_attributes() (read_attributes: position order, a
// global one only while its taxonomy exists), labelled by
// wc_attribute_label, a global one's values by wc_get_product_terms (the
// attribute's order), a local one's by wc_get_text_attributes; [] for
// none, and only on the single product.
func TestRulesAttributes(t *testing.T) {
	s := attributesStore()
	fw := productAttr{Name: "pa_framework", Terms: []string{"qbox", "esx"}, Taxonomy: true}
	s.add(product{Title: "Full", Regular: "5", Attributes: []productAttr{
		{Name: "Screen Size", Value: " Small |Large&amp;Wide | | ", Position: 3},
		{Name: "pa_size", Terms: []string{"xl-and-up", "10-cm", "2-cm"}, Position: 1, Taxonomy: true},
		{Name: "pa_color", Terms: []string{"red", "green", "blue"}, Position: 2, Taxonomy: true},
		{Name: "Secret", Value: "x", Position: 0, Hidden: true},
		{Name: "pa_gone", Terms: []string{"old"}, Position: 0, Taxonomy: true},
		fw,
	}})
	s.add(product{Title: "Bare", Regular: "5"})
	s.add(product{Title: "Locked", Regular: "5", Password: "pw", Attributes: []productAttr{fw}})
	s.add(product{Title: "Variable", Type: "variable", Attributes: []productAttr{
		{Name: "pa_framework", Taxonomy: true}}, // the variations relate their terms
		Variations: []variation{{Framework: "esx", Regular: "5"}}})
	s.add(product{Title: "Unticked", Regular: "5", Attributes: []productAttr{{Name: "pa_color", Terms: []string{"red"}, Hidden: true, Taxonomy: true}}})
	c, _, _ := serve(t, s)
	v := func(pairs ...string) []api.AttributeValue {
		out := []api.AttributeValue{}
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, api.AttributeValue{Slug: pairs[i], Name: pairs[i+1]})
		}
		return out
	}
	fwWant := api.Attribute{Name: "pa_framework", Label: "Framework", Values: v("esx", "ESX", "qbox", "Qbox")}
	tests := []struct {
		slug string
		want []api.Attribute
	}{
		{"full", []api.Attribute{
			fwWant, // position 0, stored last
			{Name: "pa_size", Label: "Size & Fit", Values: v("xl-and-up", "XL & up", "2-cm", "2 cm", "10-cm", "10 cm")},
			{Name: "pa_color", Label: "Color", Values: v("green", "Green", "blue", "Blue", "red", "Red")},
			{Name: "screen-size", Label: "Screen Size", Values: v("Small", "Small", "Large&Wide", "Large&Wide")},
		}},
		{"bare", []api.Attribute{}},
		{"locked", []api.Attribute{}},
		{"variable", []api.Attribute{{Name: "pa_framework", Label: "Framework", Values: v("esx", "ESX")}}},
		{"unticked", []api.Attribute{}},
	}
	for _, tt := range tests {
		p := getProduct(t, c, tt.slug)
		if p.Attributes == nil || !reflect.DeepEqual(*p.Attributes, tt.want) {
			t.Errorf("%s: attributes %+v\nwant %+v", tt.slug, p.Attributes, tt.want)
		}
	}
	for _, p := range getList(t, c, api.ListQuery{}).Products {
		if p.Attributes != nil {
			t.Errorf("listed %s has attributes %v: the list leaves them out", p.Slug, *p.Attributes)
		}
	}
}

// TestApplyAttributes: an edit of each part shows after the change the
// feed reports for it: a global attribute's term renamed (a term of a
// taxonomy read whole: everything), its label edited (the attribute
// table: everything), the product's _product_attributes edited (the
// product).
func TestApplyAttributes(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name       string
		change     func(s *store, p int64) Change
		everything bool
		want       string
	}{
		{"a term renamed, moving it in the name order", func(s *store, p int64) Change {
			s.orderBy["color"] = "name"
			s.terms[s.termIx["pa_color"]["red"]].Name = "Azure"
			return Change{All: true, Kind: KindTerm}
		}, true, "Color: Azure, Blue; Size: 2"},
		{"the attribute's label edited", func(s *store, p int64) Change {
			s.labels["color"] = "Colour"
			return Change{All: true, Kind: KindTable}
		}, true, "Colour: Blue, Red; Size: 2"},
		{"the product's attributes edited", func(s *store, p int64) Change {
			s.storeAttributes(p, []productAttr{{Name: "Size", Value: "3 | 4"}, {Name: "pa_color", Position: 1, Taxonomy: true}})
			s.update(p, t0.Add(time.Minute), func(*Post) {})
			return Change{Posts: []int64{p}, Kind: KindProduct}
		}, false, "Size: 3, 4; Color: Blue, Red"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := attributesStore()
			p := s.add(product{Title: "P", Regular: "5", Attributes: []productAttr{
				{Name: "pa_color", Terms: []string{"red", "blue"}, Taxonomy: true}, {Name: "Size", Value: "2", Position: 1}}})
			cat, src, _ := serve(t, s)
			if got := attrsText(getProduct(t, cat, "p")); got != "Color: Blue, Red; Size: 2" {
				t.Fatalf("before: %s", got)
			}
			var ch Change
			src.do(func(s *store) { ch = tt.change(s, p) })
			a, err := cat.Apply(ctx, ch)
			if err != nil {
				t.Fatal(err)
			}
			if a.Everything != tt.everything {
				t.Errorf("applied everything %v, want %v", a.Everything, tt.everything)
			}
			if got := attrsText(getProduct(t, cat, "p")); got != tt.want {
				t.Errorf("after the change: %s, want %s", got, tt.want)
			}
		})
	}
}

// attrsText is the attributes as the page's table reads: "Label: a, b; …".
func attrsText(p *Product) string {
	if p.Attributes == nil {
		return "none"
	}
	var rows []string
	for _, a := range *p.Attributes {
		var names []string
		for _, v := range a.Values {
			names = append(names, v.Name)
		}
		rows = append(rows, a.Label+": "+strings.Join(names, ", "))
	}
	return strings.Join(rows, "; ")
}
