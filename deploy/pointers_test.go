package deploy

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocPointersResolve: what the README, docs/ and the shipped files'
// comments send a reader to is there. Markdown links are
// TestMarkdownLinksStayInTheRepository's; this checks the pointers written
// in prose and comments:
//   - a repository path (`deploy/nginx/site.conf`, wpdb/poll*.go,
//     ../kustomization.yaml) names a file or directory that exists;
//   - "see X", X a file's name, names one in the same directory or from the
//     repository's root;
//   - "X beside this file" (or "beside this one") names a file in the same
//     directory;
//   - "the README's 'Y'", "the README's Y section" and "operations.md's
//     'Y'" name a heading of that document.
func TestDocPointersResolve(t *testing.T) {
	r := newPointerResolver(t, "..")
	var passages []passage
	docs, _ := filepath.Glob("../docs/*.md")
	for _, f := range append([]string{"../README.md"}, docs...) {
		passages = append(passages, markdownPassages(t, f)...)
	}
	for _, f := range shippedFiles(t) {
		passages = append(passages, commentPassages(t, f)...)
	}
	checked := 0
	for _, p := range passages {
		for _, ptr := range r.pointers(p) {
			checked++
			if problem := r.resolve(t, p.dir, ptr); problem != "" {
				t.Errorf("%s: %q: %s", p.where, ptr.text, problem)
			}
		}
	}
	t.Logf("checked %d pointers", checked)
	if checked < 50 {
		t.Errorf("checked %d pointers: the parser is off", checked)
	}
}

// Each kind of pointer that leads nowhere is caught, and each that leads
// somewhere passes, wherever the line breaks fall.
func TestDocPointerCheckCatches(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"README.md", "docs/ops.md", "deploy/varnish/site.vcl", "deploy/varnish/site.conf",
		"wpdb/poll.go", "wpdb/poll_scan.go"} {
		write(t, filepath.Join(root, f), "# Title\n\n## Seeing the shop's changes\n")
	}
	r := newPointerResolver(t, root)
	r.topDirs = []string{"deploy", "docs", "wpdb"} // what a clone of it would track
	r.exts = []string{"conf", "go", "md", "vcl"}
	deployDir, docsDir := filepath.Join(root, "deploy/varnish"), filepath.Join(root, "docs")
	for _, c := range []struct {
		dir, text string
		want      []string // the problems, in order; "" for a pointer that resolves
	}{
		{deployDir, "See README.md beside this file for the start parameters.", []string{"no deploy/varnish/README.md"}},
		{deployDir, "the Varnish setup: see site.conf beside this one, and docs/ops.md.", []string{"", ""}},
		{deployDir, "the README's Deployment section shows the command", []string{"README.md has no heading #deployment"}},
		{docsDir, `(see the README's "Seeing the shop's changes")`, []string{""}},
		{docsDir, "(see the README's 'CDN and proxy caches')", []string{"README.md has no heading #cdn-and-proxy-caches"}},
		{docsDir, "ops.md's 'Seeing the shop's changes', and ops.md's \"Varnish\"", []string{"", "docs/ops.md has no heading #varnish"}},
		{docsDir, "The code is in `wpdb/poll*.go` and `wpdb/binlog*.go`; see `Caddyfile`.",
			[]string{"", "no such file", "no Caddyfile here or at the repository's root"}},
		{deployDir, "copy it to /etc/varnish/site.vcl (see ../varnish/site.vcl and ../nginx/x.conf)", []string{"", "no such file"}},
		{docsDir, "e.g. see below; the catalog/ and api/x are not paths here, nor http://x/deploy/y", nil},
	} {
		var got []string
		for _, ptr := range r.pointers(passage{dir: c.dir, text: c.text}) {
			got = append(got, r.resolve(t, c.dir, ptr))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: problems %q, want %q", c.text, got, c.want)
		}
	}

	// A pointer wrapped over two lines of a comment or a paragraph is read
	// whole.
	write(t, filepath.Join(deployDir, "wrapped.vcl"), "vcl 4.1;\n# Needs xkey. See README.md beside\n#   this file.\nimport std;\n")
	write(t, filepath.Join(deployDir, "wrapped.sql"), "-- the README's Deployment\n-- section shows it\nSELECT 1;\n")
	write(t, filepath.Join(docsDir, "wrapped.md"), "# T\n\nSee the README's\n\"Seeing the shop's changes\" and `docs/no.md`.\n\n```\ndocs/no.md in a block\n```\n")
	var got []string
	passages := append(commentPassages(t, filepath.Join(deployDir, "wrapped.vcl")), commentPassages(t, filepath.Join(deployDir, "wrapped.sql"))...)
	for _, p := range append(passages, markdownPassages(t, filepath.Join(docsDir, "wrapped.md"))...) {
		for _, ptr := range r.pointers(p) {
			got = append(got, r.resolve(t, p.dir, ptr))
		}
	}
	if want := []string{"no deploy/varnish/README.md", "README.md has no heading #deployment", "", "no such file"}; !slices.Equal(got, want) {
		t.Errorf("wrapped pointers: problems %q, want %q", got, want)
	}
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pointer is one pointer found in a passage: a path, or a document's
// section.
type pointer struct {
	text    string // as written
	file    string // the file or directory pointed to
	beside  bool   // in the passage's own directory, no other
	see     bool   // a name after "see": here or from the root
	section string // a heading of file, for a section pointer
}

type pointerResolver struct {
	root    string
	topDirs []string // the repository's top-level directories: a path starting with one is the repository's
	exts    []string // the extensions its files have: "see X.ext" names a file
	anchors anchorIndex
}

