package deploy

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"catalogd/internal/testdb"
)

// TestGoCommentsStateNoFiguresOrHistory: a product Go file's comments say
// what the code does and why, never what a run measured, which issue asked
// for it or what the code did before. Measured figures live in the
// figureHomes (docs/performance.md tells those a choice rests on), where a
// new measurement replaces them; history lives in the commit messages. A
// setting's value or a constant the code defines ("waits 250 ms", "100
// tags per request") is what the code does and passes. No allow-list: a
// comment the words misjudge is said otherwise. The product files are
// productGoFiles'.
func TestGoCommentsStateNoFiguresOrHistory(t *testing.T) {
	files := productGoFiles(t)
	if len(files) < 100 {
		t.Fatalf("found %d product Go files: the listing is off", len(files))
	}
	checked := 0
	for _, f := range files {
		for _, c := range goComments(t, f) {
			checked++
			for _, p := range commentProblems(c.text) {
				t.Errorf("%s:%d: %s: %q", f, c.lineOf(p.at), p.why, p.statement)
			}
		}
	}
	if checked < 1000 {
		t.Errorf("read %d comments: the parser is off", checked)
	}
}

// maxCommentLines is the longest comment block a product Go file keeps: a
// comment says why, briefly, and leaves the long story to the documents it
// points to (TestGoCommentPointersResolve).
const maxCommentLines = 12

// TestGoCommentBlocksAreShort: no comment block of a product Go file runs
// past maxCommentLines.
func TestGoCommentBlocksAreShort(t *testing.T) {
	for _, f := range productGoFiles(t) {
		for _, c := range goComments(t, f) {
			if c.span > maxCommentLines {
				t.Errorf("%s:%d: a comment of %d lines; say why in %d and point to the document that tells the rest",
					f, c.first, c.span, maxCommentLines)
			}
		}
	}
}

// Each rule catches what it is for, and lets the code's own constants,
// other systems' documented limits and the words' ordinary uses pass.
func TestGoCommentCheckCatches(t *testing.T) {
	for _, c := range []struct {
		text string
		want string // the rule that fires; "" for none
	}{
		// Measured figures.
		{"Two CRC-32s rather than SHA-256: BenchmarkBuild (20 000 products) took 87 ms without any hash, 166 ms with SHA-256.", "a measured figure"},
		{"The test's three replicas settle at 4.5–5.2 a minute.", "a measured figure"},
		{"At GOGC=50 the collector took a fifth of a cached hit's CPU.", "a measured figure"},
		{"2 minutes: at 100 000 products a read costs about 8 s.", "a measured figure"},
		{"a load's peak was 0.6 GB more", "a measured figure"},
		{"with 2 % of requests refused", "a measured figure"},
		{"a copy was some 20 KB of a list page's garbage", "a measured figure"},
		{"the read took 1.4 ms on a quiet machine", "a measured figure"},
		{"made their p99 3.6 ms", "a measured figure"},
		{"seen here in 1–2 of 52 operations under load", "a measured figure"},
		{"copying it cost the build a quarter of its time", "a measured figure"},
		{"the scan is a fifth of the table on the 100k shop", "a measured figure"},
		{"Start does not scan: a large shop's scan would hold the first load up.", ""},
		// The code's constants, settings and other systems' limits.
		{"Confirm waits 250 ms by default; the pace caps at 10 minutes.", ""},
		{"CloudflareMaxTags: Cloudflare allows 100 tags per request on every plan.", ""},
		{"nginx's default proxy_buffer_size is 4 KB, Varnish's http_resp_size 32 KB.", ""},
		{"0 is a quarter of MaxBytes; DefaultCacheConfig is ten minutes fresh and 64 MiB.", ""},
		{"a collection comes after every 16 MB allocated at the least (Floor)", ""},
		{"paceHalving is how long the pace takes to halve while no 429 comes: 2 minutes.", ""},
		{"an excerpt's text is far below 4 GiB", ""},
		// Issue numbers.
		{"the rows the poller reads (issue 24)", "an issue number"},
		{"Issue 13's table, one column per shop.", "an issue number"},
		{"as asked in #31", "an issue number"},
		{"WooCommerce drops it (https://github.com/woocommerce/woocommerce/issues/30052).", ""},
		// History.
		{"it purges by kind, as every start did before.", "history"},
		{"So Start no longer scans.", "history"},
		{"(a catalogd before 32) read it twice", "history"},
		{"The read used to run in one transaction.", "history"},
		{"what this session measured", "history"},
		{"Cloudflare allows 100 (30 before 2025).", "history"},
		{"previously the cache kept it", "history"},
		{"a product no longer published is dropped; the cache evicts what no longer fits.", ""},
		{"the key that is used to sign the request", ""},
		{"SHOW REPLICA STATUS before MySQL 8.0.22; every language, as before the plugin was set up.", ""},
	} {
		var got []string
		for _, p := range commentProblems(c.text) {
			got = append(got, p.why)
		}
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%q: flagged %q, want nothing", c.text, got)
		case c.want != "" && (len(got) == 0 || got[0] != c.want):
			t.Errorf("%q: flagged %q, want %q", c.text, got, c.want)
		}
	}
	// A doc comment's code block is code, and a URL a reference.
	text := goCommentText([]string{"// wpseed writes a shop:", "//", "//\twpseed -products 100000 # took 77 s", "// See https://example.org/issues/7."})
	if got := commentProblems(text.text); len(got) > 0 {
		t.Errorf("code block and URL flagged: %+v", got)
	}
	// A section pointer is read whole, for TestGoCommentPointersResolve.
	got := anchorPointers("the long story: docs/change-feed.md#when-a-save-can-be-missed, and README.md#two-commands.")
	if len(got) != 2 || got[0].file != "docs/change-feed.md" || got[0].section != "when-a-save-can-be-missed" ||
		got[1].file != "README.md" || got[1].section != "two-commands" {
		t.Errorf("section pointers: %+v", got)
	}
}

