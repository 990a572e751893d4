// Command collgen writes wpsearch's fold table: for every character MariaDB's
// LIKE cannot tell from a lower code point under utf8mb4_unicode_520_ci,
// that lowest code point, its class's representative. It asks the server
// itself: WEIGHT_STRING for every code point groups the candidates, and LIKE
// splits a group where it disagrees (a character without weights of its
// own in the collation's table compares by code point, whatever weight
// WEIGHT_STRING computes for it).
//
//	go run ./internal/collgen [-dsn DSN] [path]   (run by go generate in wpsearch)
package main

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"go/format"
	"os"
	"slices"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

// Collation is the one WordPress gives its tables on MariaDB and MySQL
// 5.6 and later.
const Collation = "utf8mb4_unicode_520_ci"

// maxRune is the last code point utf8mb4 encodes.
const maxRune = 0x10FFFF

func main() {
	dsn := flag.String("dsn", "root@tcp(127.0.0.1:3306)/mysql", "the MariaDB server to ask (a DSN naming a database)")
	flag.Parse()
	path := "fold_table.go"
	if flag.NArg() > 0 {
		path = flag.Arg(0)
	}
	if err := run(*dsn, path); err != nil {
		fmt.Fprintln(os.Stderr, "collgen:", err)
		os.Exit(1)
	}
}

func run(dsn, path string) error {
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return fmt.Errorf("open %s: %w", dsn, err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	folds, err := Folds(ctx, db)
	if err != nil {
		return err
	}
	src, err := Source(folds)
	if err != nil {
		return err
	}
	return os.WriteFile(path, src, 0o644)
}

// Fold is one code point and its class's representative, a lower one.
type Fold struct{ From, To rune }

// Folds asks the server for the classes and returns, in code point order,
// every code point whose representative is not itself.
func Folds(ctx context.Context, db *sql.DB) ([]Fold, error) {
	groups, err := weightGroups(ctx, db)
	if err != nil {
		return nil, err
	}
	classes, err := splitByLike(ctx, db, groups)
	if err != nil {
		return nil, err
	}
	var out []Fold
	for _, c := range classes {
		for _, r := range c[1:] {
			out = append(out, Fold{r, c[0]})
		}
	}
	slices.SortFunc(out, func(a, b Fold) int { return cmp.Compare(a.From, b.From) })
	return out, nil
}

// char is the SQL for code point n (a column or a number) as a utf8mb4
// string in the collation. MariaDB's utf8mb4 holds the surrogates too, as
// a stored text may: they get weights like unassigned code points.
func char(n string) string {
	return "CONVERT(CHAR(" + n + " USING utf32) USING utf8mb4) COLLATE " + Collation
}

// weightGroups returns the code points that share their weight string
// with another, grouped, each group in code point order.
func weightGroups(ctx context.Context, db *sql.DB) ([][]rune, error) {
	type weighed struct {
		w  string
		cp rune
	}
	all := make([]weighed, 0, maxRune+1)
	// One statement per plane: the sequence engine counts the code points.
	for lo := 0; lo <= maxRune; lo += 0x10000 {
		q := fmt.Sprintf("SELECT seq, WEIGHT_STRING(%s) FROM seq_%d_to_%d", char("seq"), lo, lo+0xFFFF)
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("weights of plane %d: %w", lo>>16, err)
		}
		for rows.Next() {
			var cp rune
			var w []byte
			if err := rows.Scan(&cp, &w); err != nil {
				rows.Close()
				return nil, fmt.Errorf("weights of plane %d: %w", lo>>16, err)
			}
			all = append(all, weighed{string(w), cp})
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("weights of plane %d: %w", lo>>16, err)
		}
		rows.Close()
	}
	if len(all) != maxRune+1 {
		return nil, fmt.Errorf("the server weighed %d code points, not %d", len(all), maxRune+1)
	}
	slices.SortFunc(all, func(a, b weighed) int {
		return cmp.Or(strings.Compare(a.w, b.w), cmp.Compare(a.cp, b.cp))
	})
	var groups [][]rune
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].w == all[i].w {
			j++
		}
		if j-i > 1 {
			g := make([]rune, 0, j-i)
			for _, x := range all[i:j] {
				g = append(g, x.cp)
			}
			groups = append(groups, g)
		}
		i = j
	}
	return groups, nil
}