func newPointerResolver(t *testing.T, root string) *pointerResolver {
	t.Helper()
	r := &pointerResolver{root: root, anchors: anchorIndex{}}
	for _, f := range trackedFiles(t) {
		if dir, _, ok := strings.Cut(f, "/"); ok && !slices.Contains(r.topDirs, dir) {
			r.topDirs = append(r.topDirs, dir)
		}
		if ext := path.Ext(f); ext != "" && !slices.Contains(r.exts, ext[1:]) {
			r.exts = append(r.exts, ext[1:])
		}
	}
	return r
}

var (
	// A path starts the passage or follows a space, a bracket, a quote or
	// a backquote; it is not the tail of a URL.
	pathTokenRE = regexp.MustCompile("(?:^|[\\s(\\[`\"'])((?:\\.\\./)*[\\w.-]+/[\\w.*/-]*)")
	seeRE       = regexp.MustCompile("\\b[Ss]ee\\s+(?:the\\s+)?[`\"]?([\\w.-]+)")
	besideRE    = regexp.MustCompile(`([\w./-]+)\s+beside\s+this\s+(?:file|one)\b`)
	sectionRE   = regexp.MustCompile(`\b(README(?:\.md)?|[\w./-]+\.md)(?:'s|’s)\s+(?:"([^"]+)"|“([^”]+)”|'(.+?)'(?:[\s.,;:)]|$)|‘([^’]+)’|([\w' -]+?)\s+section\b)`)
)

// pointers are the pointers of one passage, in the order written.
func (r *pointerResolver) pointers(p passage) []pointer {
	type found struct {
		at int
		pointer
	}
	var all []found
	for _, m := range pathTokenRE.FindAllStringSubmatchIndex(p.text, -1) {
		tok := strings.TrimRight(p.text[m[2]:m[3]], ".,:;")
		if first, _, _ := strings.Cut(tok, "/"); first == ".." || slices.Contains(r.topDirs, first) {
			all = append(all, found{m[2], pointer{text: tok, file: tok}})
		}
	}
	for _, m := range seeRE.FindAllStringSubmatchIndex(p.text, -1) {
		tok := strings.TrimRight(p.text[m[2]:m[3]], ".,:;")
		ext := strings.TrimPrefix(path.Ext(tok), ".")
		if tok == "README" || tok == "Caddyfile" || tok == "Dockerfile" || tok == "Makefile" || ext != "" && slices.Contains(r.exts, ext) {
			// "see X beside this file" is the beside pointer's, "see the
			// README's 'Y'" the section pointer's.
			rest := p.text[m[3]:]
			if !strings.HasPrefix(rest, " beside this") && !strings.HasPrefix(rest, "'s") && !strings.HasPrefix(rest, "’s") {
				all = append(all, found{m[2], pointer{text: "see " + tok, file: tok, see: true}})
			}
		}
	}
	for _, m := range besideRE.FindAllStringSubmatchIndex(p.text, -1) {
		all = append(all, found{m[0], pointer{text: p.text[m[0]:m[1]], file: p.text[m[2]:m[3]], beside: true}})
	}
	for _, m := range sectionRE.FindAllStringSubmatchIndex(p.text, -1) {
		ptr := pointer{text: p.text[m[0]:m[1]], file: p.text[m[2]:m[3]]}
		for g := 2; g <= 6; g++ {
			if m[2*g] >= 0 {
				ptr.section = p.text[m[2*g]:m[2*g+1]]
			}
		}
		all = append(all, found{m[0], ptr})
	}
	slices.SortStableFunc(all, func(a, b found) int { return a.at - b.at })
	out := make([]pointer, len(all))
	for i, f := range all {
		out[i] = f.pointer
	}
	return out
}

// resolve says what is wrong with a pointer written in dir, or "".
func (r *pointerResolver) resolve(t *testing.T, dir string, p pointer) string {
	t.Helper()
	rel := func(f string) string {
		root, _ := filepath.Abs(r.root)
		abs, _ := filepath.Abs(f)
		s, _ := filepath.Rel(root, abs)
		return filepath.ToSlash(s)
	}
	switch {
	case p.beside:
		if f := filepath.Join(dir, p.file); !present(f) && !present(f+".md") {
			return "no " + rel(f)
		}
	case p.see:
		name := p.file
		if name == "README" {
			name = "README.md"
		}
		if !present(filepath.Join(dir, name)) && !present(filepath.Join(r.root, name)) {
			return "no " + p.file + " here or at the repository's root"
		}
	case p.section != "":
		doc := r.document(dir, p.file)
		if doc == "" {
			return "no document " + p.file
		}
		if a := anchorOf(p.section); !r.anchors.of(t, doc)[a] {
			return rel(doc) + " has no heading #" + a
		}
	default:
		base := r.root
		if strings.HasPrefix(p.file, "../") {
			base = dir
		}
		if !present(filepath.Join(base, p.file)) {
			return "no such file"
		}
	}
	return ""
}

// document is the markdown file a section pointer names: the README, or a
// document beside the passage, at the root or in docs/.
func (r *pointerResolver) document(dir, name string) string {
	if name == "README" {
		name = "README.md"
	}
	for _, f := range []string{filepath.Join(dir, name), filepath.Join(r.root, name), filepath.Join(r.root, "docs", name)} {
		if present(f) {
			return f
		}
	}
	return ""
}

// present reports whether f, or a file its glob matches, exists.
func present(f string) bool {
	if strings.ContainsAny(f, "*?[") {
		m, _ := filepath.Glob(f)
		return len(m) > 0
	}
	_, err := os.Stat(f)
	return err == nil
}
