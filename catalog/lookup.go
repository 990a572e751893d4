package catalog

import (
	"math"
	"strings"

	"catalogd/api"
	"catalogd/wpopt"
)

// Meta keys the list's sorts read: what WooCommerce copies into its
// product lookup table (wc_product_meta_lookup) beside the prices.
const (
	metaTotalSales    = "total_sales"
	metaAverageRating = "_wc_average_rating"
	metaRatingCount   = "_wc_rating_count"
)

// ranks are what the list's sorts and filters read of a product beyond
// what it shows: the values of its row in WooCommerce's lookup table,
// its post_date and its menu_order. Scalars all: an item holds them.
type ranks struct {
	// minPrice and maxPrice are the lookup's min_price and max_price.
	minPrice, maxPrice api.Price
	sales              int64 // total_sales
	// date is post_date's digits as a number (2006-01-02 15:04:05 is
	// 20060102150405): it orders as the column does, a zero date first.
	date      int64
	rating    int32 // average_rating, in hundredths (decimal(3,2))
	ratings   int32 // rating_count
	menuOrder int32
}

// readRanks is a product's lookup row as WooCommerce writes it
// (WC_Product_Data_Store_CPT::get_data_for_lookup_table), read from the
// meta it copies, with the post's date and menu_order. prices are its
// _price rows: a variable product's are its variations' distinct prices,
// a grouped one's its children's lowest and highest, lowest first, so
// the first and the last WooCommerce writes are their minimum and
// maximum, which the lookup's regeneration computes too. A product
// without a price is written as an empty string, which the column,
// written outside strict mode, stores as 0: such a product sorts and
// filters as a free one does (woocommerce-storage.md).
func readRanks(post *Post, meta []MetaRow, prices []string) ranks {
	r := ranks{date: dateDigits(post.Date), menuOrder: int32(clamp(post.MenuOrder, math.MinInt32, math.MaxInt32))}
	first := true
	for _, p := range prices {
		d, ok := parseDecimal(numericPrefix(p))
		if !ok {
			continue
		}
		// decimal(19,4): rounded to the column's four places; in
		// millionths, within a hundredth of int64's range.
		v := api.Price(clamp(d.scaled(4), math.MinInt64/100, math.MaxInt64/100) * 100)
		if first || v < r.minPrice {
			r.minPrice = v
		}
		if first || v > r.maxPrice {
			r.maxPrice = v
		}
		first = false
	}
	var seen uint8
	for _, m := range meta {
		switch {
		case m.Key == metaTotalSales && seen&1 == 0:
			seen |= 1
			r.sales = columnNumber(m.Value, 0)
		case m.Key == metaAverageRating && seen&2 == 0:
			seen |= 2
			r.rating = int32(clamp(columnNumber(m.Value, 2), -999, 999))
		case m.Key == metaRatingCount && seen&4 == 0:
			seen |= 4
			r.ratings = int32(clamp(wpopt.RatingCount(m.Value), 0, math.MaxInt32))
		}
	}
	return r
}

// columnNumber is a meta value as a decimal column with the places stores
// it, times 10^places: MySQL reads the string's leading number (0 for
// none, "" included) and rounds it half away from zero.
func columnNumber(v string, places int) int64 {
	d, ok := parseDecimal(numericPrefix(v))
	if !ok {
		return 0
	}
	return d.scaled(places)
}

// numericPrefix is the leading number of s as MySQL reads a string as a
// number: leading whitespace skipped, a sign, digits, a fraction; "" when
// there is none.
func numericPrefix(s string) string {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	end := 0
	if end < len(s) && (s[end] == '-' || s[end] == '+') {
		end++
	}
	digits := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end, digits = end+1, digits+1
	}
	if end < len(s) && s[end] == '.' {
		end++
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end, digits = end+1, digits+1
		}
	}
	if digits == 0 {
		return ""
	}
	return strings.TrimPrefix(s[:end], "+")
}

// scaled is the decimal times 10^places, rounded half away from zero to a
// whole number; beyond int64 it saturates (no shop's number gets there).
func (d decimal) scaled(places int) int64 {
	if len(d.int)+places > 18 {
		if d.neg {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	var n int64
	for i := 0; i < len(d.int); i++ {
		n = n*10 + int64(d.int[i]-'0')
	}
	for i := range places {
		n *= 10
		if i < len(d.frac) {
			n += int64(d.frac[i] - '0')
		}
	}
	if len(d.frac) > places && d.frac[places] >= '5' {
		n++
	}
	if d.neg {
		return -n
	}
	return n
}

// dateDigits is a stored datetime's digits as a number; 0 for a value not
// in the stored shape.
func dateDigits(s string) int64 {
	if len(s) != len("2006-01-02 15:04:05") {
		return 0
	}
	var n int64
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			n = n*10 + int64(c-'0')
		case i == 4 || i == 7 || i == 10 || i == 13 || i == 16:
		default:
			return 0
		}
	}
	return n
}

func clamp(v, lo, hi int64) int64 { return max(lo, min(v, hi)) }
