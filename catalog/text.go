package catalog

import (
	"html"
	"regexp"
	"strings"
	"sync"
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
	b       []byte
	pending int
}

// textBuilders are reused: a snapshot's build cleans every product's
// texts, and growing a fresh buffer for each would mean several
// allocations a text, and kept texts with spare capacity as large as
// their length.
var textBuilders = sync.Pool{New: func() any { return new(textBuilder) }}

func newTextBuilder() *textBuilder {
	t := textBuilders.Get().(*textBuilder)
	t.b, t.pending = t.b[:0], brNone
	return t
}

// done returns the text built, valid UTF-8, and gives the builder back;
// the text is the input itself when it came out unchanged.
func (t *textBuilder) done(in string) string {
	out := in
	if string(t.b) != in {
		out = strings.ToValidUTF8(string(t.b), "\uFFFD")
	}
	if cap(t.b) <= 64<<10 { // a rare huge text's buffer is not kept
		textBuilders.Put(t)
	}
	return out
}

func (t *textBuilder) brk(level int) {
	if level > t.pending {
		t.pending = level
	}
}

func (t *textBuilder) word(w string) {
	if len(t.b) > 0 {
		switch t.pending {
		case brSpace:
			t.b = append(t.b, ' ')
		case brLine:
			t.b = append(t.b, '\n')
		case brParagraph:
			t.b = append(t.b, "\n\n"...)
		}
	}
	t.pending = brNone
	t.b = append(t.b, w...)
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

// segment adds a text token of markup: its entities decoded, as the
// tokenizer's Text does.
func (t *textBuilder) segment(s string, autop bool) {
	if s != "" {
		t.text(xhtml.UnescapeString(s), autop)
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
		// texts, and a tokenizer allocates a 4 KB buffer for each.
		t := newTextBuilder()
		t.text(s, keepLines)
		return t.done(s)
	}
	if out, ok := scanned(s, keepLines); ok {
		return out
	}
	return tokenized(s, keepLines)
}

// tokenized is plain through the HTML tokenizer.
func tokenized(s string, keepLines bool) string {
	// Block editor content is not run through wpautop: its newlines are
	// layout; the blocks' tags carry the structure.
	autop := keepLines && !strings.Contains(s, "<!-- wp:")
	z := xhtml.NewTokenizer(strings.NewReader(s))
	t := newTextBuilder()
	skip := 0 // inside <script>/<style>: their text is not visible
	for {
		tt := z.Next()
		switch tt {
		case xhtml.ErrorToken:
			return t.done(s)
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

// scanned is tokenized without the tokenizer, for the markup product texts
// hold: tags, comments, text with entities. It splits the text exactly
// where x/net/html's Tokenizer (v0.50.0, token.go: Next, readTag,
// readComment) splits it and reads tag names as it does, without its 4 KB
// buffer per text, its copy of every text token and its error paths; ok is
// false, and the caller tokenizes, for what it leaves to the tokenizer:
// carriage returns and NULs (which the tokenizer converts), raw-text and
// skipped elements (script, style, template, textarea, title, …), and a tag
// the input ends inside. FuzzScannedMatchesTokenizer holds the two
// together.
func scanned(s string, keepLines bool) (string, bool) {
	if strings.ContainsAny(s, "\r\x00") {
		return "", false
	}
	autop := keepLines && !strings.Contains(s, "<!-- wp:")
	t := newTextBuilder()
	start := 0 // of the pending text
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 || i+j+1 >= len(s) {
			t.segment(s[start:], autop)
			break
		}
		j += i
		end := 0            // after the token that starts at j; len(s) when it runs to the end
		tag := atom.Atom(0) // a tag's name
		isTag := false
		switch c := s[j+1]; {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			var ok bool
			if end, tag, ok = scanTag(s, j+1); !ok || rawOrSkipped(tag) {
				return "", false
			}
			isTag = true
		case c == '/':
			if j+2 >= len(s) {
				return "", false // "</" at the end is text
			}
			switch c2 := s[j+2]; {
			case c2 == '>': // "</>" is nothing
				end = j + 3
			case 'a' <= c2 && c2 <= 'z' || 'A' <= c2 && c2 <= 'Z':
				var ok bool
				if end, tag, ok = scanTag(s, j+2); !ok || rawOrSkipped(tag) {
					return "", false
				}
				isTag = true
			default: // a bogus comment, to the next '>'
				end = closeAngle(s, j+2)
			}
		case c == '!':
			if strings.HasPrefix(s[j+2:], "--") {
				end = scanComment(s, j+4)
			} else { // a doctype or a bogus comment, to the next '>'
				end = closeAngle(s, j+2)
			}
		case c == '?':
			end = closeAngle(s, j+1)
		default: // a '<' that starts nothing is text
			i = j + 1
			continue
		}
		t.segment(s[start:j], autop)
		if isTag {
			level := blockBreak(tag)
			if !keepLines && level > brSpace {
				level = brSpace
			}
			t.brk(level)
		}
		start, i = end, end
	}
	return t.done(s), true
}

// rawOrSkipped reports the elements whose content the tokenizer reads as
// raw text or RCDATA, and those tokenized skips the content of.
func rawOrSkipped(a atom.Atom) bool {
	switch a {
	case atom.Iframe, atom.Noembed, atom.Noframes, atom.Noscript, atom.Plaintext, atom.Script, atom.Style,
		atom.Textarea, atom.Title, atom.Xmp, atom.Template:
		return true
	}
	return false
}

// closeAngle is the end of a token that runs to the first '>' at or after
// i: after it, or the end of s.
func closeAngle(s string, i int) int {
	if k := strings.IndexByte(s[i:], '>'); k >= 0 {
		return i + k + 1
	}
	return len(s)
}

// scanComment is the end of a comment whose data starts at i (after
// "<!--"), as the tokenizer's readComment finds it: "-->" or "--!>", a '>'
// right at the start ("<!-->", "<!--->"), or the end of s.
func scanComment(s string, i int) int {
	dashes, beginning := 0, true
	for ; i < len(s); i++ {
		switch s[i] {
		case '-':
			dashes++
			continue
		case '>':
			if dashes >= 2 || beginning {
				return i + 1
			}
		case '!':
			if dashes >= 2 {
				i++
				if i >= len(s) {
					return len(s)
				}
				switch s[i] {
				case '>':
					return i + 1
				case '-':
					dashes, beginning = 1, false
					continue
				}
			}
		}
		dashes, beginning = 0, false
	}
	return len(s)
}

// isTagSpace is the whitespace the tokenizer skips inside a tag.
func isTagSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f'
}

// scanTag reads a start or end tag whose name starts at i, as the
// tokenizer's readTag does: the name up to whitespace, '/' or '>', then
// attributes (quoted values may hold '>') up to the '>' that closes it. It
// returns the end of the tag (after its '>') and the atom of its
// lower-cased name; ok is false when s ends inside the tag.
func scanTag(s string, i int) (end int, a atom.Atom, ok bool) {
	n := i + 1
	for n < len(s) && !isTagSpace(s[n]) && s[n] != '/' && s[n] != '>' {
		n++
	}
	if n >= len(s) {
		return 0, 0, false
	}
	if name := s[i:n]; len(name) <= 32 {
		var buf [32]byte
		b := buf[:len(name)]
		for k := range len(name) {
			c := name[k]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b[k] = c
		}
		a = atom.Lookup(b)
	} // a longer name is no atom
	p := n
	if isTagSpace(s[p]) {
		p++ // readTagName consumes the space that ends the name
	}
	skip := func() bool { // skipWhiteSpace; false at the end of s
		for p < len(s) && isTagSpace(s[p]) {
			p++
		}
		return p < len(s)
	}
	if !skip() {
		return 0, 0, false
	}
	for {
		if s[p] == '>' {
			return p + 1, a, true
		}
		// readTagAttrKey: up to '=' (but not as its first byte),
		// whitespace, '/' or '>'.
		k := p
		for ; p < len(s); p++ {
			c := s[p]
			if c == '=' && p == k {
				continue
			}
			if c == '=' || isTagSpace(c) || c == '/' || c == '>' {
				break
			}
		}
		if p >= len(s) {
			return 0, 0, false
		}
		// readTagAttrVal.
		if !skip() {
			return 0, 0, false
		}
		switch c := s[p]; {
		case c == '/':
			p++
		case c != '=':
		default:
			p++
			if !skip() {
				return 0, 0, false
			}
			switch q := s[p]; q {
			case '>':
			case '"', '\'':
				k := strings.IndexByte(s[p+1:], q)
				if k < 0 {
					return 0, 0, false
				}
				p += 1 + k + 1
			default:
				for p++; p < len(s) && !isTagSpace(s[p]) && s[p] != '>'; p++ {
				}
				if p >= len(s) {
					return 0, 0, false
				}
				if isTagSpace(s[p]) {
					p++
				}
			}
		}
		if !skip() {
			return 0, 0, false
		}
	}
}
