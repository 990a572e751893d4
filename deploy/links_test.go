package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMarkdownLinksStayInTheRepository: a clone is all a reader has, so
// every link of the README and docs/ is relative, names a file or
// directory that exists, and, with a #fragment, a heading of that file.
// Web addresses in prose are fine; links to them are not.
func TestMarkdownLinksStayInTheRepository(t *testing.T) {
	docs, _ := filepath.Glob("../docs/*.md")
	files := append([]string{"../README.md"}, docs...)
	if len(files) < 5 {
		t.Fatalf("found %v: the glob is off", files)
	}
	checked, anchors := 0, anchorIndex{}
	for _, f := range files {
		for _, l := range markdownLinks(t, f) {
			checked++
			where := strings.TrimPrefix(f, "../") + ": " + l
			if regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:|^//`).MatchString(l) {
				t.Errorf("%s leaves the repository", where)
				continue
			}
			path, frag, _ := strings.Cut(l, "#")
			target := f
			if path != "" {
				target = filepath.Join(filepath.Dir(f), path)
				if rel, err := filepath.Rel("..", target); err != nil || strings.HasPrefix(rel, "..") {
					t.Errorf("%s points outside the repository", where)
					continue
				}
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: no such file", where)
					continue
				}
			}
			if frag != "" && strings.HasSuffix(target, ".md") && !anchors.of(t, target)[frag] {
				t.Errorf("%s: %s has no heading #%s", where, strings.TrimPrefix(target, "../"), frag)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d links: the parser is off", checked)
	}
}

// A link that leaves the repository, a missing file and a missing heading
// are each caught.
func TestMarkdownLinkCheckCatches(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "doc.md")
	text := "# Title\n\nSee [spec](../shared/spec/catalog-api.md), [web](https://example.com/x), " +
		"[ok](#title), [bad](#nope) and `[not a link](x)`.\n\n```\n[in a block](y)\n```\n"
	if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(markdownLinks(t, doc), " ")
	if want := "../shared/spec/catalog-api.md https://example.com/x #title #nope"; got != want {
		t.Errorf("links %q, want %q", got, want)
	}
	if a := headingAnchors(t, doc); !a["title"] || a["nope"] {
		t.Errorf("anchors %v", a)
	}
}

var (
	mdLinkRE   = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpanRE = regexp.MustCompile("`[^`]*`")
)

// markdownLinks are the inline links' targets, outside code.
func markdownLinks(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var links []string
	fenced := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range mdLinkRE.FindAllStringSubmatch(codeSpanRE.ReplaceAllString(line, ""), -1) {
			links = append(links, m[1])
		}
	}
	return links
}

// anchorIndex holds each file's heading anchors, parsed once however many
// links point into it.
type anchorIndex map[string]map[string]bool

func (a anchorIndex) of(t *testing.T, path string) map[string]bool {
	t.Helper()
	m, ok := a[path]
	if !ok {
		m = headingAnchors(t, path)
		a[path] = m
	}
	return m
}

// headingAnchors are the fragments GitHub gives a file's headings.
func headingAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		anchors[anchorOf(strings.TrimLeft(line, "#"))] = true
	}
	return anchors
}

// anchorOf is the fragment GitHub gives a heading: lowercase, punctuation
// dropped, spaces to hyphens.
func anchorOf(heading string) string {
	var a strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			a.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			a.WriteRune(r)
		}
	}
	return a.String()
}

// TestReadmeGuidesToEveryDocument: the README says early, before its
// example answers, which document to read for which job, in one table, and
// that table leads to every document in docs/: none is found only by
// chance.
func TestReadmeGuidesToEveryDocument(t *testing.T) {
	docs, _ := filepath.Glob("../docs/*.md")
	if len(docs) < 5 {
		t.Fatalf("found %v: the glob is off", docs)
	}
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	firstExample := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "```json") })
	guide, linked := -1, map[string]bool{}
	for i, l := range lines {
		if !strings.HasPrefix(l, "|") {
			if guide >= 0 {
				break // the guide table has ended
			}
			continue
		}
		for _, m := range mdLinkRE.FindAllStringSubmatch(codeSpanRE.ReplaceAllString(l, ""), -1) {
			if target, _, _ := strings.Cut(m[1], "#"); strings.HasPrefix(target, "docs/") {
				linked["../"+target] = true
				if guide < 0 {
					guide = i
				}
			}
		}
	}
	if guide < 0 {
		t.Fatal("the README has no table of documents")
	}
	if firstExample >= 0 && guide > firstExample {
		t.Errorf("README.md:%d: the table of documents comes after the first example answer (line %d)", guide+1, firstExample+1)
	}
	for _, d := range docs {
		if !linked[d] {
			t.Errorf("the README's table of documents does not lead to %s", strings.TrimPrefix(d, "../"))
		}
	}
}
