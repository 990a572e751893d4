package api

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxSearchLength is the most characters a search may have: more than
// any shopper types, and a bound on the work one request can ask for.
const MaxSearchLength = 200

// OrderBys are the values of orderby: id, the contract's order and the
// default, then the storefront's own orders (its "Sort by" and search).
var OrderBys = []string{"id", "relevance", "date", "price", "popularity", "rating", "title", "menu_order"}

// Orders are the values of order.
var Orders = []string{"asc", "desc"}

// descOnly reports whether the storefront sorts by by in descending order
// only (WC_Query::get_catalog_ordering_args fixes their order).
func descOnly(by string) bool { return by == "relevance" || by == "popularity" || by == "rating" }

// Sort is the order the list is sorted in, the defaults applied: by is
// one of OrderBys ("id" when the query names none); date, and the orders
// that are descending only, default to descending, the rest to ascending.
func (q ListQuery) Sort() (by string, desc bool) {
	by = q.OrderBy
	if by == "" {
		by = "id"
	}
	switch {
	case descOnly(by):
		return by, true
	case q.Order != "":
		return by, q.Order == "desc"
	}
	return by, by == "date"
}

var (
	searchProblem  = fmt.Sprintf("search must be UTF-8 text of at most %d characters.", MaxSearchLength)
	orderByProblem = "orderby must be one of " + strings.Join(OrderBys, ", ") + "."
	orderProblem   = "order must be asc or desc."
)

func readSearch(q *ListQuery, s string) string {
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxSearchLength {
		return searchProblem
	}
	q.Search = s
	return ""
}

func writeSearch(b []byte, q *ListQuery) []byte { return append(b, url.QueryEscape(q.Search)...) }

// canonicalSearch reports whether s, a raw query value, is
// url.QueryEscape of a search readSearch accepts, without allocating.
func canonicalSearch(s string) bool {
	var buf [utf8.UTFMax * MaxSearchLength]byte
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case n == len(buf):
			return false
		case c == '+':
			c = ' '
		case c == '%':
			if i+2 >= len(s) || !upperHex(s[i+1]) || !upperHex(s[i+2]) {
				return false
			}
			c = unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 2
			if unescapedInQuery(c) || c == ' ' {
				return false // QueryEscape writes it as it is, or as '+'
			}
		case !unescapedInQuery(c):
			return false
		}
		buf[n] = c
		n++
	}
	return utf8.Valid(buf[:n]) && utf8.RuneCount(buf[:n]) <= MaxSearchLength
}

// unescapedInQuery reports whether url.QueryEscape leaves c as it is.
func unescapedInQuery(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '-' || c == '_' || c == '.' || c == '~'
}

func upperHex(c byte) bool { return isDigit(c) || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	if isDigit(c) {
		return c - '0'
	}
	return c - 'A' + 10
}

func readOrderBy(q *ListQuery, s string) string {
	if !slices.Contains(OrderBys, s) {
		return orderByProblem
	}
	q.OrderBy = s
	return ""
}

func readOrder(q *ListQuery, s string) string {
	if !slices.Contains(Orders, s) {
		return orderProblem
	}
	q.Order = s
	return ""
}

// price reads a price filter's bound into the field.
func price(name string, field func(*ListQuery) **Price) func(*ListQuery, string) string {
	return func(q *ListQuery, s string) string {
		p, ok := ParsePrice(s)
		if !ok {
			return fmt.Sprintf("%s must be a plain decimal of at most %d digits and %d decimals, like 9.99.",
				name, MaxPriceWholeDigits, MaxPriceDecimals)
		}
		*field(q) = &p
		return ""
	}
}

func writePrice(field func(*ListQuery) *Price) func([]byte, *ListQuery) []byte {
	return func(b []byte, q *ListQuery) []byte { return field(q).append(b) }
}

// flag reads true or false, exactly, into the field.
func flag(name string, field func(*ListQuery) **bool) func(*ListQuery, string) string {
	return func(q *ListQuery, s string) string {
		if !validBool(s) {
			return name + " must be true or false."
		}
		v := s == "true"
		*field(q) = &v
		return ""
	}
}

func writeFlag(field func(*ListQuery) *bool) func([]byte, *ListQuery) []byte {
	return func(b []byte, q *ListQuery) []byte { return appendBool(b, *field(q)) }
}

func readFacets(q *ListQuery, s string) string {
	if !validBool(s) {
		return "facets must be true or false."
	}
	q.Facets = s == "true"
	return ""
}

func validBool(s string) bool { return s == "true" || s == "false" }

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// combo is what the rules that join parameters read: values each valid
// on its own (the zero value where the request sent none or a rejected one).
type combo struct {
	// search is whether the request sends a non-empty search, or a
	// rejected one (then its own problem is the one to report).
	search         bool
	orderBy, order string
	min, max       Price
	hasMin, hasMax bool
}

// check is what is wrong with the combination, a message for each of the
// parameters it is reported on ("" for none).
func (c combo) check() (orderBy, order, minPrice string) {
	if c.orderBy == "relevance" && !c.search {
		orderBy = "orderby=relevance sorts a search's matches: send it with a non-empty search."
	}
	if c.order == "asc" && descOnly(c.orderBy) {
		order = "order=asc is not an order of orderby=" + c.orderBy + ", which sorts in descending order only."
	}
	if c.hasMin && c.hasMax && c.min > c.max {
		minPrice = "min_price must not be above max_price."
	}
	return orderBy, order, minPrice
}

// checkCombo adds the combination's problems to problems.
func checkCombo(q *ListQuery, problems Problems) {
	c := combo{search: q.Search != "" || problems["search"] != "", orderBy: q.OrderBy, order: q.Order}
	if q.MinPrice != nil {
		c.min, c.hasMin = *q.MinPrice, true
	}
	if q.MaxPrice != nil {
		c.max, c.hasMax = *q.MaxPrice, true
	}
	orderBy, order, minPrice := c.check()
	add := func(name, msg string) {
		if msg != "" {
			problems[name] = msg
		}
	}
	add("orderby", orderBy)
	add("order", order)
	add("min_price", minPrice)
}

// note records a canonical value for the rules that join parameters.
func (c *combo) note(name, val string) {
	switch name {
	case "search":
		c.search = val != ""
	case "orderby":
		c.orderBy = val
	case "order":
		c.order = val
	case "min_price":
		c.min, c.hasMin = ParsePrice(val)
	case "max_price":
		c.max, c.hasMax = ParsePrice(val)
	}
}