// productGoFiles are the Go files, tests left out, of the module's packages
// that catalogd's and catalogctl's binaries link and of every command under
// cmd/: what ships, and the tools make bench and make seed run. Test
// support (internal/testdb, wpfixture, proctest… and wpdb/internal/feedops)
// and deploy/ are not among them, but where a command links them. Paths are
// from the repository's root.
func productGoFiles(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		testdb.Lacking(t, "go is not installed: cannot list the packages")
	}
	const files = `{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}`
	list := func(args ...string) []string {
		cmd := exec.Command("go", append([]string{"list"}, args...)...)
		cmd.Dir = ".."
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
		}
		return strings.Fields(string(out))
	}
	linked := list("-deps", "-f", `{{if and .Module (eq .Module.Path "catalogd")}}`+files+`{{end}}`,
		"./cmd/catalogd", "./cmd/catalogctl")
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range append(linked, list("-f", files, "./cmd/...")...) {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			t.Fatal(err)
		}
		if rel = filepath.ToSlash(rel); !seen[rel] {
			seen[rel] = true
			out = append(out, rel)
		}
	}
	return out
}

// goComment is one comment group of a Go file as one line of text, its
// markers, directives and code blocks removed.
type goComment struct {
	text        string
	starts      []int // the offset in text where each line starts
	lines       []int // that line's number in the file
	first, span int   // the group's first line in the file, and its lines
}

// lineOf is the file's line of the text at offset.
func (c goComment) lineOf(offset int) int {
	n := 0
	for i, s := range c.starts {
		if s <= offset {
			n = c.lines[i]
		}
	}
	return n
}

// goComments are path's comment groups (path from the repository's root).
func goComments(t *testing.T, path string) []goComment {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join("..", path), nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var out []goComment
	for _, g := range f.Comments {
		var raw []string
		for _, c := range g.List {
			raw = append(raw, strings.Split(c.Text, "\n")...)
		}
		c := goCommentText(raw)
		c.first = fset.Position(g.Pos()).Line
		c.span = fset.Position(g.End()).Line - c.first + 1
		for i := range c.lines {
			c.lines[i] += c.first
		}
		out = append(out, c)
	}
	return out
}

