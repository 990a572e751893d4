package wpopt

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

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

// RatingCount is what WooCommerce's lookup table stores as a product's
// rating_count from its _wc_rating_count meta: the sum of intval() of the
// values of the array it holds (rating → count), as
// array_sum(array_map('intval', (array) $meta)) makes it. A value that is
// not serialized is one number; damaged serialized data unserializes to
// false, which counts 0.
func RatingCount(raw string) int64 {
	if !looksSerialized(raw) {
		return phpIntval(raw)
	}
	if n, ok := intArraySum(strings.TrimSpace(raw)); ok {
		return n
	}
	var v any
	if err := unserialize(strings.TrimSpace(raw), &v); err != nil {
		return 0
	}
	m, ok := v.(map[any]any)
	if !ok {
		return phpIntvalOf(v)
	}
	var sum int64
	for _, x := range m {
		sum += phpIntvalOf(x)
	}
	return sum
}

// looksSerialized is is_serialized()'s test of the shape: a scalar, an
// array or an object as serialize() writes it.
func looksSerialized(s string) bool {
	s = strings.TrimSpace(s)
	if s == "N;" {
		return true
	}
	if len(s) < 4 || s[1] != ':' {
		return false
	}
	switch s[0] {
	case 's', 'a', 'O', 'i', 'd', 'b', 'E':
		last := s[len(s)-1]
		return last == ';' || last == '}'
	}
	return false
}

// phpIntvalOf is PHP's intval() of an unserialized value.
func phpIntvalOf(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case bool:
		if x {
			return 1
		}
	case float64:
		if x != x || x >= 9.2e18 || x <= -9.2e18 {
			return 0
		}
		return int64(x)
	case string:
		return phpIntval(x)
	}
	return 0
}

// phpIntval is PHP's intval() of a string: its leading whitespace, sign
// and digits; 0 when there are none.
func phpIntval(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	var n int64
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if n > (1<<63-1)/10-10 {
			break // saturates; no count gets there
		}
		n = n*10 + int64(s[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

// intArraySum is the sum of intval() of the values of s when it is a
// serialized array of integer keys and integer values, as WooCommerce
// writes a rating count (a:2:{i:4;i:1;i:5;i:3;}), read without the
// decoder's allocations: every product carries one. ok is false for any
// other shape.
func intArraySum(s string) (sum int64, ok bool) {
	rest, found := strings.CutPrefix(s, "a:")
	if !found {
		return 0, false
	}
	count, rest, found := strings.Cut(rest, ":{")
	n, err := strconv.Atoi(count)
	if !found || err != nil || n < 0 {
		return 0, false
	}
	next := func() (int64, bool) {
		var digits string
		var found bool
		if rest, found = strings.CutPrefix(rest, "i:"); !found {
			return 0, false
		}
		if digits, rest, found = strings.Cut(rest, ";"); !found {
			return 0, false
		}
		v, err := strconv.ParseInt(digits, 10, 64)
		return v, err == nil
	}
	for range n {
		if _, ok := next(); !ok {
			return 0, false
		}
		v, ok := next()
		if !ok {
			return 0, false
		}
		sum += v
	}
	return sum, rest == "}"
}
