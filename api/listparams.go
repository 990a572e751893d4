package api

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// listParam is one parameter of the product list and its rules, held once:
// how a value is read and checked (ParseListQuery), written in the one
// canonical spelling (Canonical), and recognized in that spelling without
// a parse (CanonicalQuery, the cache's hit path).
type listParam struct {
	name string
	// read sets q's value from the parameter's one value s, or says what
	// is wrong with it.
	read func(q *ListQuery, s string) (problem string)
	// write appends q's value, valid, in its canonical spelling.
	write func(b []byte, q *ListQuery) []byte
	// canonical reports whether s, as sent in a query string, is a value
	// read accepts and write writes back byte for byte.
	canonical func(s string) bool
}

// listParams are the product list's parameters, in the order an error's
// code names the first offending one (ParamOrder).
var listParams = []listParam{
	{name: "page", read: number("page", 1, 0, func(q *ListQuery) *int { return &q.Page }),
		write:     func(b []byte, q *ListQuery) []byte { return strconv.AppendInt(b, int64(q.Page), 10) },
		canonical: func(s string) bool { return plainNumber(s, 18) }},
	{name: "per_page", read: number("per_page", 1, MaxPerPage, func(q *ListQuery) *int { return &q.PerPage }),
		write: func(b []byte, q *ListQuery) []byte { return strconv.AppendInt(b, int64(q.PerPage), 10) },
		canonical: func(s string) bool {
			n, err := strconv.Atoi(s)
			return plainNumber(s, 18) && err == nil && n <= MaxPerPage
		}},
	{name: "category", read: readCategory,
		write: func(b []byte, q *ListQuery) []byte { return append(b, url.QueryEscape(q.Category)...) },
		// A plain slug is one QueryEscape leaves as it is.
		canonical: func(s string) bool { return len(s) <= MaxSlugLength && PlainSlug(s) }},
	{name: "framework", read: func(q *ListQuery, s string) string {
		if !ValidFramework(s) {
			return frameworkProblem
		}
		q.Framework = s
		return ""
	},
		write:     func(b []byte, q *ListQuery) []byte { return append(b, q.Framework...) },
		canonical: ValidFramework},
	{name: "search", read: readSearch, write: writeSearch, canonical: canonicalSearch},
	{name: "orderby", read: readOrderBy,
		write:     func(b []byte, q *ListQuery) []byte { return append(b, q.OrderBy...) },
		canonical: func(s string) bool { return slices.Contains(OrderBys, s) }},
	{name: "order", read: readOrder,
		write:     func(b []byte, q *ListQuery) []byte { return append(b, q.Order...) },
		canonical: func(s string) bool { return slices.Contains(Orders, s) }},
	{name: "min_price", read: price("min_price", func(q *ListQuery) **Price { return &q.MinPrice }),
		write:     writePrice(func(q *ListQuery) *Price { return q.MinPrice }),
		canonical: canonicalPrice},
	{name: "max_price", read: price("max_price", func(q *ListQuery) **Price { return &q.MaxPrice }),
		write:     writePrice(func(q *ListQuery) *Price { return q.MaxPrice }),
		canonical: canonicalPrice},
	{name: "in_stock", read: flag("in_stock", func(q *ListQuery) **bool { return &q.InStock }),
		write:     writeFlag(func(q *ListQuery) *bool { return q.InStock }),
		canonical: validBool},
	{name: "on_sale", read: flag("on_sale", func(q *ListQuery) **bool { return &q.OnSale }),
		write:     writeFlag(func(q *ListQuery) *bool { return q.OnSale }),
		canonical: validBool},
	{name: "facets", read: readFacets,
		write:     func(b []byte, q *ListQuery) []byte { return appendBool(b, q.Facets) },
		canonical: validBool},
}

// paramSet is a set of listParams, by their index.
type paramSet uint32

// paramBit is the set of the one parameter named.
func paramBit(name string) paramSet {
	return 1 << slices.IndexFunc(listParams, func(p listParam) bool { return p.name == name })
}

