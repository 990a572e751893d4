package wpopt

import (
	"reflect"
	"strconv"
	"testing"
)

// attrEntry is one _product_attributes entry as WooCommerce serializes it.
func attrEntry(key, name, value string, position, visible, taxonomy int) string {
	return `s:` + itoa(len(key)) + `:"` + key + `";a:6:{s:4:"name";s:` + itoa(len(name)) + `:"` + name +
		`";s:5:"value";s:` + itoa(len(value)) + `:"` + value + `";s:8:"position";i:` + itoa(position) +
		`;s:10:"is_visible";i:` + itoa(visible) + `;s:12:"is_variation";i:0;s:11:"is_taxonomy";i:` + itoa(taxonomy) + `;}`
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestParseProductAttributes(t *testing.T) {
	fw := attrEntry("pa_framework", "pa_framework", "", 0, 1, 1)
	size := attrEntry("screen-size", "Screen Size", "Small | Large", 1, 0, 0)
	tied := attrEntry("color", "Color", "Red", 1, 1, 0)
	fwAttr := ProductAttribute{Key: "pa_framework", Name: "pa_framework", Visible: true, Taxonomy: true}
	sizeAttr := ProductAttribute{Key: "screen-size", Name: "Screen Size", Value: "Small | Large", Position: 1}
	colorAttr := ProductAttribute{Key: "color", Name: "Color", Value: "Red", Position: 1, Visible: true}
	tests := []struct {
		name string
		raw  string
		want []ProductAttribute
	}{
		{"none stored", "", nil},
		{"empty array", "a:0:{}", []ProductAttribute{}},
		{"by position", "a:2:{" + size + fw + "}", []ProductAttribute{fwAttr, sizeAttr}},
		{"ties in stored order", "a:3:{" + tied + size + fw + "}", []ProductAttribute{fwAttr, colorAttr, sizeAttr}},
		{"ties in stored order, reversed", "a:3:{" + size + tied + fw + "}", []ProductAttribute{fwAttr, sizeAttr, colorAttr}},
		{"string flags, as some importers write", `a:1:{s:1:"x";a:3:{s:4:"name";s:1:"X";s:10:"is_visible";s:1:"1";s:8:"position";s:1:"2";}}`,
			[]ProductAttribute{{Key: "x", Name: "X", Visible: true, Position: 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseProductAttributes(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	noPanic(t, "damaged", func() {
		if _, err := ParseProductAttributes(`a:1:{s:1:"x";a:1:{s:4:"name";s:9:"trunc`); err == nil {
			t.Error("damaged data: no error")
		}
	})
}
