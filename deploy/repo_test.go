package deploy

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"catalogd/internal/testdb"
)

// TestDockerignore: a compose or docker build sends the image's sources and
// nothing it does not need — not the history, not the binaries make build
// and a bare go build leave, not the linters' node_modules — and keeps
// every file deploy/Dockerfile builds from.
func TestDockerignore(t *testing.T) {
	f, err := os.Open("../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var patterns []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			patterns = append(patterns, l)
		}
	}
	// As Docker reads them: a pattern matches a path from the context's
	// root, "**/" at any depth, and a matched directory takes its contents.
	ignored := func(path string) bool {
		parts := strings.Split(path, "/")
		for i := range parts {
			prefix := strings.Join(parts[:i+1], "/")
			for _, p := range patterns {
				name := prefix
				if rest, ok := strings.CutPrefix(p, "**/"); ok {
					p, name = rest, parts[i]
				}
				if ok, _ := filepath.Match(p, name); ok {
					return true
				}
			}
		}
		return false
	}
	for _, p := range []string{".git", "bin/catalogd", "catalogd", "catalogctl", "httpapi/internal/openapilint/node_modules/x.js"} {
		if !ignored(p) {
			t.Errorf(".dockerignore sends %s to the build", p)
		}
	}
	// What the Dockerfile copies and builds: go.mod, go.sum and the sources.
	need := []string{"go.mod", "go.sum", "internal/wpfixture/schema.sql"}
	for _, f := range trackedFiles(t) {
		if strings.HasSuffix(f, ".go") && !strings.HasPrefix(f, "deploy/embedded/") {
			need = append(need, f)
		}
	}
	for _, p := range need {
		if ignored(p) {
			t.Errorf(".dockerignore leaves out %s, which the image's build needs", p)
		}
	}
}

// TestNoLargeFileIsTracked: a clone holds sources, not build outputs; a
// binary committed by accident is most of the pack and is easily taken for
// the one make build writes.
func TestNoLargeFileIsTracked(t *testing.T) {
	for _, f := range trackedFiles(t) {
		fi, err := os.Stat(filepath.Join("..", f))
		if err != nil {
			continue // deleted in the work tree, not yet committed
		}
		if fi.Size() > 1<<20 {
			t.Errorf("%s is tracked and %d bytes: build outputs belong in .gitignore", f, fi.Size())
		}
	}
}

// trackedFiles lists the repository's tracked files, relative to its root.
func trackedFiles(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		testdb.Lacking(t, "git is not installed: cannot list the tracked files")
	}
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		testdb.Lacking(t, "not a git work tree (%v): cannot list the tracked files", err)
	}
	var files []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			files = append(files, string(f))
		}
	}
	return files
}

// TestGroundFloorImportsNothingAbove: internal/ is the ground floor, the
// support every room shares (test databases, shop fixtures, the demo shop,
// the process harness); a package there, or its tests, importing one of
// the rooms above (catalog, wpdb and its feeds wpdb/binlog and wpdb/poll,
// httpapi, follow, purge, config, deploy/…) would tie that support to one
// room's code and, through it, to every room it imports. A room's own
// test support that needs the room stays in it (wpdb/internal/feedops).
func TestGroundFloorImportsNothingAbove(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		testdb.Lacking(t, "go is not installed: cannot list the imports")
	}
	cmd := exec.Command("go", "list", "-test", "-f", `{{.ImportPath}}|{{join .Imports ","}}`, "./internal/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, up := range aboveGroundFloor(string(out)) {
		t.Error(up)
	}
}

// aboveGroundFloor reads go list's lines (a package, its imports) and names
// each import of the module's that lies outside internal/, once (a package
// and its test variant import alike).
func aboveGroundFloor(list string) []string {
	const module, ground = "catalogd/", "catalogd/internal/"
	var ups []string
	for line := range strings.Lines(list) {
		pkg, imports, _ := strings.Cut(strings.TrimSpace(line), "|")
		pkg, _, _ = strings.Cut(pkg, " ") // a test's variant: "p [p.test]"
		for imp := range strings.SplitSeq(imports, ",") {
			imp, _, _ = strings.Cut(imp, " ")
			if strings.HasPrefix(imp, module) && !strings.HasPrefix(imp, ground) {
				ups = append(ups, pkg+" imports "+imp+", a room above internal/")
			}
		}
	}
	slices.Sort(ups)
	return slices.Compact(ups)
}

// TestGroundFloorCheckCatches: the check names an import up from internal/,
// its tests' included, and lets the ground floor's own imports pass.
func TestGroundFloorCheckCatches(t *testing.T) {
	for _, c := range []struct {
		list string
		want int
	}{
		{"catalogd/internal/testdb|catalogd/internal/proctest,context,github.com/go-sql-driver/mysql\n", 0},
		{"catalogd/internal/testdb [catalogd/internal/testdb.test]|catalogd/wpdb/wpfixture [catalogd/internal/testdb.test],fmt\n", 1},
		{"catalogd/internal/soak/cmd/soak|catalogd/deploy/seed,catalogd/internal/soak\ncatalogd/internal/x|catalogd/catalog\n", 2},
		{"catalogd/internal/x|catalogdextra/y,catalogd/internalx\n", 1}, // another module's path passes; a lookalike of internal/ does not
		{"catalogd/internal/t|catalogd/wpdb\ncatalogd/internal/t [catalogd/internal/t.test]|catalogd/wpdb [catalogd/internal/t.test]\n", 1},
		{"catalogd/internal/t|catalogd/wpdb/poll,catalogd/wpdb/internal/feedops\n", 2}, // a room's sub-packages are the room
	} {
		if got := aboveGroundFloor(c.list); len(got) != c.want {
			t.Errorf("%q: named %q, want %d", c.list, got, c.want)
		}
	}
}
