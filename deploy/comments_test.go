package deploy

// What the documentation tests read: the shipped files' comments and the
// documents' prose, each with the place a failure names.

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shippedFiles are the files of deploy/ an operator copies or reads, and
// docker-compose.yml: every file but Go sources, module sums and the
// generated demo shop.
func shippedFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "go.sum") &&
			!strings.HasSuffix(p, "demo.sql") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return append(files, "../docker-compose.yml")
}

// commentLine is one line of a comment, its marker removed.
type commentLine struct {
	where string // file:line, from the repository's root
	n     int
	text  string
}

// commentLines are path's whole-line comments: "#" (shell, nginx, Apache,
// Caddy, VCL, YAML, systemd, Dockerfile), "--" (SQL), and "//", "/*", "*"
// (PHP, VCL).
func commentLines(t *testing.T, path string) []commentLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	name := filepath.ToSlash(filepath.Join("deploy", path)) // "deploy/../docker-compose.yml" cleans to the root's
	var lines []commentLine
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		var text string
		switch {
		case strings.HasPrefix(l, "#"):
			text = strings.TrimLeft(l, "#")
		case strings.HasPrefix(l, "--"):
			text = strings.TrimLeft(l, "-")
		case strings.HasPrefix(l, "//"), strings.HasPrefix(l, "/*"), strings.HasPrefix(l, "*") && !strings.HasPrefix(l, "*/"):
			text = strings.TrimLeft(l, "/*")
		default:
			continue
		}
		lines = append(lines, commentLine{where: fmt.Sprintf("%s:%d", name, n), n: n, text: strings.TrimSpace(text)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// passage is a paragraph of prose, or a comment block, joined into one line,
// as a pointer in it may be wrapped.
type passage struct {
	where string // file:line of its first line
	line  int
	dir   string // the directory of the file it is in, for relative paths
	text  string
}

// commentPassages joins each run of consecutive comment lines of path.
func commentPassages(t *testing.T, path string) []passage {
	t.Helper()
	var out []passage
	last := -1
	for _, c := range commentLines(t, path) {
		if c.n == last+1 && len(out) > 0 && c.text != "" {
			out[len(out)-1].text += " " + c.text
		} else if c.text != "" {
			out = append(out, passage{where: c.where, line: c.n, dir: filepath.Dir(path), text: c.text})
		}
		last = c.n
	}
	return out
}

// markdownPassages are a markdown file's paragraphs, list items and table
// rows outside fenced blocks, each joined into one line.
func markdownPassages(t *testing.T, path string) []passage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(path, "../")
	var out []passage
	fenced, open := false, false
	for i, line := range strings.Split(string(b), "\n") {
		s := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(s, "```"):
			fenced, open = !fenced, false
			continue
		case fenced || s == "":
			open = false
			continue
		}
		// A list item, a heading and a table row start a passage of their
		// own; any other line continues the one before.
		starts := strings.HasPrefix(s, "#") || strings.HasPrefix(s, "|") || strings.HasPrefix(s, "- ") ||
			strings.HasPrefix(s, "* ") || len(s) > 2 && s[0] >= '0' && s[0] <= '9' && strings.HasPrefix(s[1:], ". ")
		if open && !starts && !strings.HasPrefix(out[len(out)-1].text, "|") {
			out[len(out)-1].text += " " + s
			continue
		}
		out = append(out, passage{where: fmt.Sprintf("%s:%d", name, i+1), line: i + 1, dir: filepath.Dir(path), text: s})
		open = true
	}
	return out
}
