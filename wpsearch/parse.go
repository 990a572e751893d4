// Package wpsearch is WordPress's search as WP_Query runs it (WordPress
// 6.1's parse_search, parse_search_terms and parse_search_order): how it
// reads ?s= into terms, which posts it finds, and the relevance it orders
// them by. Matching compares text as MariaDB's LIKE does under
// utf8mb4_unicode_520_ci, the collation WordPress gives its tables: Fold
// maps both sides to their classes' representatives once, so a search is
// byte comparisons. It runs no SQL: the fold table is generated from the
// server (internal/collgen), the translated stopwords from Debian's
// wordpress-l10n (internal/stopgen).
package wpsearch

import (
	"strings"
	"unicode/utf8"
)

// MaxSlashedLength is the longest search WP_Query keeps, in bytes as its
// query var holds it: slashed, a backslash added before each quote,
// backslash and NUL, as WordPress adds to request input. A longer one is
// dropped: no search at all.
const MaxSlashedLength = 1600

// lineBreaks removes what WordPress removes first: "There are no line
// breaks in <input /> fields."
var lineBreaks = strings.NewReplacer("\r", "", "\n", "")

// maxTerms is the most terms WordPress matches one by one: more, and the
// whole search is one term.
const maxTerms = 9

// Term is one condition of a search.
type Term struct {
	// Text is what WordPress matches with LIKE '%Text%' (LIKE's wildcards
	// escaped: they match themselves), without an exclusion's '-'.
	Text string
	// Pattern is Fold(Text).
	Pattern []byte
	// Exclude: the post must hold Text in none of its title, excerpt and
	// content (NOT LIKE, ANDed), instead of in one of them.
	Exclude bool
}

// Query is a search as WordPress reads it.
type Query struct {
	// Terms are ANDed; none for no search.
	Terms []Term
	// Count is WordPress's search_terms_count: how many pieces the split
	// found before dropping any (1 when none), which picks the relevance
	// order's form.
	Count int
	// Sentence is the folded whole search, for the relevance ranks that
	// look for it in one piece; nil where WordPress does not (a search of
	// one piece, or with a '-' after a space or at the start).
	Sentence []byte
	// S is the search as WordPress matches it: line breaks removed.
	S string

	order   order
	invalid bool
}

// order is the form of WordPress's relevance ORDER BY for a search.
type order uint8

const (
	// orderNone: no relevance term, the posts' date alone orders.
	orderNone order = iota
	// orderTitle: one piece; a post whose title holds the term first.
	orderTitle
	// orderCase: parse_search_order's CASE of ranks 1 to 6.
	orderCase
	// orderBroken: the ORDER BY is invalid SQL (no term to rank by).
	orderBroken
)

// Parse reads s, the search as the visitor sent it (WordPress's ?s=, after
// percent-decoding), with the site's stopwords (Stopwords), as WP_Query
// does: line breaks removed; split by the regular expression
// /".*?("|$)|((?<=[\t ",+])|^)[^\t ",+]+/; each piece trimmed of quotes
// (and of spaces, unless it is a closed "phrase"); a single letter a-z, a
// single '-', "0" and stopwords (mb_strtolower'ed piece equal to one)
// dropped; none left or more than nine: the whole search is one term. A
// term starting with '-' excludes the rest. s holding invalid UTF-8 finds
// nothing: WordPress's database layer refuses the query.
func Parse(s string, stopwords []string) Query {
	if s == "" || slashedLen(s) > MaxSlashedLength {
		return Query{}
	}
	s = lineBreaks.Replace(s)
	q := Query{S: s, Count: 1, invalid: !utf8.ValidString(s)}
	var texts []string
	if pieces := split(s); len(pieces) > 0 {
		q.Count = len(pieces)
		texts = checkTerms(pieces, stopwords)
	}
	if len(texts) == 0 || len(texts) > maxTerms {
		texts = []string{s}
	}
	positive := 0
	for _, t := range texts {
		term := Term{Text: t}
		if strings.HasPrefix(t, "-") {
			term.Exclude, term.Text = true, t[1:]
		} else {
			positive++
		}
		term.Pattern = Fold(nil, term.Text)
		q.Terms = append(q.Terms, term)
	}
	switch {
	case s == "" || s == "0":
		// PHP's empty(): WordPress adds no relevance order.
		q.order = orderNone
	case positive == 0:
		q.order = orderBroken
	case q.Count == 1:
		q.order = orderTitle
	default:
		q.order = orderCase
		if !negative(s) {
			q.Sentence = Fold(nil, s)
		} else if positive >= 7 {
			// No sentence and too many terms for the title ranks: the
			// CASE has no branch, and WordPress leaves it out.
			q.order = orderNone
		}
	}
	return q
}

