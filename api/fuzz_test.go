package api_test

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"catalogd/api"
)

// listParams are the product list's parameters, in the order in which an
// error's code names the first offending one.
var listParams = []string{"page", "per_page", "category", "framework"}

var plainNumber = regexp.MustCompile(`^[0-9]+$`)

// FuzzParseListQuery: whatever the raw query string, the parse returns a
// query within the contract's ranges or an invalid-parameter error naming
// exactly the offending parameters, and agrees with a plain reading of
// the rules.
func FuzzParseListQuery(f *testing.F) {
	for _, s := range []string{"", "page=2&per_page=10", "per_page=50&category=police&framework=esx", "page=0",
		"page=-1", "page=%2B1", "page=1&page=1", "per_page=51", "category=", "framework=ESX", "page=%zz",
		"page=99999999999999999999", "category=%ff", "a=b&&c", ";", "page=1;per_page=2", "category=jobs%00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		values, _ := url.ParseQuery(raw) // keeps what it could parse
		q, got := api.ParseListQuery(values)
		// What each parameter should come to, by the rules.
		problems := map[string]bool{}
		one := func(name string) (string, bool) {
			v, ok := values[name]
			if !ok {
				return "", false
			}
			if len(v) != 1 {
				problems[name] = true
				return "", false
			}
			return v[0], true
		}
		wantPage, wantPer := 1, api.DefaultPerPage
		if s, ok := one("page"); ok {
			n, err := strconv.Atoi(s)
			if err != nil || !plainNumber.MatchString(s) || n < 1 {
				problems["page"] = true
			} else {
				wantPage = n
			}
		}
		if s, ok := one("per_page"); ok {
			n, err := strconv.Atoi(s)
			if err != nil || !plainNumber.MatchString(s) || n < 1 || n > api.MaxPerPage {
				problems["per_page"] = true
			} else {
				wantPer = n
			}
		}
		wantCat := ""
		if s, ok := one("category"); ok {
			if s == "" || len(s) > api.MaxSlugLength || !utf8.ValidString(s) {
				problems["category"] = true
			} else {
				wantCat = s
			}
		}
		wantFw := ""
		if s, ok := one("framework"); ok {
			if !api.ValidFramework(s) {
				problems["framework"] = true
			} else {
				wantFw = s
			}
		}

		if len(problems) == 0 {
			if len(got) > 0 {
				t.Fatalf("ParseListQuery(%q) = %v, want no problem", raw, got)
			}
			if q.Page != wantPage || q.PerPage != wantPer || q.Category != wantCat || q.Framework != wantFw {
				t.Fatalf("ParseListQuery(%q) = %+v, want page %d per_page %d category %q framework %q",
					raw, q, wantPage, wantPer, wantCat, wantFw)
			}
			if q.Page < 1 || q.PerPage < 1 || q.PerPage > api.MaxPerPage {
				t.Fatalf("ParseListQuery(%q) = %+v: out of range", raw, q)
			}
			return
		}
		first := ""
		for _, p := range listParams {
			if problems[p] && first == "" {
				first = p
			}
			if problems[p] != (got[p] != "") {
				t.Fatalf("ParseListQuery(%q): params %v, want messages for exactly %v", raw, got, problems)
			}
		}
		if len(got) != len(problems) {
			t.Fatalf("ParseListQuery(%q): params %v, want messages for exactly %v", raw, got, problems)
		}
		if got.First() != first || api.ParamHints[first] == "" {
			t.Fatalf("ParseListQuery(%q): first %q, want %s with a hint", raw, got.First(), first)
		}
		for _, m := range got {
			if !utf8.ValidString(m) {
				t.Fatalf("ParseListQuery(%q): message %q is not valid UTF-8", raw, m)
			}
		}
	})
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
