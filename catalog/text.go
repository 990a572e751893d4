package catalog

import (
	"html"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// SummaryLimit is the most characters (Unicode code points) a summary has in
// the product list; the cut ends with an ellipsis that counts.
const SummaryLimit = 300

// shortcodeRE matches one shortcode tag: [name attrs], [name attrs /] or
// [/name], with quoted attribute values that may hold "]". A doubled
// bracket ([[name]]) is WordPress's escape for a literal tag; group 1 then
// holds the literal text to keep.
var shortcodeRE = regexp.MustCompile(`\[(\[/?[A-Za-z0-9_-]+(?:[^\[\]"']|"[^"]*"|'[^']*')*\])\]|\[/?[A-Za-z][A-Za-z0-9_-]*(?:[\s/](?:[^\[\]"']|"[^"]*"|'[^']*')*)?\]`)

// stripShortcodes removes every shortcode tag, registered or not, and keeps
// the text enclosed between an opening and a closing tag. The storefront
// prints unknown shortcodes literally; an API client wants the text.
func stripShortcodes(s string) string {
	if !strings.Contains(s, "[") {
		return s
	}
	return shortcodeRE.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "[[") && strings.HasSuffix(m, "]]") {
			return m[1 : len(m)-1]
		}
		return ""
	})
}

// break strengths between two runs of text.
const (
	brNone      = iota
	brSpace     // words
	brLine      // <br>, list items, table rows
	brParagraph // paragraphs, headings, blocks
)

// blockBreak says how strongly an element separates the text around it.
func blockBreak(a atom.Atom) int {
	switch a {
	case atom.Br, atom.Li, atom.Tr, atom.Dt, atom.Dd, atom.Option:
		return brLine
	case atom.P, atom.Div, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Blockquote, atom.Pre,
		atom.Figure, atom.Figcaption, atom.Section, atom.Article, atom.Header,
		atom.Footer, atom.Aside, atom.Nav, atom.Hr, atom.Address, atom.Details,
		atom.Summary, atom.Main:
		return brParagraph
	case atom.Td, atom.Th:
		return brSpace
	}
	return brNone
}

// textBuilder joins runs of text with the strongest break seen between them,
// so that markup and source whitespace never pile up blank lines or spaces.
type textBuilder struct {
	b       strings.Builder
	pending int
}

func (t *textBuilder) brk(level int) {
	if level > t.pending {
		t.pending = level
	}
}

func (t *textBuilder) word(w string) {
	if t.b.Len() > 0 {
		switch t.pending {
		case brSpace:
			t.b.WriteByte(' ')
		case brLine:
			t.b.WriteByte('\n')
		case brParagraph:
			t.b.WriteString("\n\n")
		}
	}
	t.pending = brNone
	t.b.WriteString(w)
}

// text adds character data: whitespace runs become breaks. With autop (a
// classic-editor text, which WordPress runs through wpautop) a blank line
// inside the text is a paragraph break and a single newline a line break;
// whitespace alone between tags is only layout of the source.
func (t *textBuilder) text(s string, autop bool) {
	if strings.TrimSpace(s) == "" {
		t.brk(brSpace)
		return
	}
	for len(s) > 0 {
		i := strings.IndexFunc(s, unicode.IsSpace)
		if i < 0 {
			t.word(s)
			return
		}
		if i > 0 {
			t.word(s[:i])
		}
		s = s[i:]
		j := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) })
		ws := s
		if j >= 0 {
			ws = s[:j]
		}
		level := brSpace
		if autop {
			switch n := strings.Count(ws, "\n"); {
			case n >= 2:
				level = brParagraph
			case n == 1:
				level = brLine
			}
		}
		t.brk(level)
		if j < 0 {
			return
		}
		s = s[j:]
	}
}

// PlainText turns stored WordPress HTML (post content, excerpts, titles)
// into plain text: block comments, tags and shortcode tags go, entities are
// decoded, whitespace is tidied. With keepLines, paragraphs and list items
// stay apart as line breaks (a description); without, the result is one line
// (a summary, a name). The result is always valid UTF-8.
func PlainText(stored string, keepLines bool) string {
	return plain(stripShortcodes(stored), keepLines)
}

// plain is PlainText without the shortcode pass.
func plain(stored string, keepLines bool) string {
	s := strings.ToValidUTF8(stored, "\uFFFD")
	if !strings.ContainsAny(s, "<&\r\x00") {
		// No markup, entity, carriage return or NUL: the tokenizer would
		// see one text token, as it is. A snapshot cleans every product's
		// texts, and a tokenizer costs a 4 KB buffer each.
		var t textBuilder
		t.text(s, keepLines)
		return t.b.String()
	}
	return tokenized(s, keepLines)
}

// tokenized is plain through the HTML tokenizer.
func tokenized(s string, keepLines bool) string {
	// Block editor content is not run through wpautop: its newlines are
	// layout; the blocks' tags carry the structure.
	autop := keepLines && !strings.Contains(s, "<!-- wp:")
	z := xhtml.NewTokenizer(strings.NewReader(s))
	var t textBuilder
	skip := 0 // inside <script>/<style>: their text is not visible
	for {
		tt := z.Next()
		switch tt {
		case xhtml.ErrorToken:
			return strings.ToValidUTF8(t.b.String(), "\uFFFD")
		case xhtml.TextToken:
			if skip == 0 {
				t.text(string(z.Text()), autop)
			}
		case xhtml.StartTagToken, xhtml.EndTagToken, xhtml.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Script || a == atom.Style || a == atom.Template {
				switch tt {
				case xhtml.StartTagToken:
					skip++
				case xhtml.EndTagToken:
					if skip > 0 {
						skip--
					}
				}
				continue
			}
			level := blockBreak(a)
			if !keepLines && level > brSpace {
				level = brSpace
			}
			t.brk(level)
		}
	}
}

// PlainName is a title or term name as plain text. Term names are stored
// HTML-escaped ("UI &amp; HUD", sanitize_term_field), titles as typed; both
// may hold entities.
// WordPress runs no shortcodes on names, so "[ESX] Garage" keeps its
// brackets.
func PlainName(stored string) string {
	return plain(html.UnescapeString(stored), false)
}

// Truncate cuts s to at most limit characters. When it must cut, it cuts at
// a word boundary and ends with "…", which counts towards the limit.
func Truncate(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	runes := []rune(s)
	cut := runes[:limit-1]
	// Back off to the last space when there is one not too far back; a
	// single giant word is cut hard rather than emptied.
	if i := lastSpace(cut); i > 0 && i > len(cut)/2 {
		cut = cut[:i]
	}
	out := strings.TrimRightFunc(string(cut), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) && r != ')' && r != '"' && r != '»'
	})
	return out + "…"
}

func lastSpace(rs []rune) int {
	for i := len(rs) - 1; i >= 0; i-- {
		if unicode.IsSpace(rs[i]) {
			return i
		}
	}
	return -1
}
