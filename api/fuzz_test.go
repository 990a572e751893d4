package api_test

import (
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"catalogd/api"
)

// listParams are the product list's parameters, in the order in which an
// error's code names the first offending one.
var listParams = []string{"page", "per_page", "category", "framework", "search", "orderby", "order",
	"min_price", "max_price", "in_stock", "on_sale", "facets"}

// FuzzParseListQuery checks properties of the parse, whatever the raw query
// string, rather than a second copy of its rules: it never panics; every
// problem names a list parameter, with a message and a hint for the first,
// and the query keeps them; a parameter not sent is no problem and leaves
// its zero value (the default, Paging), one sent twice always is;
// parameters the list does not read change nothing; a valid query is within
// the contract's ranges, and its canonical spelling parses back to the same
// query and is spelt again the same.
func FuzzParseListQuery(f *testing.F) {
	for _, s := range []string{"", "page=2&per_page=10", "per_page=50&category=police&framework=esx", "page=0",
		"page=-1", "page=%2B1", "page=1&page=1", "per_page=51", "category=", "framework=ESX", "page=%zz",
		"page=99999999999999999999", "category=%ff", "a=b&&c", ";", "page=1;per_page=2", "category=jobs%00",
		"page=007", "category=%E6%9D%B1", "category=Police", "category=a%2Fb", "utm=1&framework=qbox",
		"search=p%C3%AAche+-radar", "search=%22big+car%22&orderby=relevance", "orderby=relevance", "search=&orderby=relevance",
		"orderby=rating&order=asc", "order=desc", "min_price=10&max_price=9.99", "min_price=010.50", "max_price=1e3",
		"in_stock=TRUE", "on_sale=false&facets=true", "search=%ff", "search=100%", "facets=1", "min_price=.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		values := api.QueryValues(raw)
		q, problems := api.ParseListQuery(values)
		for name, msg := range problems {
			if !slices.Contains(listParams, name) || msg == "" || !utf8.ValidString(msg) {
				t.Fatalf("ParseListQuery(%q): problem %q: %q", raw, name, msg)
			}
		}
		if first := problems.First(); len(problems) > 0 && api.ParamHints[first] == "" {
			t.Fatalf("ParseListQuery(%q): first problem %q has no hint", raw, first)
		}
		if got := q.Problems(); !maps.Equal(got, problems) {
			t.Fatalf("ParseListQuery(%q): problems %v, but the query keeps %v", raw, problems, got)
		}
		for _, name := range listParams {
			switch v, sent := values[name]; {
			case !sent && problems[name] != "":
				t.Fatalf("ParseListQuery(%q): %s not sent, but a problem: %v", raw, name, problems)
			case !sent && field(q, name) != field(api.ListQuery{}, name):
				t.Fatalf("ParseListQuery(%q): %s not sent, but %q", raw, name, field(q, name))
			case len(v) > 1 && problems[name] == "":
				t.Fatalf("ParseListQuery(%q): %s sent %d times, but no problem", raw, name, len(v))
			}
		}
		known := url.Values{}
		for _, name := range listParams {
			if v, ok := values[name]; ok {
				known[name] = v
			}
		}
		if kq, kp := api.ParseListQuery(known); !sameQuery(kq, q) || !maps.Equal(kp, problems) || kq.Canonical() != q.Canonical() {
			t.Fatalf("ParseListQuery(%q) = %+v %v, but without the other parameters %+v %v", raw, q, problems, kq, kp)
		}
		if len(problems) > 0 {
			return
		}
		page, perPage := q.Paging()
		if page < 1 || perPage < 1 || perPage > api.MaxPerPage || q.Framework != "" && !api.ValidFramework(q.Framework) {
			t.Fatalf("ParseListQuery(%q) = %+v: out of range", raw, q)
		}
		form := strings.TrimPrefix(q.Canonical(), "?")
		again := api.ParseListQueryString(form)
		if p := again.Problems(); len(p) > 0 || !sameQuery(again, q) {
			t.Fatalf("ParseListQuery(%q) = %+v, canonical %q parses to %+v %v", raw, q, form, again, p)
		}
		if twice := strings.TrimPrefix(again.Canonical(), "?"); twice != form {
			t.Fatalf("ParseListQuery(%q): canonical spelling %q, then %q", raw, form, twice)
		}
	})
}

