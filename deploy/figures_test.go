package deploy

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// figureHomes are the documents that state measured start-up and memory
// figures: the two make bench writes, and the one that reads them. Every
// other document links there, so that a new measurement leaves no old
// figure behind (the README once said 2.7 s to ready at 100k while
// docs/operations.md said 4.7 s).
var figureHomes = []string{"benchmarks.md", "benchmarks-1m.md", "performance.md"}

// TestDocFiguresHaveOneHome: outside figureHomes, no statement gives a
// time to ready or a start-up time (a number of s or ms), or an RSS (a
// number of KB, MB or GB). Settings and examples in code (`last purge 0s
// ago`) are not measurements and do not count.
func TestDocFiguresHaveOneHome(t *testing.T) {
	docs, _ := filepath.Glob("../docs/*.md")
	checked := 0
	for _, f := range append([]string{"../README.md"}, docs...) {
		if slices.Contains(figureHomes, filepath.Base(f)) {
			continue
		}
		passages := markdownPassages(t, f)
		for i := 0; i < len(passages); i++ {
			checked++
			p := passages[i]
			if !strings.HasPrefix(p.text, "|") {
				reportFigures(t, p.where, p.text)
				continue
			}
			// A table: each row's cells read under its header's.
			table := []passage{p}
			for ; i+1 < len(passages) && passages[i+1].line == passages[i].line+1 && strings.HasPrefix(passages[i+1].text, "|"); i++ {
				table = append(table, passages[i+1])
			}
			for r := 2; r < len(table); r++ {
				reportFigures(t, table[r].where, tableStatements(table[0].text, table[r].text)...)
			}
		}
	}
	if checked < 100 {
		t.Errorf("read %d passages: the parser is off", checked)
	}
}

// A start-up time or an RSS is caught in a sentence and in a table, and a
// setting, a code span and another figure are not.
func TestDocFigureCheckCatches(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"MariaDB's pool is 128 MB: with it catalogd was ready in about 4.7 s at 100k. See the benchmarks.", 1},
		{"| products | start → ready | RSS, every list page cached |", 0},
		{"| 100 000 | 2.7 s; 2.1 s with a buffer pool holding the shop | 311 MB |", 0}, // a row alone has no header
		{"Start-up took 0.21 s at 10k; a list page 0.4 ms.", 1},
		{"RSS with every list page cached: 258 → 311 MB.", 1},
		{"`/readyz` says `purge varnish 127.0.0.1:6091: ok, last purge 0s ago`.", 0},
		{"catalogd's start-up, and the safety re-read every 10 minutes, are one scan.", 0},
		{"A purge arrived 123–124 ms after its commit; the heap grows by 16 MB.", 0},
		{"Until it is ready (`/readyz`), requests get 503 with `Retry-After: 1`.", 0},
	} {
		if got := measuredFigures(c.text); len(got) != c.want {
			t.Errorf("%q: figures %q, want %d", c.text, got, c.want)
		}
	}
	// In a table each cell is read under its column's header.
	var got []string
	for _, st := range tableStatements("| products | start → ready | RSS, every list page cached |", "| 10 000 | 0.21 s | 56 MB |") {
		got = append(got, measuredFigures(st)...)
	}
	if len(got) != 2 {
		t.Errorf("table: figures %q, want the time to ready and the RSS", got)
	}
}

var (
	timeFigureRE  = regexp.MustCompile(`(?:^|[^\w.])\d+(?:[.,]\d+)?(?:\s?[–-]\s?\d+(?:[.,]\d+)?)?\s?(?:m?s|seconds?)\b`)
	sizeFigureRE  = regexp.MustCompile(`(?:^|[^\w.])\d+(?:[.,]\d+)?\s?(?:[KMG]B|[KMG]iB)\b`)
	startupRE     = regexp.MustCompile(`(?i)\bready\b|\bstart-?up\b`)
	rssRE         = regexp.MustCompile(`\bRSS\b`)
	statementEnds = regexp.MustCompile(`[.;]\s+`)
)

// measuredFigures are the statements of a passage that give a start-up
// time or an RSS.
func measuredFigures(text string) []string {
	text = inlineCodeRE.ReplaceAllString(text, "")
	var found []string
	for _, s := range statementEnds.Split(text, -1) {
		if startupRE.MatchString(s) && timeFigureRE.MatchString(s) || rssRE.MatchString(s) && sizeFigureRE.MatchString(s) {
			found = append(found, s)
		}
	}
	return found
}

// tableStatements reads a markdown table's row as statements: each cell
// after its column's header ("start → ready: 0.21 s").
func tableStatements(header, row string) []string {
	cells := func(row string) []string {
		return strings.Split(strings.Trim(strings.TrimSpace(row), "|"), "|")
	}
	head := cells(header)
	var out []string
	for i, c := range cells(row) {
		if i < len(head) {
			out = append(out, strings.TrimSpace(head[i])+": "+strings.TrimSpace(c))
		}
	}
	return out
}

func reportFigures(t *testing.T, where string, statements ...string) {
	t.Helper()
	for _, st := range statements {
		for _, s := range measuredFigures(st) {
			t.Errorf("%s: %q: a measured figure; link to docs/benchmarks.md or docs/performance.md instead", where, s)
		}
	}
}
