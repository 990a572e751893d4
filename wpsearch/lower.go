package wpsearch

import (
	"strings"
	"unicode"
)

// mbLower is PHP 8.2's mb_strtolower in UTF-8, which WordPress compares
// stopwords with: Unicode's full lower-case mapping, which differs from
// the simple one only for U+0130 (İ), lowered to i and a combining dot.
// It has no final-sigma rule.
func mbLower(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == 'İ' {
			b.WriteString("i\u0307")
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
