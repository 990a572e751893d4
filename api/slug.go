package api

import (
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// SlugPattern is every spelling of a slug the API accepts, in the product
// path and the category filter: WordPress's stored form, where a character
// it could not transliterate (Cyrillic, Greek, CJK, …) is lowercase
// percent-encoding of its UTF-8 bytes (sanitize_title_with_dashes →
// utf8_uri_encode, dechex, strtolower), matches
// ^([a-z0-9_-]|%[0-9a-f]{2})+$ ("_" is kept, as in FiveM's esx_policejob);
// the same with uppercase hex digits, and the
// decoded UTF-8 form a client gets by unescaping it, match too. The OpenAPI
// document publishes this pattern.
const SlugPattern = `^([a-z0-9_-]|%[0-9a-fA-F]{2}|[^\x00-\x7F])+$`

var slugRE = regexp.MustCompile(SlugPattern)

// CanonicalSlug returns the form WordPress stores a slug in, for any
// spelling SlugPattern accepts: non-ASCII characters percent-encoded as
// lowercase hex, existing escapes lowercased, the rest unchanged. ok is
// false for anything else (uppercase ASCII, "/", invalid UTF-8, …) and
// for a stored form longer than posts.post_name holds. This is the one
// place the accepted spellings become one: lookups, the category filter
// and the response cache's key all use its result.
func CanonicalSlug(s string) (canonical string, ok bool) {
	if PlainSlug(s) { // the English slug: nothing to rewrite, nothing to allocate
		if len(s) > MaxSlugLength {
			return "", false
		}
		return s, true
	}
	if !utf8.ValidString(s) || !slugRE.MatchString(s) {
		return "", false
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(3 * len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%': // the pattern guarantees two hex digits follow
			b.WriteByte('%')
			b.WriteString(strings.ToLower(s[i+1 : i+3]))
			i += 2
		case c >= utf8.RuneSelf:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
	if b.Len() > MaxSlugLength {
		return "", false
	}
	return b.String(), true
}

// ValidSlug reports whether s is a spelling of a product slug the API
// accepts (see CanonicalSlug).
func ValidSlug(s string) bool {
	_, ok := CanonicalSlug(s)
	return ok
}

// PlainSlug reports whether s is a non-empty run of lowercase ASCII
// letters, digits, underscores and hyphens: the common case, checked
// without the regexp.
func PlainSlug(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return s != ""
}

// SlugQueryValue is a listed slug as a URL query value: the stored form as
// it is (its escapes decode to the UTF-8 form, which WordPress and the API
// accept, and the rest needs no escaping; add_query_arg prints it so),
// anything else escaped exactly.
func SlugQueryValue(slug string) string {
	if c, ok := CanonicalSlug(slug); ok {
		return c
	}
	return url.QueryEscape(slug)
}
