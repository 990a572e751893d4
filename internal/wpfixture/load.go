package wpfixture

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"
)

// batchRows is how many rows one INSERT carries.
const batchRows = 500

// CreateSchema creates the tables in the database db is connected to.
func (s *Shop) CreateSchema(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// WordPress's DDL has zero-date defaults that strict modes reject.
	if _, err := conn.ExecContext(ctx, `SET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION'`); err != nil {
		return fmt.Errorf("wpfixture: set sql_mode: %w", err)
	}
	for _, stmt := range s.schema() {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("wpfixture: create table: %w", err)
		}
	}
	return nil
}

// Flush inserts the rows added since the last Flush, and brings the
// term_taxonomy counts up to date as WordPress's _update_post_term_count
// does (direct relationships, hidden products included).
func (s *Shop) Flush(ctx context.Context, db *sql.DB) error {
	return s.flush(ctx, db, true)
}

// FlushRows inserts the rows added since the last flush and leaves the term
// counts alone: a generator writing many batches updates them once, with
// UpdateCounts, at the end.
func (s *Shop) FlushRows(ctx context.Context, db *sql.DB) error {
	return s.flush(ctx, db, false)
}

// UpdateCounts brings the term_taxonomy counts up to date.
func (s *Shop) UpdateCounts(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, s.countSQL()); err != nil {
		return fmt.Errorf("wpfixture: update term counts: %w", err)
	}
	return nil
}

func (s *Shop) flush(ctx context.Context, db *sql.DB, counts bool) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // committed below on success
	s.writePolylangGroups()
	for _, stmt := range s.pending(true) {
		if _, err := tx.ExecContext(ctx, stmt.sql, stmt.args...); err != nil {
			return fmt.Errorf("wpfixture: insert: %w", err)
		}
	}
	if counts {
		if _, err := tx.ExecContext(ctx, s.countSQL()); err != nil {
			return fmt.Errorf("wpfixture: update term counts: %w", err)
		}
	}
	return tx.Commit()
}

// WriteSQL writes the whole shop as an SQL script (schema, then rows) that
// loads into MariaDB and MySQL 8 with the mysql client.
func (s *Shop) WriteSQL(w io.Writer) error {
	var b strings.Builder
	b.WriteString("-- A WordPress + WooCommerce shop, as wpfixture stores it. Generated; do not edit.\n")
	b.WriteString("SET NAMES utf8mb4;\nSET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION';\n\n")
	for _, stmt := range s.schema() {
		b.WriteString(stmt + ";\n\n")
	}
	s.writePolylangGroups()
	for _, t := range s.order {
		s.tables[t].flushed = 0
	}
	for _, stmt := range s.pending(false) {
		b.WriteString(stmt.sql + ";\n")
	}
	b.WriteString(s.countSQL() + ";\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// schema is the core tables' DDL and the plugins'.
func (s *Shop) schema() []string {
	out := Schema(s.Prefix)
	for _, stmt := range s.extraSchema {
		out = append(out, strings.ReplaceAll(stmt, "{prefix}", s.Prefix))
	}
	return out
}

func (s *Shop) countSQL() string {
	p := s.Prefix
	return fmt.Sprintf(`UPDATE %[1]sterm_taxonomy tt SET count = (SELECT COUNT(*) FROM %[1]sterm_relationships tr `+
		`JOIN %[1]sposts p ON p.ID = tr.object_id AND p.post_status = 'publish' WHERE tr.term_taxonomy_id = tt.term_taxonomy_id)`, p)
}

type statement struct {
	sql  string
	args []any
}

// pending returns multi-row INSERTs for the unflushed rows, with
// placeholders or, for a script, with literal values.
func (s *Shop) pending(placeholders bool) []statement {
	var out []statement
	for _, name := range s.order {
		t := s.tables[name]
		for start := t.flushed; start < len(t.rows); start += batchRows {
			end := min(start+batchRows, len(t.rows))
			var b strings.Builder
			var args []any
			fmt.Fprintf(&b, "INSERT INTO %s%s (%s) VALUES ", s.Prefix, name, strings.Join(t.cols, ", "))
			for i, row := range t.rows[start:end] {
				if i > 0 {
					b.WriteString(",\n")
				}
				b.WriteByte('(')
				for j, v := range row {
					if j > 0 {
						b.WriteString(", ")
					}
					if placeholders {
						b.WriteByte('?')
						args = append(args, v)
					} else {
						b.WriteString(literal(v))
					}
				}
				b.WriteByte(')')
			}
			out = append(out, statement{b.String(), args})
		}
		t.flushed = len(t.rows)
	}
	return out
}

// literal writes a value as an SQL literal for a script. Strings are quoted
// with the escapes MariaDB and MySQL both read under the default sql_mode.
func literal(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`, "\x00", `\0`, "\x1a", `\Z`)
		return "'" + r.Replace(x) + "'"
	case bool:
		if x {
			return "1"
		}
		return "0"
	default:
		return fmt.Sprint(x)
	}
}

// Compact forgets the rows of the big tables already flushed, so that a
// generator can build a shop of any size in batches with bounded memory.
// Options and terms are kept: later products look them up.
func (s *Shop) Compact() {
	for _, name := range []string{"posts", "postmeta", "term_relationships", "wc_product_meta_lookup", "icl_translations"} {
		if t := s.tables[name]; t != nil {
			t.rows = append([][]any(nil), t.rows[t.flushed:]...)
			t.flushed = 0
		}
	}
}