func paramNames() []string {
	names := make([]string, len(listParams))
	for i, p := range listParams {
		names[i] = p.name
	}
	return names
}

// ListParamNames are the product list's parameters, sorted: the order
// Canonical writes them in.
var ListParamNames = func() []string {
	names := paramNames()
	slices.Sort(names)
	return names
}()

// sortedParams are the indexes of listParams in ListParamNames' order.
var sortedParams = func() []int {
	idx := make([]int, len(listParams))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if listParams[a].name < listParams[b].name {
			return -1
		}
		return 1
	})
	return idx
}()

// Canonical is the query's one spelling, "" or "?k=v&…": each parameter the
// request named, in ListParamNames' order, a valid value as its rule writes
// it, a rejected one by the reason ("k!reason": "!" never appears in a
// canonical pair), so that every bad spelling of a parameter shares one
// form. The cache key and the paging links are both made with it: a link
// the list gives is the key it is cached under, and CanonicalQuery
// recognizes it.
func (q ListQuery) Canonical() string {
	if q.sent == 0 {
		return ""
	}
	var b []byte
	for _, i := range sortedParams {
		if q.sent&(1<<i) == 0 {
			continue
		}
		p := listParams[i]
		if len(b) == 0 {
			b = append(make([]byte, 0, 64), '?')
		} else {
			b = append(b, '&')
		}
		b = append(b, p.name...)
		if msg, bad := q.problems[p.name]; bad {
			b = append(b, '!')
			b = append(b, msg...)
			continue
		}
		b = append(b, '=')
		b = p.write(b, &q)
	}
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is not used again
}

// CanonicalQuery reports whether a raw query string already is the
// Canonical spelling of the query it means, so that the cache's hit path
// need not parse it: only parameters the list reads, each once, sorted,
// each value in its rule's canonical spelling. FuzzCanonicalQuery checks
// that such a query parses to itself. The rules that join parameters
// (combo) are checked too: each value may be canonical and the whole a
// problem.
func CanonicalQuery(raw string) bool {
	prev := ""
	var c combo
	for raw != "" {
		pair, rest, more := strings.Cut(raw, "&")
		raw = rest
		if more && rest == "" {
			return false // a trailing "&"
		}
		k, val, eq := strings.Cut(pair, "=")
		if !eq || k <= prev { // "search" alone means "search=", its canonical spelling
			return false
		}
		prev = k
		i := slices.IndexFunc(listParams, func(p listParam) bool { return p.name == k })
		if i < 0 || !listParams[i].canonical(val) {
			return false
		}
		c.note(k, val)
	}
	orderBy, order, minPrice := c.check()
	return orderBy == "" && order == "" && minPrice == ""
}

// number reads a plain base-10 whole number from min to max (no bound for
// max 0) into the field.
func number(name string, min, max int, field func(*ListQuery) *int) func(*ListQuery, string) string {
	return func(q *ListQuery, s string) string {
		n, err := strconv.Atoi(s)
		if err != nil || !allDigits(s) || n < min || max > 0 && n > max {
			if max > 0 {
				return fmt.Sprintf("%s must be a plain whole number from %d to %d.", name, min, max)
			}
			return fmt.Sprintf("%s must be a plain whole number of at least %d.", name, min)
		}
		*field(q) = n
		return ""
	}
}

// readCategory reads a category slug in its stored form.
func readCategory(q *ListQuery, s string) string {
	if s == "" || len(s) > MaxSlugLength || !utf8.ValidString(s) {
		return "category must be a category slug from the categories endpoint."
	}
	if canonical, ok := CanonicalSlug(s); ok {
		q.Category = canonical // as listed or decoded, the stored form
	} else {
		// Not a spelling SlugPattern knows: looked up exactly as sent,
		// so a stored slug outside the pattern still filters.
		q.Category = s
	}
	return ""
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// plainNumber reports whether s is a positive number of at most n digits
// written without a leading zero.
func plainNumber(s string, n int) bool {
	return s != "" && len(s) <= n && s[0] != '0' && allDigits(s)
}
