package wpopt

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ProductAttribute is one entry of a product's _product_attributes meta.
type ProductAttribute struct {
	Key      string // the array key: sanitize_title() of Name
	Name     string // a taxonomy (pa_framework) or a local attribute's name as typed
	Value    string // a local attribute's values, WC_DELIMITER-separated
	Position int
	Visible  bool
	Taxonomy bool
}

// ParseProductAttributes decodes _product_attributes as
// WC_Product_Data_Store_CPT::read_attributes reads it, in the order
// get_attributes() gives: by position, ties in the stored order (PHP's
// uasort is stable). Missing fields take read_attributes' defaults.
func ParseProductAttributes(raw string) ([]ProductAttribute, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, nil
	}
	var m map[any]any
	if err := unserialize(strings.TrimSpace(raw), &m); err != nil {
		return nil, fmt.Errorf("_product_attributes: %w", err)
	}
	type placed struct {
		ProductAttribute
		at int // where the entry is stored: the decoder's map has no order
	}
	var out []placed
	for k, v := range m {
		fields, ok := v.(map[any]any)
		if !ok {
			continue // read_attributes casts a scalar to an array without a name: nothing shows
		}
		key := fmt.Sprint(k)
		a := ProductAttribute{Key: key, Position: phpInt(fields["position"])}
		a.Name, _ = fields["name"].(string)
		a.Value, _ = fields["value"].(string)
		a.Visible = phpInt(fields["is_visible"]) != 0
		a.Taxonomy = phpInt(fields["is_taxonomy"]) != 0
		at := strings.Index(raw, "s:"+strconv.Itoa(len(key))+`:"`+key+`";a:`)
		if at < 0 {
			at = len(raw)
		}
		out = append(out, placed{a, at})
	}
	slices.SortFunc(out, func(a, b placed) int { return cmp.Or(cmp.Compare(a.Position, b.Position), cmp.Compare(a.at, b.at)) })
	attrs := make([]ProductAttribute, len(out))
	for i, p := range out {
		attrs[i] = p.ProductAttribute
	}
	return attrs, nil
}