// splitByLike splits each group into LIKE's classes: the group's lowest
// code point takes every member LIKE finds equal to it, the others form
// the next round's group, until no group is left. A class of one is left
// out.
func splitByLike(ctx context.Context, db *sql.DB, groups [][]rune) ([][]rune, error) {
	var classes [][]rune
	for len(groups) > 0 {
		type pair struct{ g, m int } // group index, member index
		var pairs []pair
		for gi, g := range groups {
			for mi := 1; mi < len(g); mi++ {
				pairs = append(pairs, pair{gi, mi})
			}
		}
		same := make([]bool, len(pairs))
		const batch = 1000
		for lo := 0; lo < len(pairs); lo += batch {
			hi := min(lo+batch, len(pairs))
			exprs := make([]string, 0, hi-lo)
			for _, p := range pairs[lo:hi] {
				// The escape character first: a representative may be
				// one of LIKE's wildcards.
				exprs = append(exprs, fmt.Sprintf("%s LIKE CONCAT(CHAR(92), %s)",
					char(fmt.Sprint(groups[p.g][p.m])), char(fmt.Sprint(groups[p.g][0]))))
			}
			if err := likes(ctx, db, exprs, same[lo:hi]); err != nil {
				return nil, err
			}
		}
		var next [][]rune
		rest := make([][]rune, len(groups))
		class := make([][]rune, len(groups))
		for gi, g := range groups {
			class[gi] = []rune{g[0]}
		}
		for i, p := range pairs {
			r := groups[p.g][p.m]
			if same[i] {
				class[p.g] = append(class[p.g], r)
			} else {
				rest[p.g] = append(rest[p.g], r)
			}
		}
		for gi := range groups {
			if len(class[gi]) > 1 {
				classes = append(classes, class[gi])
			}
			if len(rest[gi]) > 1 {
				next = append(next, rest[gi])
			}
		}
		groups = next
	}
	return classes, nil
}

// likes evaluates the LIKE expressions in one statement.
func likes(ctx context.Context, db *sql.DB, exprs []string, out []bool) error {
	cols := make([]any, len(exprs))
	vals := make([]sql.NullBool, len(exprs))
	for i := range vals {
		cols[i] = &vals[i]
	}
	if err := db.QueryRowContext(ctx, "SELECT "+strings.Join(exprs, ", ")).Scan(cols...); err != nil {
		return fmt.Errorf("compare with LIKE: %w", err)
	}
	for i, v := range vals {
		if !v.Valid {
			return fmt.Errorf("LIKE answered NULL for %s", exprs[i])
		}
		out[i] = v.Bool
	}
	return nil
}

// Source is fold_table.go for the folds.
func Source(folds []Fold) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(header)
	runs := Runs(folds)
	for i, r := range runs {
		if i%5 == 0 {
			b.WriteString("\n\t")
		} else {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "{0x%X, 0x%X, 0x%X, %d},", r.Lo, r.Hi, r.To, r.Step)
	}
	b.WriteString("\n}\n")
	return format.Source(b.Bytes())
}

const header = `// Code generated by go run ./internal/collgen; DO NOT EDIT.

package wpsearch

// foldRuns are the code points whose class under ` + Collation + `, as
// MariaDB's LIKE compares characters, has a lower representative; the
// others represent themselves.
var foldRuns = [...]foldRun{`

// Run is a range of code points folded alike: Lo to To, Lo+1 to To+Step,
// and so on to Hi.
type Run struct {
	Lo, Hi, To rune
	Step       int
}

// Runs packs folds, in code point order, into runs.
func Runs(folds []Fold) []Run {
	var runs []Run
	for _, f := range folds {
		if n := len(runs); n > 0 {
			r := &runs[n-1]
			if f.From == r.Hi+1 {
				if r.Hi == r.Lo && (f.To == r.To || f.To == r.To+1) {
					r.Step = int(f.To - r.To)
					r.Hi = f.From
					continue
				}
				if f.To == r.To+rune(r.Step)*(f.From-r.Lo) {
					r.Hi = f.From
					continue
				}
			}
		}
		runs = append(runs, Run{Lo: f.From, Hi: f.From, To: f.To})
	}
	return runs
}
