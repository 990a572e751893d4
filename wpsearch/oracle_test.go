package wpsearch

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"catalogd/internal/testdb"
	"catalogd/internal/wptest"
)

// languages is where Debian's wordpress-l10n installs WordPress's
// translations.
const languages = "/usr/share/wordpress/wp-content/languages"

// newSite installs Debian's WordPress for a test (internal/wptest) with
// the product post type registered as WooCommerce registers it (public,
// searchable) and Debian's translations in its languages directory.
func newSite(t *testing.T) *wptest.Site {
	t.Helper()
	site := wptest.Install(t)
	plugin := "<?php\nadd_action( 'init', function () {\n" +
		"\tregister_post_type( 'product', array( 'public' => true, 'exclude_from_search' => false ) );\n} );\n"
	if err := os.WriteFile(filepath.Join(site.MUPlugins(), "product-type.php"), []byte(plugin), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(languages); err != nil {
		testdb.Lacking(t, "Debian's WordPress translations are not installed (.ci/run installs wordpress-l10n): %v", err)
	}
	if err := os.Symlink(languages, filepath.Join(site.Dir, "wp-content", "languages")); err != nil {
		t.Fatal(err)
	}
	return site
}

// oracle runs testdata/oracle.php on the site with the request and decodes
// what it prints into answer.
func oracle(t *testing.T, site *wptest.Site, request, answer any) {
	t.Helper()
	b, err := json.Marshal(request)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("testdata/oracle.php")
	if err != nil {
		t.Fatal(err)
	}
	out := site.PHP(t, "$input = "+phpQuote(in)+";\nrequire "+phpQuote(script)+";")
	if err := json.Unmarshal([]byte(out), answer); err != nil {
		t.Fatalf("the oracle's answer: %v\n%.2000s\nWordPress's debug log:\n%s", err, out, site.DebugLog())
	}
}

func phpQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// probed is what parse_search and parse_search_order make of a search.
type probed struct {
	S     string   `json:"s"`
	Terms []string `json:"terms"`
	Count int      `json:"count"`
	Order string   `json:"order"`
}

// orderOf classifies WordPress's relevance ORDER BY: the form and whether
// it ranks the whole search (the sentence).
func orderOf(sql string) (order, bool) {
	switch {
	case sql == "":
		return orderNone, false
	case sql == " DESC", strings.Contains(sql, "WHEN  THEN"):
		return orderBroken, false
	case strings.HasPrefix(sql, "(CASE "):
		return orderCase, strings.Contains(sql, " THEN 1 ")
	}
	return orderTitle, false
}

// TestParseAgreesWithWordPress runs WordPress's own parse_search and
// parse_search_order on named and generated searches and compares the
// terms, their count and the form of the relevance order with Parse's.
func TestParseAgreesWithWordPress(t *testing.T) {
	site := newSite(t)
	searches := []string{"red tent", `"red tent" -blue`, "-red", "a b c", "THE Tent", "0", "0 tents", "\r\n", "tent\v-red x",
		"tent\f-red x", "tent\u00a0-red x", `"" tent`, `" a "`, `'tent'`, `\"tent\"`, "İS tent", "ÌS tent", "a1 a2 a3 a4 a5 a6 a7 a8 a9",
		"a1 a2 a3 a4 a5 a6 a7 a8 a9 a10", "-a1 a2 a3 a4 a5 a6 a7 a8 a9 a10", "a1 a2 a3 a4 a5 a6 a7 -a8", "100% _x_ \\"}
	searches = append(searches, randomSearches(3000)...)
	var got []probed
	oracle(t, site, map[string]any{"op": "probe", "searches": searches}, &got)
	if len(got) != len(searches) {
		t.Fatalf("%d answers to %d searches", len(got), len(searches))
	}
	english := Stopwords("")
	failed := 0
	for i, s := range searches {
		p, q := got[i], Parse(s, english)
		wantOrder, sentence := orderOf(p.Order)
		if p.S == "" || p.S == "0" {
			// get_posts adds no relevance order for PHP's empty() search.
			wantOrder, sentence = orderNone, false
		}
		if p.S != q.S || !slices.Equal(p.Terms, terms(q)) || p.Count != q.Count || wantOrder != q.order ||
			sentence != (q.Sentence != nil && q.order == orderCase) {
			if failed++; failed <= 20 {
				t.Errorf("%q: WordPress reads %q %q (%d pieces), orders by %q;\nParse reads %q %q (%d), order %d, sentence %q",
					s, p.S, p.Terms, p.Count, p.Order, q.S, terms(q), q.Count, q.order, q.Sentence)
			}
		}
	}
}

// randomSearches are n searches of WordPress's separators, quotes,
// dashes, stopwords, single letters and wildcards.
func randomSearches(n int) []string {
	pieces := []string{"tent", "Red", "é", "ß", "İ", "THE", "the", "of", "Www", "a", "Z", "-", "0", "00", " ", " ", "\t", ",", "+",
		`"`, `"`, "'", "\\", "%", "_", "\r", "\n", "\v", "x-y", "--", "😀", "e\u0301", ""}
	out := make([]string, 0, n)
	seed := uint64(7)
	next := func(k int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int((seed >> 33) % uint64(k))
	}
	for range n {
		var b strings.Builder
		for range next(14) {
			b.WriteString(pieces[next(len(pieces))])
		}
		out = append(out, b.String())
	}
	return out
}

// TestStopwordsAreWordPresss: for every locale Debian's wordpress-l10n
// ships, and English, WordPress's get_search_stopwords gives what
// Stopwords does.
func TestStopwordsAreWordPresss(t *testing.T) {
	site := newSite(t)
	locales := []string{"en_US"}
	entries, err := os.ReadDir(languages)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if l, ok := strings.CutSuffix(e.Name(), ".mo"); ok && !strings.Contains(l, "-") {
			locales = append(locales, l)
		}
	}
	var got map[string][]string
	oracle(t, site, map[string]any{"op": "stopwords", "locales": locales}, &got)
	translated := 0
	for _, l := range locales {
		want := Stopwords(l)
		if !slices.Equal(got[l], want) {
			t.Errorf("%s: WordPress's stopwords %q, Stopwords %q", l, got[l], want)
		}
		if !slices.Equal(want, Stopwords("")) {
			translated++
		}
	}
	if len(locales) < 20 || translated < 10 {
		t.Errorf("%d locales, %d translated: the list is off", len(locales), translated)
	}
}

