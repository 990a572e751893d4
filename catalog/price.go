package catalog

import (
	"strings"
)

// decimal is a stored price read exactly, never through floating point:
// the digits of its integer part without leading zeros ("" for zero) and of
// its fraction without trailing zeros, and its sign (never set on zero).
// Its parts are substrings of the stored string: reading a price allocates
// nothing, and a snapshot's build reads a few hundred thousand of them.
type decimal struct {
	neg       bool
	int, frac string
}

// parseDecimal reads a stored price in the shape WooCommerce stores
// (wc_format_decimal): an optional minus, digits, an optional fraction, with
// surrounding whitespace ignored. Anything else (empty, "1e3", "1/3",
// "12,50", "+5") is no price.
func parseDecimal(s string) (decimal, bool) {
	s = strings.TrimSpace(s)
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	intPart, frac, dot := strings.Cut(s, ".")
	if !allDigits(intPart) || !allDigits(frac) || intPart == "" && frac == "" || intPart == "" && !dot {
		return decimal{}, false
	}
	d.int = strings.TrimLeft(intPart, "0")
	d.frac = strings.TrimRight(frac, "0")
	if d.int == "" && d.frac == "" {
		d.neg = false // -0 is 0
	}
	return d, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// cmp compares two decimals by value: -1, 0 or +1.
func (a decimal) cmp(b decimal) int {
	if a.neg != b.neg {
		if a.neg {
			return -1
		}
		return 1
	}
	c := a.cmpAbs(b)
	if a.neg {
		return -c
	}
	return c
}

// cmpAbs compares the magnitudes: with no leading zeros in the integer
// parts and no trailing zeros in the fractions, the longer integer part is
// the larger, and equal ones compare digit by digit, as do the fractions.
func (a decimal) cmpAbs(b decimal) int {
	if len(a.int) != len(b.int) {
		if len(a.int) < len(b.int) {
			return -1
		}
		return 1
	}
	if c := strings.Compare(a.int, b.int); c != 0 {
		return c
	}
	return strings.Compare(a.frac, b.frac)
}

// format writes the decimal with the number of decimals (none when
// decimals is not positive), rounding half away from zero on the exact
// value ("3.995" → "4.00" with 2), which is half up for the non-negative
// prices a shop stores. A negative value keeps its minus even where it
// rounds to zero ("-0.001" → "-0.00"), as math/big's Rat.FloatString, the
// tests' reference, writes it.
func (d decimal) format(decimals int) string {
	decimals = max(decimals, 0)
	// The digits kept, integer part then fraction padded or cut to the
	// decimals, with room for a carry.
	digits := make([]byte, 1, 1+max(len(d.int), 1)+decimals)
	digits[0] = '0'
	if d.int == "" {
		digits = append(digits, '0')
	} else {
		digits = append(digits, d.int...)
	}
	kept := d.frac
	if len(kept) > decimals {
		kept = kept[:decimals]
	}
	digits = append(digits, kept...)
	for range decimals - len(kept) {
		digits = append(digits, '0')
	}
	// The first digit cut is 5 or more: the rest is at least half a unit
	// of the last digit kept, so the magnitude rounds up.
	if len(d.frac) > decimals && d.frac[decimals] >= '5' {
		i := len(digits) - 1
		for digits[i] == '9' {
			digits[i] = '0'
			i--
		}
		digits[i]++
	}
	intEnd := len(digits) - decimals
	lead := 0
	for lead < intEnd-1 && digits[lead] == '0' {
		lead++
	}
	var b strings.Builder
	b.Grow(1 + len(digits) - lead + 1)
	if d.neg {
		b.WriteByte('-')
	}
	b.Write(digits[lead:intEnd])
	if decimals > 0 {
		b.WriteByte('.')
		b.Write(digits[intEnd:])
	}
	return b.String()
}

// FormatPrice formats a stored decimal string with the shop's number of
// decimals, rounding half up on the exact value ("3.995" → "4.00" with 2).
// ok is false when the string holds no price.
func FormatPrice(stored string, decimals int) (string, bool) {
	d, ok := parseDecimal(stored)
	if !ok {
		return "", false
	}
	return d.format(decimals), true
}

// lowestPrice returns the smallest of the stored prices that hold a number,
// as stored (unformatted), or "" when none does.
func lowestPrice(stored []string) string {
	var best decimal
	var bestS string
	found := false
	for _, s := range stored {
		d, ok := parseDecimal(s)
		if !ok {
			continue
		}
		if !found || d.cmp(best) < 0 {
			best, bestS, found = d, s, true
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
func storedPrice(typ productType, rows []string) string {
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
	da, okA := parseDecimal(a)
	db, okB := parseDecimal(b)
	return okA && okB && da.cmp(db) < 0
}
