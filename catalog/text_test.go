package catalog

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPlainText(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		keepLines bool
		want      string
	}{
		{"entities", "Radar &amp; plates &#8217;n&nbsp;more &hellip;", false, "Radar & plates ’n more …"},
		{"tags go, words stay apart", "<p>One</p><p>Two<br/>Three</p>", false, "One Two Three"},
		{"inline tags join", "Po<strong>lice</strong> job", false, "Police job"},
		{"block comments", "<!-- wp:paragraph --><p>Hello</p><!-- /wp:paragraph -->", false, "Hello"},
		{"paragraphs in a description", "<!-- wp:paragraph -->\n<p>One</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:paragraph -->\n<p>Two</p>\n<!-- /wp:paragraph -->", true, "One\n\nTwo"},
		{"lists become lines", "<p>Features:</p><ul>\n<li>Radar</li>\n<li>Plates</li>\n</ul><p>End</p>", true, "Features:\n\nRadar\nPlates\n\nEnd"},
		{"heading", "<h2>Install</h2><p>Drop it in</p>", true, "Install\n\nDrop it in"},
		{"classic editor newlines", "First paragraph\n\nSecond line one\nline two", true, "First paragraph\n\nSecond line one\nline two"},
		{"classic list layout", "<ul>\n\n<li>a</li>\n\n<li>b</li>\n</ul>", true, "a\nb"},
		{"block list items", "<!-- wp:list --><ul><!-- wp:list-item --><li>a</li><!-- /wp:list-item -->\n\n<!-- wp:list-item --><li>b\nc</li><!-- /wp:list-item --></ul><!-- /wp:list -->", true, "a\nb c"},
		{"newlines fold in a summary", "a\n\nb\nc", false, "a b c"},
		{"enclosing shortcode keeps its text", `[caption id="1" align="left"]A photo[/caption] of a car`, false, "A photo of a car"},
		{"self-closing and unknown shortcodes go", `Watch [youtube id="x"] now [gallery ids="1,2"/] [unknown-tag]!`, false, "Watch now !"},
		{"escaped shortcode is literal", `Use [[product id="1"]] to embed`, false, `Use [product id="1"] to embed`},
		{"quoted bracket in attribute", `[button text="Buy ]now"]Buy[/button]`, false, "Buy"},
		{"script and style are not text", "<style>p{}</style><p>Hi</p><script>alert(1)</script>", false, "Hi"},
		{"invalid UTF-8 is repaired", "caf\xe9 ok", false, "caf\uFFFD ok"},
		{"table cells", "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>", true, "a b\nc"},
		{"empty", "", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PlainText(tt.in, tt.keepLines)
			if got != tt.want {
				t.Errorf("PlainText(%q, %v)\n got %q\nwant %q", tt.in, tt.keepLines, got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("not valid UTF-8: %q", got)
			}
		})
	}
}

