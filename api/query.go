package api

import (
	"fmt"
	"maps"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Frameworks are the values of the framework filter: the pa_framework
// attribute terms the shop sells for.
var Frameworks = []string{"esx", "qbcore", "qbox", "standalone"}

// Paging limits of the product list.
const (
	DefaultPerPage = 20
	MaxPerPage     = 50
	MaxSlugLength  = 200 // posts.post_name and terms.slug are varchar(200), in the stored form
)

// frameworkProblem is the message for a framework not in Frameworks.
var frameworkProblem = "framework must be one of " + strings.Join(Frameworks, ", ") + "."

// ValidFramework reports whether f is one of Frameworks.
func ValidFramework(f string) bool {
	for _, v := range Frameworks {
		if v == f {
			return true
		}
	}
	return false
}

// ListQuery selects a page of the product list. ParseListQuery makes one
// from a request, every parameter checked once, and keeps what it rejected
// with it; the catalog trusts the values and reports those problems with
// what only it can tell (an unknown category). A query built in code holds
// valid values: zero Page and PerPage are the defaults (Paging), empty
// Category and Framework no restriction, and so for the finding
// parameters: an empty Search, OrderBy and Order, nil bounds and flags.
type ListQuery struct {
	Page      int
	PerPage   int
	Category  string
	Framework string

	// Search is the search as sent, percent-decoded; "" is no search.
	Search string
	// OrderBy is one of OrderBys, "" for id; Order is "asc", "desc" or ""
	// for the default of OrderBy (Sort applies both).
	OrderBy, Order string
	// MinPrice and MaxPrice bound the price range a product's must
	// overlap; nil is no bound.
	MinPrice, MaxPrice *Price
	// InStock and OnSale keep the products whose in_stock or on_sale is
	// the value; nil keeps both.
	InStock, OnSale *bool
	// Facets asks for the list's facets (ProductList.Facets).
	Facets bool

	// sent are the parameters the request named (Canonical writes them).
	sent paramSet
	// problems are what ParseListQuery rejected.
	problems Problems
}

// Paging is the page asked for and its size, the defaults where the query
// leaves them out: the one place the defaults are applied.
func (q ListQuery) Paging() (page, perPage int) {
	page, perPage = q.Page, q.PerPage
	if page == 0 {
		page = 1
	}
	if perPage == 0 {
		perPage = DefaultPerPage
	}
	return page, perPage
}

// Problems are what ParseListQuery rejected, a message per parameter: a
// copy, never nil, to which the catalog adds its own.
func (q ListQuery) Problems() Problems {
	if q.problems == nil {
		return Problems{}
	}
	return maps.Clone(q.problems)
}

// WithPage is q asking for page, as a paging link names it.
func (q ListQuery) WithPage(page int) ListQuery {
	q.Page = page
	q.sent |= paramBit("page")
	return q
}

// Problems are what is wrong with a request, a message per parameter.
type Problems map[string]string

// ParamOrder is the order in which an error's code names the first
// offending parameter.
var ParamOrder = append(paramNames(), "slug")

// First is the first offending parameter in ParamOrder, "" for none.
func (p Problems) First() string {
	for _, name := range ParamOrder {
		if p[name] != "" {
			return name
		}
	}
	return ""
}

// ParamHints say what to send instead, per parameter.
var ParamHints = map[string]string{
	"page":      "Send page as a plain whole number from 1 up to total_pages, or leave it out for the first page.",
	"per_page":  fmt.Sprintf("Send per_page as a plain whole number from 1 to %d (default %d); larger pages are rejected, not clamped.", MaxPerPage, DefaultPerPage),
	"category":  "Use a slug from the categories endpoint.",
	"framework": "Use one of " + strings.Join(Frameworks, ", ") + ", or leave framework out.",
	"search": fmt.Sprintf("Send search as text of at most %d characters, percent-encoded UTF-8, or leave it out; "+
		"orderby=relevance needs a non-empty one.", MaxSearchLength),
	"orderby": "Use one of " + strings.Join(OrderBys, ", ") + " (id is the default; relevance only with a search); " +
		"for the highest price first send orderby=price&order=desc.",
	"order": "Use asc or desc, or leave order out for the orderby's default (date descending, the rest ascending); " +
		"relevance, popularity and rating sort in descending order only.",
	"min_price": "Send min_price as a plain decimal in the shop's currency, like 10 or 9.99 (no sign, at most 6 decimals), " +
		"not above max_price.",
	"max_price": "Send max_price as a plain decimal in the shop's currency, like 50 or 49.99 (no sign, at most 6 decimals), " +
		"not below min_price.",
	"in_stock": "Send in_stock=true or in_stock=false, or leave it out for both.",
	"on_sale":  "Send on_sale=true or on_sale=false, or leave it out for both.",
	"facets":   "Send facets=true for the facets object, or leave facets out.",
	"slug":     "Use the product's slug as the product list shows it: lowercase letters, digits, underscores and hyphens, other characters percent-encoded (or sent as UTF-8).",
}

// ParseListQuery reads the product list's parameters from query values,
// strictly, by each one's rule (listParams): page and per_page are plain
// base-10 whole numbers (not empty, signed, fractional, huge or repeated)
// in range, category a non-empty slug (in its stored form, CanonicalSlug),
// framework one of Frameworks, the finding parameters by their rules
// (findparams.go), each alone and then together (combo). Other
// parameters are ignored, as WordPress
// ignores them. The problems name every offending parameter; the query
// holds what was valid, so that whether an unknown category is a problem
// too can still be told, and the problems too (Problems).
func ParseListQuery(values map[string][]string) (ListQuery, Problems) {
	var q ListQuery
	problems := Problems{}
	for i, p := range listParams {
		v, ok := values[p.name]
		if !ok {
			continue
		}
		q.sent |= 1 << i
		if len(v) > 1 {
			problems[p.name] = p.name + " was given more than once; send it once."
			continue
		}
		if msg := p.read(&q, v[0]); msg != "" {
			problems[p.name] = msg
		}
	}
	checkCombo(&q, problems)
	if len(problems) == 0 {
		return q, problems
	}
	q.problems = problems
	return q, maps.Clone(problems)
}

// ParseListQueryString is ParseListQuery of a raw query string (QueryValues).
func ParseListQueryString(raw string) ListQuery {
	q, _ := ParseListQuery(QueryValues(raw))
	return q
}

// QueryValues parses a raw query string like url.ParseQuery, except that a
// pair whose value is not valid percent-encoding is kept undecoded rather
// than dropped: "page=%zz" must be rejected as a bad page, not read as no
// page at all. A pair whose key cannot be decoded is no parameter the API
// knows, and is ignored as unknown parameters are.
func QueryValues(raw string) url.Values {
	v := url.Values{}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, val, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			continue
		}
		if dec, err := url.QueryUnescape(val); err == nil {
			val = dec
		}
		v[key] = append(v[key], val)
	}
	return v
}

// SlugProblem is the message for a product slug CanonicalSlug rejects.
func SlugProblem(slug string) string {
	if len(slug) > MaxSlugLength || utf8.ValidString(slug) && slugRE.MatchString(slug) {
		return fmt.Sprintf("slug must be at most %d characters, percent-encoded as the product list shows it.", MaxSlugLength)
	}
	return "slug must be lowercase letters, digits, underscores, hyphens and percent-encoded (or UTF-8) characters."
}
