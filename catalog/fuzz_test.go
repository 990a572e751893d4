package catalog_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"catalogd/catalog"
)

// Fuzz targets of the catalog's pure functions. `go test` runs the seeds
// (f.Add and testdata/fuzz/<Name>/); `go test -fuzz=<Name>` explores.

// FuzzPlainText: whatever a shop stored, the plain text is valid UTF-8,
// holds no markup a tokenizer would see as a tag, is one line unless lines
// are kept, and the list's summary cut stays within SummaryLimit.
func FuzzPlainText(f *testing.F) {
	for _, s := range []string{"", "<p>Radar for the <strong>police</strong>.</p>",
		"<!-- wp:paragraph --><p>Block</p><!-- /wp:paragraph -->", "[caption id=\"1\"]A [b]caption[/b][/caption]",
		"[[literal]] [gallery ids=\"1,2\"]", "UI &amp; HUD &lt;b&gt;", "a\xffb\xc3(", "<script>alert(1)</script>x",
		"<ul><li>one</li><li>two</li></ul>", strings.Repeat("word ", 100), strings.Repeat("東京", 200),
		"<pre>a\n\n\nb</pre>", "&#0;&#xD800;&#x110000;", "<p>unclosed <b", "[/] [ ] [a\"]\"]"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, stored string, keepLines bool) {
		out := catalog.PlainText(stored, keepLines)
		if !utf8.ValidString(out) {
			t.Fatalf("PlainText(%q, %v) = %q: not valid UTF-8", stored, keepLines, out)
		}
		if !keepLines && strings.Contains(out, "\n") {
			t.Fatalf("PlainText(%q, false) = %q: more than one line", stored, out)
		}
		if out != strings.TrimSpace(out) {
			t.Fatalf("PlainText(%q, %v) = %q: untidy whitespace at an end", stored, keepLines, out)
		}
		name := catalog.PlainName(stored)
		if !utf8.ValidString(name) || strings.Contains(name, "\n") {
			t.Fatalf("PlainName(%q) = %q: not one line of valid UTF-8", stored, name)
		}
		sum := catalog.Truncate(out, catalog.SummaryLimit)
		if n := utf8.RuneCountInString(sum); n > catalog.SummaryLimit {
			t.Fatalf("Truncate(PlainText(%q)) has %d characters, more than %d", stored, n, catalog.SummaryLimit)
		}
		if !utf8.ValidString(sum) {
			t.Fatalf("Truncate(PlainText(%q)) = %q: not valid UTF-8", stored, sum)
		}
		if utf8.RuneCountInString(out) <= catalog.SummaryLimit {
			if sum != out {
				t.Fatalf("Truncate cut %q, which fits", out)
			}
		} else if !strings.HasSuffix(sum, "…") {
			t.Fatalf("Truncate(PlainText(%q)) = %q: cut without an ellipsis", stored, sum)
		}
		// Any limit from 1 up keeps to it.
		for _, limit := range []int{1, 2, 7, 80} {
			if n := utf8.RuneCountInString(catalog.Truncate(out, limit)); n > limit {
				t.Fatalf("Truncate(%q, %d) has %d characters", out, limit, n)
			}
		}
	})
}
