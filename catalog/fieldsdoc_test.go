package catalog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestFieldsDocPointsAtTheRules: docs/fields.md, "How the storefront's
// fields are computed", names, for each rule, the file and functions that
// hold it in full; each must still be there.
func TestFieldsDocPointsAtTheRules(t *testing.T) {
	b, err := os.ReadFile("../docs/fields.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "# How the storefront's fields are computed\n")
	if !ok {
		t.Fatal("docs/fields.md has no heading How the storefront's fields are computed")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	// [catalog/price.go](../catalog/price.go) (`storedPrice`, `FormatPrice`)
	refRE := regexp.MustCompile(`\[catalog/([a-z_]+\.go)\]\([^)]*\)(?: \(([^)]*)\))?`)
	refs := refRE.FindAllStringSubmatch(section, -1)
	if len(refs) < 10 {
		t.Fatalf("the section points at %d files; the pattern is off", len(refs))
	}
	funcs := map[string]map[string]bool{} // file → declared functions and methods
	for _, ref := range refs {
		file := ref[1]
		if funcs[file] == nil {
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
			if err != nil {
				t.Errorf("docs/fields.md points at catalog/%s: %v", file, err)
				continue
			}
			funcs[file] = map[string]bool{}
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					funcs[file][fd.Name.Name] = true
				}
			}
		}
		for _, name := range regexp.MustCompile("`([A-Za-z]+)`").FindAllStringSubmatch(ref[2], -1) {
			if !funcs[file][name[1]] {
				t.Errorf("docs/fields.md says catalog/%s has %s; it does not", file, name[1])
			}
		}
	}
}