// Empty says the search sets no condition: no search was given.
func (q Query) Empty() bool { return len(q.Terms) == 0 }

// Ranks says whether WordPress orders this search's results by relevance
// before their date: false where its ORDER BY has no search part (Rank is
// then the same for every post) or fails (RelevanceFails).
func (q Query) Ranks() bool { return q.order == orderTitle || q.order == orderCase }

// RelevanceFails says WordPress's relevance ORDER BY for this search is
// invalid SQL, which happens when every term is an exclusion: ordered by
// relevance (the storefront's default for a search), WordPress finds
// nothing. Other orders find what Match does.
func (q Query) RelevanceFails() bool { return q.order == orderBroken }

// slashedLen is len(s) once WordPress has slashed it (addslashes).
func slashedLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'', '"', '\\', 0:
			n++
		}
	}
	return n
}

// split is preg_match_all's matches of WordPress's term expression: a
// quoted piece runs to the next quote or to the end; any other piece is a
// run of bytes other than tab, space, quote, comma and plus. The
// expression's look-behind always holds where a piece can start: after a
// separator, a quote, or at the start.
func split(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '"':
			end := len(s)
			if j := strings.IndexByte(s[i+1:], '"'); j >= 0 {
				end = i + 1 + j + 1
			}
			out = append(out, s[i:end])
			i = end
		case isSeparator(c):
			i++
		default:
			j := i + 1
			for j < len(s) && !isSeparator(s[j]) && s[j] != '"' {
				j++
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out
}

func isSeparator(c byte) bool { return c == '\t' || c == ' ' || c == ',' || c == '+' }

// checkTerms is parse_search_terms: the pieces trimmed, those WordPress
// finds too short or too common dropped.
func checkTerms(pieces []string, stopwords []string) []string {
	var out []string
	for _, p := range pieces {
		if len(p) >= 3 && p[0] == '"' && p[len(p)-1] == '"' {
			// A closed phrase keeps its spaces.
			p = strings.Trim(p, `"'`)
		} else {
			p = strings.Trim(p, `"' `)
		}
		if p == "" || p == "0" { // PHP's !$term
			continue
		}
		if len(p) == 1 && (p[0] == '-' || 'a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z') {
			continue
		}
		if isStopword(mbLower(p), stopwords) {
			continue
		}
		out = append(out, p)
	}
	return out
}

func isStopword(w string, stopwords []string) bool {
	for _, s := range stopwords {
		if s == w {
			return true
		}
	}
	return false
}

// negative is WordPress's /(?:\s|^)\-/ on the search: a '-' at the start
// or after a space character (PCRE's \s without Unicode: tab, line feed,
// vertical tab, form feed, carriage return, space).
func negative(s string) bool {
	if strings.HasPrefix(s, "-") {
		return true
	}
	for i := 1; i < len(s); i++ {
		if s[i] == '-' {
			switch s[i-1] {
			case ' ', '\t', '\n', '\v', '\f', '\r':
				return true
			}
		}
	}
	return false
}
