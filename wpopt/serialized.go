package wpopt

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	phpserialize "github.com/trim21/go-phpserialize"
)

// unserialize decodes PHP-serialized data. The library returns errors on
// most damaged input but panics on some truncated strings (v0.1.2 indexes
// past the end for `s:9:"trunc`); a damaged option in the shop's database
// must never take a request down, so a panic becomes an error here.
func unserialize(data string, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("damaged PHP-serialized data: %v", r)
		}
	}()
	if data == "" {
		return fmt.Errorf("empty PHP-serialized data")
	}
	return phpserialize.Unmarshal([]byte(data), v)
}

// Permalinks is the woocommerce_permalinks option: the bases of product
// and category URLs. Empty fields mean WooCommerce's defaults.
type Permalinks struct {
	ProductBase  string `php:"product_base"`
	CategoryBase string `php:"category_base"`
}

// ParsePermalinks decodes the woocommerce_permalinks option. A missing
// option (empty) is no error: the defaults apply.
func ParsePermalinks(raw string) (Permalinks, error) {
	var p Permalinks
	if raw == "" {
		return p, nil
	}
	var m map[string]any
	if err := unserialize(raw, &m); err != nil {
		return Permalinks{}, fmt.Errorf("woocommerce_permalinks: %w", err)
	}
	// Non-string values (false, null) count as empty, as array_filter()
	// drops them before the defaults apply.
	p.ProductBase, _ = m["product_base"].(string)
	p.CategoryBase, _ = m["category_base"].(string)
	return p, nil
}

// ParseIDList decodes a serialized list of post IDs (a grouped product's
// _children) as wp_parse_id_list() does: integers or numeric strings, zeros
// and duplicates dropped.
func ParseIDList(raw string) ([]int64, error) {
	if raw == "" {
		return nil, nil
	}
	var m map[any]any
	if err := unserialize(raw, &m); err != nil {
		return nil, fmt.Errorf("ID list: %w", err)
	}
	// PHP arrays keep insertion order; the map does not, so order by key,
	// then keep the first of duplicates as array_unique does.
	type kv struct {
		k int64
		v int64
	}
	items := make([]kv, 0, len(m))
	for k, v := range m {
		var id int64
		switch x := v.(type) {
		case int64:
			id = x
		case string:
			id, _ = strconv.ParseInt(x, 10, 64)
		}
		ki, _ := k.(int64)
		items = append(items, kv{ki, id})
	}
	slices.SortFunc(items, func(a, b kv) int { return cmp.Compare(a.k, b.k) })
	ids := make([]int64, 0, len(items))
	for _, it := range items {
		if it.v > 0 && !slices.Contains(ids, it.v) {
			ids = append(ids, it.v)
		}
	}
	return ids, nil
}