func TestPlainName(t *testing.T) {
	for in, want := range map[string]string{
		"UI &amp; HUD":                 "UI & HUD",
		"Police Radar & Plate Reader":  "Police Radar & Plate Reader",
		"Caf&eacute; Job &#8211; ESX ": "Café Job – ESX",
		"<b>Bold</b> name":             "Bold name",
		"[ESX] Garage [v2]":            "[ESX] Garage [v2]",
	} {
		if got := PlainName(in); got != want {
			t.Errorf("PlainName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTruncate(t *testing.T) {
	words := strings.Repeat("word ", 100) // 500 characters
	multibyte := strings.Repeat("Größe ", 80)
	giant := strings.Repeat("x", 400)
	tests := []struct {
		name string
		in   string
	}{
		{"ascii words", words},
		{"multibyte words", multibyte},
		{"one giant word", giant},
		{"cjk and emoji", strings.Repeat("日本語のテキスト🚓 ", 40)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Truncate(tt.in, SummaryLimit)
			n := utf8.RuneCountInString(got)
			if n > SummaryLimit {
				t.Errorf("%d characters, want at most %d", n, SummaryLimit)
			}
			if !strings.HasSuffix(got, "…") {
				t.Errorf("cut text does not end with …: %q", got)
			}
			body := strings.TrimSuffix(got, "…")
			if !strings.HasPrefix(tt.in, body) {
				t.Errorf("cut text is not a prefix of the input: %q", body)
			}
			if tt.name != "one giant word" && !strings.HasPrefix(tt.in[len(body):], " ") {
				t.Errorf("cut inside a word: …%q|%q", body[max(0, len(body)-10):], tt.in[len(body):len(body)+5])
			}
			if !utf8.ValidString(got) {
				t.Errorf("invalid UTF-8")
			}
		})
	}
	short := "A short summary."
	if got := Truncate(short, SummaryLimit); got != short {
		t.Errorf("a short text changed: %q", got)
	}
	exact := strings.Repeat("é", SummaryLimit)
	if got := Truncate(exact, SummaryLimit); got != exact {
		t.Errorf("a text of exactly the limit was cut")
	}
}

func TestFormatPrice(t *testing.T) {
	tests := []struct {
		in       string
		decimals int
		want     string
		ok       bool
	}{
		{"20", 2, "20.00", true},
		{"12.5", 2, "12.50", true},
		{"3.995", 2, "4.00", true},
		{"3.994", 2, "3.99", true},
		{"7.12345", 2, "7.12", true},
		{"7.125", 2, "7.13", true},
		{"0.005", 2, "0.01", true},
		{"0", 2, "0.00", true},
		{"19.99", 0, "20", true},
		{"12.5", 3, "12.500", true},
		{"1234567890123456789.995", 2, "1234567890123456790.00", true},
		{" 5 ", 2, "5.00", true},
		{"", 2, "", false},
		{"abc", 2, "", false},
		{"1e3", 2, "", false},
		{"1/3", 2, "", false},
		{"12,50", 2, "", false},
	}
	for _, tt := range tests {
		got, ok := FormatPrice(tt.in, tt.decimals)
		if got != tt.want || ok != tt.ok {
			t.Errorf("FormatPrice(%q, %d) = %q, %v; want %q, %v", tt.in, tt.decimals, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzPlainFastPath: text without markup, entities, carriage returns or
// NULs skips the tokenizer, and comes out exactly as through it.
func FuzzPlainFastPath(f *testing.F) {
	for _, s := range []string{"", " ", "Police Radar", "a\n\nb\nc", "  lead and trail  ", "[b]x[/b]", "東京\u00a0x",
		"tab\tand\u2003em space", "a\xffb", "\n\n\n"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, keepLines bool) {
		if strings.ContainsAny(s, "<&\r\x00") {
			return
		}
		valid := strings.ToValidUTF8(s, "\uFFFD")
		if fast, slow := plain(s, keepLines), tokenized(valid, keepLines); fast != slow {
			t.Fatalf("plain(%q, %v) = %q, through the tokenizer %q", s, keepLines, fast, slow)
		}
	})
}

// scannerSeeds are markup the scanner must split as the tokenizer does:
// tags with every attribute form, comments of every ending, bogus
// comments, doctypes, stray '<', entities, and the forms it leaves to the
// tokenizer.
var scannerSeeds = []string{
	"", "plain", "<p>One</p><p>Two<br/>Three</p>", "Po<strong>lice</strong> job",
	"<!-- wp:paragraph -->\n<p>One</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:paragraph -->\n<p>Two</p>\n<!-- /wp:paragraph -->",
	"<p>Features:</p><ul>\n<li>Radar</li>\n<li>Plates</li>\n</ul><p>End</p>", "First paragraph\n\nSecond line one\nline two",
	"<ul>\n\n<li>a</li>\n\n<li>b</li>\n</ul>", "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>",
	`<a href="x>y" title='a"b'>link</a> <img src=a.jpg alt=x/>after`, `<p class = "x" data-x = y hidden>t</p>`,
	`<div =a b=c/ d>x</DIV>`, `<P>Upper</P><BR>`, `<a b=">`, `<a b='`, `<a b=c`, `<a b`, `<a`, `<`, `a<`, `a < b`, `<<p>x`,
	"<!---->x", "<!-->x", "<!--->x", "<!-- a -- b --!>x", "<!-- a --!-->y", "<!-- a --!", "<!-- unclosed", "<!--",
	"<!DOCTYPE html>x", "<!doctype>y", "<!>z", "<!", "<!-", "<!-x>y", "<?xml version=1?>x", "</>x", "</ x>y", "</", "</3>z",
	"<script>alert(1)</script>x", "<style>p{}</style>y", "<template>t</template>z", "<title>T &amp; t</title>",
	"<textarea><b>x</b></textarea>", "</script>x", "a\r\nb", "a\x00b", "Radar &amp; plates &#8217;n&nbsp;more &hellip;",
	"&#0;&#xD800;&#x110000;", "&amp", "&notit; &notin;", "<p>unclosed <b", "<p\tclass=x\f>y</p\n>",
	"<h2>Install</h2><p>Drop it in</p>", "<li>a</li><li>b\nc</li>", "x<br>y<br />z", "<b>bold</b><i>it</i>",
	"<abcdefghijklmnopqrstuvwxyzabcdefghijkl>long</abcdefghijklmnopqrstuvwxyzabcdefghijkl>", "<p/>a<p / >b",
}

// checkScanned fails when the scanner gives a text that the tokenizer
// does not.
func checkScanned(t *testing.T, s string, keepLines bool) {
	t.Helper()
	s = strings.ToValidUTF8(s, "\uFFFD")
	if got, ok := scanned(s, keepLines); ok {
		if want := tokenized(s, keepLines); got != want {
			t.Fatalf("scanned(%q, %v) = %q, through the tokenizer %q", s, keepLines, got, want)
		}
	}
}

func TestScannedMatchesTokenizer(t *testing.T) {
	for _, s := range scannerSeeds {
		checkScanned(t, s, false)
		checkScanned(t, s, true)
	}
}

// TestScannedTakesProductMarkup: the texts products hold in practice do
// not go through the tokenizer, whose buffer costs 4 KB each.
func TestScannedTakesProductMarkup(t *testing.T) {
	for _, s := range []string{
		"<!-- wp:paragraph --><p>Description, with <strong>features</strong> &amp; steps.</p><!-- /wp:paragraph -->",
		`<p>A <a href="https://example.com/?a=1&amp;b=2" target="_blank" rel="noopener">link</a><br/>next</p>`,
		"<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n<img class=\"alignnone\" src=\"x.jpg\" alt=\"\" />",
	} {
		for _, keepLines := range []bool{false, true} {
			if _, ok := scanned(s, keepLines); !ok {
				t.Errorf("scanned(%q, %v) left it to the tokenizer", s, keepLines)
			}
		}
	}
}

// FuzzScannedMatchesTokenizer: whatever markup a shop stored, the
// scanner's text, when it gives one, is the tokenizer's.
func FuzzScannedMatchesTokenizer(f *testing.F) {
	for _, s := range scannerSeeds {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, keepLines bool) {
		checkScanned(t, s, keepLines)
	})
}