// goCommentText joins a comment group's lines, each with the number of
// lines before it: a directive (//go:generate) and a doc comment's code
// block (a line indented by a tab) are left out.
func goCommentText(raw []string) goComment {
	var c goComment
	for i, l := range raw {
		l = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSuffix(strings.TrimSpace(l), "*/"), "/*"), "//")
		if strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "go:") || strings.HasPrefix(l, "line ") {
			continue
		}
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		c.starts = append(c.starts, len(c.text))
		c.lines = append(c.lines, i)
		c.text += l + " "
	}
	return c
}

// commentProblem is a statement of a comment that breaks a rule.
type commentProblem struct {
	why       string // "a measured figure", "an issue number", "history"
	statement string
	at        int // its offset in the comment's text
}

var (
	// A number ("87", "0.6", "100 000") and a spread ("85–118", "0.5 to 0.8").
	numberPat = `\d+(?:[  ]\d{3})*(?:[.,]\d+)?`
	spreadPat = numberPat + `\s?(?:[–-]|to)\s?` + numberPat
	// The unit of a quantity: a time, a size, a share, a rate, a multiple.
	unitPat = `\s?(?:(?:ns|µs|μs|us|ms|s|secs?|seconds?|minutes?|mins?|hours?|h|days?|B|bytes?|[KMGT]i?B|percent|x)\b|%|×` +
		`|\s(?:a|per) (?:second|minute|hour)\b|\stimes\b)`
	notInWord = `(?:^|[^\w.-])` // "CRC-32s" and "v1.2s" are names

	// A quantity ("87 ms", "0.6 GB", "2 %", "4.5–5.2 a minute", "60
	// times"), a magnitude ("milliseconds") or a share ("a fifth", "twice")…
	quantityRE = regexp.MustCompile(notInWord + `(?:` + spreadPat + `|` + numberPat + `)` + unitPat +
		`|\b(?:milli|micro|nano)seconds\b` +
		`|(?i:\b(?:a|one) (?:half|third|quarter|fifth|tenth|hundredth)\b|\btwo[- ]thirds\b|\btwice\b)`)
	// …is a measured figure beside a word that says a run measured it: a
	// verb of cost or measurement, a benchmark, a percentile, a machine, the
	// resources a run is measured in.
	measuredRE = regexp.MustCompile(`\b(?:took|costs?|costing|measured|(?:was|were|been) seen|seen here|showed|peak|peaked|went from|fell|rose|grew to)\b` +
		`|\bBenchmark[A-Z]\w*|\bp(?:50|95|99)\b|\b\d-core\b|\bquiet machine\b|\bunder load\b|\bCPU\b|\bRSS\b|\bgarbage\b|\bmake bench\b` +
		`|\bat \d[\d  ]* (?:categories|posts|rows|requests|tags)\b`)
	// These are measured figures wherever they stand: a benchmark shop ("at
	// 100 000 products", "the 100k shop", "a million products", "a 100
	// 000-product shop"), an estimate or a spread of a quantity ("about 8
	// s", "~20 KB", "85–118 ms"), a count or share of runs ("1–2 of 52
	// operations", "2 % of requests").
	figureRE = regexp.MustCompile(`(?i)\b(?:\d{1,3}(?:[  ]\d{3})+|\d{4,}|a million|a hundred thousand)(?: products\b|-product\b)` +
		`|\b\d+k (?:shop|build|load|products)\b|\b(?:at|on) \d+k\b` +
		`|(?:\babout|\bsome|\broughly|\baround|\bnearly|\balmost|~|≈)\s?` + numberPat + unitPat +
		`|` + notInWord + spreadPat + unitPat +
		`|\b\d+(?:\s?[–-]\s?\d+)? (?:of|in) (?:the )?\d+ (?:runs|operations|lines|requests|tries|samples)\b` +
		`|` + numberPat + `\s?(?:%|percent) of (?:the |its |their )?(?:requests|responses|runs|operations|lines|rows|posts|products|hits|loads|reads|scans)\b`)

	// An issue: the word, or "#24".
	issueRE = regexp.MustCompile(`(?i)\bissues?\b|(?:^|\s|\()#\d+\b`)

	// History: words that tell what the code did or when it changed.
	historyRE = regexp.MustCompile(`(?i)\b(?:previously|formerly|originally|nowadays|hitherto|any ?more)\b` +
		`|\b(?:this|that|the last|the previous) session\b|\bsession before\b|\buntil (?:now|recently)\b|\bin the past\b` +
		`|\b(?:as|than|did|had|was|were) before(?:[.,;:)]|$)|\bbefore (?:19|20)\d\d\b|\bcatalogd before\b` +
		`|\bthe old (?:code|way|version|behaviou?r|implementation)\b|\bnow that\b|\bwe (?:found|measured|saw|tried)\b`)
	// "used to" but after "is", and "X no longer" where X is a name (a
	// function's, catalogd's), not a row's or a connection's.
	usedToRE    = regexp.MustCompile(`(?i)(\w+) used to\b`)
	noLongerRE  = regexp.MustCompile(`\b(?:[A-Z]\w*|catalogd|the code) no longer\b`)
	statementRE = regexp.MustCompile(`[.;:!?]\s+|\s[—–]\s`)
)

