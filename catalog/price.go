package catalog

import (
	"math/big"
	"regexp"
	"strings"
)

// decimalRE is the shape WooCommerce stores prices in (wc_format_decimal):
// an optional minus, digits, an optional fraction. Anything else (empty,
// "1e3", "1/3", "12,50") is no price: math/big would accept some of those.
var decimalRE = regexp.MustCompile(`^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$`)

// parseDecimal reads a stored price exactly, never through floating point.
func parseDecimal(s string) (*big.Rat, bool) {
	s = strings.TrimSpace(s)
	if !decimalRE.MatchString(s) {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// FormatPrice formats a stored decimal string with the shop's number of
// decimals, rounding half up on the exact value ("3.995" → "4.00" with 2).
// ok is false when the string holds no price.
func FormatPrice(stored string, decimals int) (string, bool) {
	r, ok := parseDecimal(stored)
	if !ok {
		return "", false
	}
	// FloatString rounds halves away from zero, which is half up for the
	// non-negative prices a shop stores.
	return r.FloatString(decimals), true
}

// lowestPrice returns the smallest of the stored prices that hold a number,
// as stored (unformatted), or "" when none does.
func lowestPrice(stored []string) string {
	var best *big.Rat
	var bestS string
	for _, s := range stored {
		r, ok := parseDecimal(s)
		if !ok {
			continue
		}
		if best == nil || r.Cmp(best) < 0 {
			best, bestS = r, s
		}
	}
	return bestS
}

// storedPrice is get_price() of a product of the type from its _price rows
// in meta_id order. read_product_data takes the first row
// (get_post_meta(..., true)), so a stray later row on a simple or external
// product changes nothing on the storefront. A variable product carries one
// row per distinct variation price (WC_Product_Variable_Data_Store_CPT::
// sync_price) and a grouped one its children's min and max (the grouped data
// store's update_prices_from_children); for those the lowest counts (decisions.md; WooCommerce writes the min
// first, so it is also the first row as WooCommerce stores them). "" when
// the price read holds no number.
func storedPrice(typ string, rows []string) string {
	if typ == typeVariable || typ == typeGrouped {
		return lowestPrice(rows)
	}
	if len(rows) == 0 {
		return ""
	}
	if _, ok := parseDecimal(rows[0]); !ok {
		return ""
	}
	return rows[0]
}

// priceLess reports whether stored price a is a number below stored price b,
// as PHP's numeric string comparison in WC_Product::is_on_sale does.
func priceLess(a, b string) bool {
	ra, okA := parseDecimal(a)
	rb, okB := parseDecimal(b)
	return okA && okB && ra.Cmp(rb) < 0
}