// TestMBLowerIsPHPs compares mbLower with PHP's mb_strtolower, which
// WordPress lowers a term with before looking it up in the stopwords, on
// every code point.
func TestMBLowerIsPHPs(t *testing.T) {
	php, err := exec.LookPath("php")
	if err != nil {
		testdb.Lacking(t, "php is not installed (.ci/run installs Debian's php-cli)")
	}
	// Every character, lowered one by one, separated by a line feed.
	const code = `for ($c = 0; $c <= 0x10FFFF; $c++) { if ($c >= 0xD800 && $c < 0xE000) continue; ` +
		`echo mb_strtolower(mb_chr($c, "UTF-8"), "UTF-8"), "\n"; }`
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, php, "-r", code).Output()
	if err != nil {
		t.Fatalf("php: %v", err)
	}
	lowered := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	i, failed := 0, 0
	for c := rune(0); c <= utf8.MaxRune; c++ {
		if c >= 0xD800 && c < 0xE000 {
			continue
		}
		if i >= len(lowered) {
			t.Fatalf("PHP lowered %d characters", len(lowered))
		}
		want := lowered[i]
		if c == '\n' {
			// Its own line: the split leaves two empty ones.
			want, i = "\n", i+1
		}
		if got := mbLower(string(c)); got != want && failed < 20 {
			failed++
			t.Errorf("%U: mbLower %q, mb_strtolower %q", c, got, want)
		}
		i++
	}
}