// commentProblems are the statements of a comment's text that give a
// measured figure, name an issue or tell the code's history. A URL and a
// code span are references, not statements, and are left out.
func commentProblems(text string) []commentProblem {
	text = urlRE.ReplaceAllStringFunc(text, blank)
	text = inlineCodeRE.ReplaceAllStringFunc(text, blank)
	var out []commentProblem
	text += ". " // the last statement ends too
	at := 0
	for _, span := range statementRE.FindAllStringIndex(text, -1) {
		s, start := text[at:span[0]], at
		at = span[1]
		if strings.TrimSpace(s) == "" {
			continue
		}
		why := ""
		switch {
		case issueRE.MatchString(s):
			why = "an issue number"
		case historyRE.MatchString(s) || noLongerRE.MatchString(s) || usedTo(s):
			why = "history"
		case figureRE.MatchString(s), quantityRE.MatchString(s) && measuredRE.MatchString(s):
			why = "a measured figure"
		}
		if why != "" {
			out = append(out, commentProblem{why: why, statement: strings.TrimSpace(s), at: start})
		}
	}
	return out
}

var urlRE = regexp.MustCompile(`\bhttps?://\S+`)

// blank keeps a span's length (offsets stay the text's) but not its words.
func blank(s string) string { return strings.Repeat(" ", len(s)) }

// usedTo: "used to" as history ("the read used to run"), not as purpose
// after a form of "be" ("a key that is used to sign").
func usedTo(s string) bool {
	for _, m := range usedToRE.FindAllStringSubmatch(s, -1) {
		switch strings.ToLower(m[1]) {
		case "is", "are", "be", "been", "being", "was", "were", "get", "gets", "got":
		default:
			return true
		}
	}
	return false
}

// TestGoCommentPointersResolve: what a product Go comment sends a reader
// to is there: a repository path (wpdb/poll/scan.go), a document's section
// (docs/change-feed.md#polling: a heading the document has), and the
// pointers TestDocPointersResolve reads in the documents' prose. A comment
// shrunk to its why leads to the long story.
func TestGoCommentPointersResolve(t *testing.T) {
	r := newPointerResolver(t, "..")
	checked := 0
	for _, f := range productGoFiles(t) {
		for _, c := range goComments(t, f) {
			p := passage{where: f, dir: filepath.Join("..", filepath.Dir(f)), text: c.text}
			for _, ptr := range append(r.pointers(p), anchorPointers(c.text)...) {
				checked++
				if problem := r.resolve(t, p.dir, ptr); problem != "" {
					t.Errorf("%s:%d: %q: %s", f, c.lineOf(strings.Index(c.text, ptr.text)), ptr.text, problem)
				}
			}
		}
	}
	t.Logf("checked %d pointers", checked)
	if checked < 50 {
		t.Errorf("checked %d pointers: the parser is off", checked)
	}
}

// anchorRE is a document's section as a link fragment: docs/x.md#heading.
var anchorRE = regexp.MustCompile(`((?:[\w.-]+/)*[\w.-]+\.md)#([\w-]+)`)

// anchorPointers are text's pointers to a document's section by fragment
// (a fragment is its own anchorOf).
func anchorPointers(text string) []pointer {
	var out []pointer
	for _, m := range anchorRE.FindAllStringSubmatch(text, -1) {
		out = append(out, pointer{text: m[0], file: m[1], section: m[2]})
	}
	return out
}