// FuzzCanonicalQuery: a raw query CanonicalQuery takes as canonical, which
// the cache keys as it is without a parse, is the canonical spelling of
// what it parses to.
func FuzzCanonicalQuery(f *testing.F) {
	for _, q := range []string{"page=2&per_page=5", "category=ui-hud&framework=esx", "page=02", "per_page=51",
		"category=%41", "page=1&page=2", "category=&page=1", "framework=ESX", "per_page=50", "page=123456789012345678",
		"category=%e6%9d%b1", "page=1&", "&page=1", "per_page=5&page=2", "search=p%C3%AAche+radar", "search=a%20b",
		"search=%e2%82%ac", "search=a%2Db", "orderby=relevance", "orderby=relevance&search=x", "order=asc&orderby=rating",
		"max_price=9&min_price=10", "max_price=10&min_price=9.5", "min_price=9.50", "in_stock=true&on_sale=false",
		"facets=false", "search=", "search", "search&page=1"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !api.CanonicalQuery(raw) {
			return
		}
		q := api.ParseListQueryString(raw)
		want := ""
		if raw != "" {
			want = "?" + raw
		}
		if got := q.Canonical(); got != want || len(q.Problems()) > 0 {
			t.Fatalf("CanonicalQuery(%q), but it parses to %q, problems %v", raw, got, q.Problems())
		}
	})
}

// field is a list parameter's value in q, as text.
func field(q api.ListQuery, name string) string {
	switch name {
	case "page":
		return strconv.Itoa(q.Page)
	case "per_page":
		return strconv.Itoa(q.PerPage)
	case "category":
		return q.Category
	case "framework":
		return q.Framework
	case "search":
		return q.Search
	case "orderby":
		return q.OrderBy
	case "order":
		return q.Order
	case "min_price":
		return priceText(q.MinPrice)
	case "max_price":
		return priceText(q.MaxPrice)
	case "in_stock":
		return boolText(q.InStock)
	case "on_sale":
		return boolText(q.OnSale)
	case "facets":
		return strconv.FormatBool(q.Facets)
	}
	panic("no such list parameter: " + name)
}

func priceText(p *api.Price) string {
	if p == nil {
		return ""
	}
	return p.String()
}

func boolText(b *bool) string {
	if b == nil {
		return ""
	}
	return strconv.FormatBool(*b)
}

// sameQuery compares the parameters of two queries (not the problems they
// carry, compared through Problems).
func sameQuery(a, b api.ListQuery) bool {
	for _, name := range listParams {
		if field(a, name) != field(b, name) {
			return false
		}
	}
	return true
}

// FuzzValidSlug: ValidSlug accepts exactly the valid UTF-8 strings made of
// lowercase ASCII letters, digits, hyphens, %XX escapes and non-ASCII
// characters whose stored form (CanonicalSlug) has at most MaxSlugLength
// bytes; the stored form has only lowercase escapes, is its own stored
// form, and decodes to what the input decodes to.
func FuzzValidSlug(f *testing.F) {
	for _, s := range []string{"police-radar", "", "-", "Police", "a_b", "東京", "a/b", "a b", "a\x00",
		strings.Repeat("a", 200), strings.Repeat("a", 201), "police-radar\n", "%e6%9d%b1", "%E6%9D%B1", "1", "ı", "K",
		"%zz", "100%", "\xff", "%d1%81к", strings.Repeat("ж", 33), strings.Repeat("ж", 34)} {
		f.Add(s)
	}
	stored := regexp.MustCompile(`^([a-z0-9_-]|%[0-9a-f]{2})+$`)
	f.Fuzz(func(t *testing.T, s string) {
		want, n := s != "" && utf8.ValidString(s), 0
		for i := 0; i < len(s) && want; i++ {
			switch c := s[i]; {
			case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_':
				n++
			case c >= utf8.RuneSelf:
				n += 3
			case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
				n, i = n+3, i+2
			default:
				want = false
			}
		}
		want = want && n <= api.MaxSlugLength
		if got := api.ValidSlug(s); got != want {
			t.Fatalf("ValidSlug(%q) = %v, want %v", s, got, want)
		}
		c, ok := api.CanonicalSlug(s)
		if !ok {
			return
		}
		if !stored.MatchString(c) {
			t.Fatalf("CanonicalSlug(%q) = %q, not the stored form", s, c)
		}
		if again, _ := api.CanonicalSlug(c); again != c {
			t.Fatalf("CanonicalSlug(%q) = %q, then %q", s, c, again)
		}
		if a, b := unescape(t, s), unescape(t, c); a != b {
			t.Fatalf("%q decodes to %q, its stored form %q to %q", s, a, c, b)
		}
	})
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unescape(t *testing.T, s string) string {
	t.Helper()
	u, err := url.PathUnescape(s)
	if err != nil {
		t.Fatalf("PathUnescape(%q): %v", s, err)
	}
	return u
}
