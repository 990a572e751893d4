package binlog

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"

	// The parser builds literals through a driver of values; this is the
	// one it ships for parsing alone (go-mysql's canal uses it too).
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// A statement logged as a statement (binlog_format STATEMENT or MIXED)
// changes the tables it writes, and what their views and triggers write
// (unwatched.go): what it merely reads (the SELECT of
// pt-table-checksum's REPLACE INTO percona.checksums … SELECT … FROM
// shop.wp_posts, a name in a string of its WHERE) changes nothing. So the
// feed asks the statement's target tables of pingcap's MySQL parser (the
// one go-mysql's canal uses); for a schema change the parser cannot
// read, any name in the text counts.

// target is a table a statement writes: its schema ("" for the
// statement's default one) and name, as the statement spells them (a
// server that tells case apart finds them so).
type target struct{ schema, table string }

// statementTargets returns the tables the statement q writes, and
// wholeSchemas the schemas it drops or alters as a whole ("" for the
// default one). ok is false when the parser cannot tell: the text does
// not parse (a statement of MariaDB's the parser lacks, a body hidden in
// a /*M! */ comment), or a statement is of a kind it does not read here.
func statementTargets(q string) (tables []target, wholeSchemas []string, ok bool) {
	stmts, _, err := parser.New().ParseSQL(q)
	if err != nil || len(stmts) == 0 {
		return nil, nil, false
	}
	for _, stmt := range stmts {
		t, s, ok := targetsOf(stmt)
		if !ok {
			return nil, nil, false
		}
		tables, wholeSchemas = append(tables, t...), append(wholeSchemas, s...)
	}
	return tables, wholeSchemas, true
}

// targetsOf is statementTargets for one parsed statement.
func targetsOf(stmt ast.StmtNode) (tables []target, wholeSchemas []string, ok bool) {
	names := func(ns ...*ast.TableName) []target {
		out := make([]target, 0, len(ns))
		for _, n := range ns {
			if n != nil {
				out = append(out, target{n.Schema.O, n.Name.O})
			}
		}
		return out
	}
	switch s := stmt.(type) {
	case *ast.InsertStmt: // INSERT and REPLACE, with VALUES, SET or SELECT
		return written(s.Table, nil, nil), nil, true
	case *ast.UpdateStmt:
		return written(s.TableRefs, s.List, nil), nil, true
	case *ast.DeleteStmt:
		var named []*ast.TableName
		if s.IsMultiTable && s.Tables != nil {
			named = s.Tables.Tables
		}
		return written(s.TableRefs, nil, named), nil, true
	case *ast.LoadDataStmt:
		return names(s.Table), nil, true
	case *ast.CreateTableStmt: // … AS SELECT and LIKE read their sources only
		return names(s.Table), nil, true
	case *ast.AlterTableStmt:
		t := names(s.Table)
		for _, spec := range s.Specs {
			t = append(t, names(spec.NewTable)...) // RENAME TO
		}
		return t, nil, true
	case *ast.DropTableStmt:
		return names(s.Tables...), nil, true
	case *ast.TruncateTableStmt:
		return names(s.Table), nil, true
	case *ast.RenameTableStmt:
		var t []target
		for _, tt := range s.TableToTables {
			t = append(t, names(tt.OldTable, tt.NewTable)...)
		}
		return t, nil, true
	case *ast.CreateIndexStmt:
		return names(s.Table), nil, true
	case *ast.DropIndexStmt:
		return names(s.Table), nil, true
	case *ast.CreateViewStmt:
		return names(s.ViewName), nil, true
	case *ast.DropDatabaseStmt:
		return nil, []string{s.Name.L}, true
	case *ast.CreateDatabaseStmt, *ast.AlterDatabaseStmt:
		return nil, nil, true // no table of the schema changes
	}
	return nil, nil, false
}

// written returns the tables a DML statement over refs writes: for an
// UPDATE, those its assignments set a column of; for a multi-table
// DELETE, those it names before FROM; else (INSERT, REPLACE, a
// single-table DELETE) the one table of refs. A name is resolved through
// the aliases of refs; an assignment to a column no table qualifies, in
// a statement over several tables, may write any of them.
func written(refs *ast.TableRefsClause, set []*ast.Assignment, named []*ast.TableName) []target {
	var sources []*ast.TableSource
	if refs != nil {
		collectSources(refs.TableRefs, &sources)
	}
	all := make([]target, 0, len(sources))
	alias := map[string]target{}
	for _, src := range sources {
		n, ok := src.Source.(*ast.TableName)
		if !ok {
			continue // a derived table: never written
		}
		t := target{n.Schema.O, n.Name.O}
		all = append(all, t)
		alias[n.Name.L] = t
		if src.AsName.L != "" {
			alias[src.AsName.L] = t
		}
	}
	resolve := func(schema, name string) []target {
		if t, ok := alias[strings.ToLower(name)]; ok && (schema == "" || strings.EqualFold(schema, t.schema)) {
			return []target{t}
		}
		if schema != "" {
			return []target{{schema, name}}
		}
		return all
	}
	switch {
	case len(named) > 0:
		var out []target
		for _, n := range named {
			out = append(out, resolve(n.Schema.O, n.Name.O)...)
		}
		return out
	case len(set) > 0 && len(all) > 1:
		var out []target
		for _, a := range set {
			if a.Column == nil || a.Column.Table.L == "" {
				return all
			}
			out = append(out, resolve(a.Column.Schema.O, a.Column.Table.O)...)
		}
		return out
	}
	return all
}

// collectSources appends the table sources of a FROM clause's join tree.
func collectSources(n ast.ResultSetNode, out *[]*ast.TableSource) {
	switch n := n.(type) {
	case *ast.Join:
		collectSources(n.Left, out)
		if n.Right != nil {
			collectSources(n.Right, out)
		}
	case *ast.TableSource:
		*out = append(*out, n)
	}
}

// writes reports whether a schema change logged in schema may change a
// watched table: it alters, creates, drops, renames or truncates one, or
// drops the followed schema. When the parser cannot tell, a mention of
// one anywhere in its text counts (names).
func (m *binlogMapper) writes(schema, q string) bool {
	tables, schemas, ok := statementTargets(q)
	if !ok {
		return m.names(schema, q)
	}
	for _, s := range schemas {
		if m.ours(schema, s) {
			return true
		}
	}
	for _, t := range tables {
		if m.watched(schema, t) {
			return true
		}
	}
	return false
}

// ours reports whether s, a schema a statement run in schema names ("" for
// that one), is the followed schema. A schema the statement names is
// compared without case: on a server that tells case apart, two schemas
// spelled alike but for it cost at most a needless fallback.
func (m *binlogMapper) ours(schema, s string) bool {
	if s == "" {
		return m.sameSchema(schema)
	}
	return strings.EqualFold(s, m.schema)
}

// watched reports whether t, written by a statement run in schema, is a
// table the feed follows.
func (m *binlogMapper) watched(schema string, t target) bool {
	_, ok := m.tables[strings.ToLower(t.table)]
	return ok && m.ours(schema, t.schema)
}
