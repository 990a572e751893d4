package deploy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sqlStatement is one SQL statement written in wpdb's source: the text
// of a string expression that starts with a statement's verb, its
// constant parts (fragments) in order, and what lies between them (holes:
// a table's name, an IN list made at run time).
type sqlStatement struct {
	where     string   // file:line
	text      string   // the fragments joined by "…", for messages
	parts     []string // the constant parts, a hole (an operand made at run time) between each two
	fragments []string // the parts cut at each ?, spaces normalised: what the server receives, in order
}

// sqlVerbRE is how a statement starts; anything else is not one.
var sqlVerbRE = regexp.MustCompile(`(?i)^\s*(SELECT|SHOW|SET|START|ROLLBACK)\b`)

// wpdbStatements reads every SQL statement in the non-test Go files of
// the package at dir and of its sub-packages but internal/ (wpdb and its
// change feeds: "every SQL statement catalogd runs lives here"): each
// maximal string expression (a literal, or literals, named constants and
// other operands joined by +) whose text starts with a verb. An operand
// that is not a constant is a hole. A statement extended with += elsewhere
// is checked by its first part. Each is placed by its file's path under
// dir.
func wpdbStatements(t *testing.T, dir string) []sqlStatement {
	t.Helper()
	fset := token.NewFileSet()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "internal":
			return filepath.SkipDir // test support, not catalogd's statements
		case !d.IsDir() && strings.HasSuffix(p, ".go"):
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
	consts := map[string]ast.Expr{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, af)
		for _, d := range af.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				for _, s := range gd.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							consts[n.Name] = vs.Values[i]
						}
					}
				}
			}
		}
	}
	var out []sqlStatement
	for _, af := range parsed {
		ast.Inspect(af, func(n ast.Node) bool {
			e, ok := n.(ast.Expr)
			if !ok {
				return true
			}
			parts, ok := stringParts(e, consts)
			if !ok {
				return true
			}
			// The whole expression is one statement or none: its parts are
			// not looked at again.
			if len(parts) > 0 && sqlVerbRE.MatchString(parts[0]) {
				// A ? is a hole too: the driver sends the value in its place
				// (and sqlx.In a list of them for IN (?)).
				var frags []string
				for _, p := range parts {
					for _, f := range strings.Split(p, "?") {
						if f = strings.TrimSpace(strings.Join(strings.Fields(f), " ")); f != "" {
							frags = append(frags, f)
						}
					}
				}
				pos := fset.Position(e.Pos())
				rel, err := filepath.Rel(dir, pos.Filename)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, sqlStatement{where: filepath.ToSlash(rel) + ":" + strconv.Itoa(pos.Line),
					text: strings.Join(frags, " … "), parts: parts, fragments: frags})
			}
			return false
		})
	}
	return out
}

// stringParts is a string expression's constant parts, a hole between
// each two (a leading or trailing hole gives an empty part); ok is false
// for an expression that is not a string literal or a + of operands one
// of which is.
func stringParts(e ast.Expr, consts map[string]ast.Expr) (parts []string, ok bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return nil, false
		}
		s, err := strconv.Unquote(e.Value)
		return []string{s}, err == nil
	case *ast.ParenExpr:
		return stringParts(e.X, consts)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return nil, false
		}
		l, lok := stringParts(e.X, consts)
		r, rok := stringParts(e.Y, consts)
		if !lok && !rok {
			return nil, false
		}
		if !lok {
			l = []string{"", ""}
		}
		if !rok {
			r = []string{"", ""}
		}
		// The last part of the left and the first of the right are
		// one run of text.
		return append(append(l[:len(l)-1:len(l)-1], l[len(l)-1]+r[0]), r[1:]...), true
	case *ast.Ident:
		if c, found := consts[e.Name]; found {
			return stringParts(c, consts)
		}
	}
	return nil, false
}

// covers reports whether query, as the server received it, is s: its
// fragments in order, with the tables' {name} placeholders prefixed.
func (s sqlStatement) covers(query, prefix string) bool {
	q := strings.Join(strings.Fields(query), " ")
	for _, f := range s.fragments {
		f = tablePlaceholderRE.ReplaceAllStringFunc(f, func(m string) string { return prefix + m[1:len(m)-1] })
		// A fragment may end in a table's opening brace: "FROM {" + name.
		f = strings.ReplaceAll(strings.ReplaceAll(f, "{", prefix), "}", "")
		i := strings.Index(q, f)
		if i < 0 {
			return false
		}
		q = q[i+len(f):]
	}
	return true
}

// runnable is the statement as it can be sent with each ? given the
// value 1 and its {name} tables prefixed; ok is false when it has holes
// besides its ?s.
func (s sqlStatement) runnable(prefix string) (q string, ok bool) {
	if len(s.parts) != 1 {
		return "", false
	}
	q = tablePlaceholderRE.ReplaceAllStringFunc(s.parts[0], func(m string) string { return prefix + m[1:len(m)-1] })
	return strings.ReplaceAll(q, "?", "1"), true
}

var tablePlaceholderRE = regexp.MustCompile(`\{[a-z_]+\}`)
