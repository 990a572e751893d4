package binlog

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-mysql-org/go-mysql/replication"

	"catalogd/catalog"
	"catalogd/wpdb"
)

// This file maps the binary log's row events on the tables catalogd reads
// to what changed: the products, posts, terms and options of catalog.Reads.

// tableRole is what a table is to the feed.
type tableRole int

const (
	rolePosts tableRole = iota + 1
	rolePostmeta
	roleRelationships
	roleTermTaxonomy
	roleTerms
	roleTermmeta
	roleOptions
	roleTable // any row: everything (the attribute table, plugins' tables)
)

// roleOf is what a row event of each table catalogd reads
// (wpdb.ReadTables) means to the feed.
var roleOf = map[string]tableRole{
	"posts": rolePosts, "postmeta": rolePostmeta, "terms": roleTerms, "term_taxonomy": roleTermTaxonomy,
	"term_relationships": roleRelationships, "termmeta": roleTermmeta, "options": roleOptions,
	"woocommerce_attribute_taxonomies": roleTable,
}

// The columns each role reads from a row image.
var roleColumns = map[tableRole][]string{
	rolePosts:         {"ID", "post_type", "post_parent"},
	rolePostmeta:      {"post_id", "meta_key"},
	roleRelationships: {"object_id", "term_taxonomy_id"},
	roleTermTaxonomy:  {"term_taxonomy_id", "term_id", "taxonomy", "count"},
	roleTerms:         {"term_id"},
	roleTermmeta:      {"term_id", "meta_key"},
	roleOptions:       {"option_name"},
}

// binlogMapper holds the tables watched, their column positions, and the
// term_ids of the taxonomies read.
type binlogMapper struct {
	schema string
	// fold: the server compares schema names without case
	// (lower_case_table_names 1 or 2), so the log may spell the schema
	// otherwise than the DSN does.
	fold       bool
	tables     map[string]tableRole // lower-cased table name → role
	options    map[string]bool
	metaKeys   map[string]bool
	taxonomies map[string]bool
	like       string          // the LIKE pattern of the other taxonomies read (Reads.TaxonomyLike)
	reads      catalog.Reads   // ReadsTaxonomy: a taxonomy of either
	members    map[string]bool // taxonomies whose relationships relate terms, not posts

	mu      sync.Mutex
	cols    map[string]tableColumns // lower-cased table name → columns, for the tables that exist
	terms   map[int64]bool          // term_ids of the taxonomies read
	memberT map[int64]bool          // term_taxonomy_ids of the member taxonomies
	// tablesKnown: what information_schema showed of the tables changes
	// logged as statements wrote (unwatched.go), by schema and
	// name, lower-cased where the server folds case.
	tablesKnown map[target]tableFacts
}

// tableColumns are a table's column count and positions (0-based).
type tableColumns struct {
	count int
	pos   map[string]int
}

func newBinlogMapper(schema, prefix string, r catalog.Reads) *binlogMapper {
	m := &binlogMapper{schema: schema, tables: map[string]tableRole{},
		options: setOf(r.Options), metaKeys: setOf(r.MetaKeys),
		taxonomies: setOf(append(slices.Clone(r.Taxonomies), r.MemberTaxonomies...)),
		like:       r.TaxonomyLike(), reads: r,
		members: setOf(r.MemberTaxonomies)}
	for _, t := range wpdb.ReadTables {
		m.tables[strings.ToLower(prefix+t)] = roleOf[t]
	}
	for _, t := range r.Tables {
		m.tables[strings.ToLower(prefix+t)] = roleTable
	}
	return m
}

func setOf(ss []string) map[string]bool {
	m := make(map[string]bool, len(ss))
	for _, s := range ss {
		m[s] = true
	}
	return m
}

// load reads the watched tables' columns (information_schema.COLUMNS,
// which a user may read for the tables it may read) and the term_ids of
// the taxonomies read.
func (m *binlogMapper) load(ctx context.Context, db *wpdb.DB) error {
	names := make([]string, 0, len(m.tables))
	for t := range m.tables {
		names = append(names, t)
	}
	var cols []struct {
		Table  string `db:"tbl"`
		Column string `db:"col"`
		Pos    int    `db:"pos"`
	}
	var terms []struct {
		Term     int64  `db:"term_id"`
		TT       int64  `db:"term_taxonomy_id"`
		Taxonomy string `db:"taxonomy"`
	}
	var lowerCase int
	taxes := make([]string, 0, len(m.taxonomies))
	for t := range m.taxonomies {
		taxes = append(taxes, t)
	}
	err := db.View(ctx, func(ctx context.Context, tx *wpdb.Tx) error {
		if err := tx.Get(ctx, &lowerCase, `SELECT @@lower_case_table_names`); err != nil {
			return fmt.Errorf("wpdb: binlog: lower_case_table_names: %w", err)
		}
		schemaIs := `TABLE_SCHEMA = ?`
		if lowerCase != 0 {
			schemaIs = `LOWER(TABLE_SCHEMA) = LOWER(?)`
		}
		if err := tx.Select(ctx, &cols, `SELECT LOWER(TABLE_NAME) AS tbl, COLUMN_NAME AS col, ORDINAL_POSITION AS pos
			FROM information_schema.COLUMNS WHERE `+schemaIs+` AND LOWER(TABLE_NAME) IN (?)`, m.schema, names); err != nil {
			return fmt.Errorf("wpdb: binlog: the tables' columns: %w", err)
		}
		if len(taxes) == 0 && m.like == "" {
			return nil
		}
		if len(taxes) == 0 {
			taxes = []string{""}
		}
		if err := tx.Select(ctx, &terms, `SELECT term_id, term_taxonomy_id, taxonomy FROM {term_taxonomy}
			WHERE taxonomy IN (?) OR (? <> '' AND taxonomy LIKE ?)`, taxes, m.like, m.like); err != nil {
			return fmt.Errorf("wpdb: binlog: the terms read: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	byTable := map[string]tableColumns{}
	for _, c := range cols {
		tc, ok := byTable[c.Table]
		if !ok {
			tc = tableColumns{pos: map[string]int{}}
		}
		tc.count++
		tc.pos[c.Column] = c.Pos - 1
		byTable[c.Table] = tc
	}
	termSet, memberSet := make(map[int64]bool, len(terms)), map[int64]bool{}
	for _, t := range terms {
		termSet[t.Term] = true
		if m.members[t.Taxonomy] {
			memberSet[t.TT] = true
		}
	}
	m.mu.Lock()
	m.cols, m.terms, m.memberT, m.fold = byTable, termSet, memberSet, lowerCase != 0
	m.mu.Unlock()
	return nil
}

// sameSchema reports whether a schema name in the log is the followed
// one, compared as the server compares them.
func (m *binlogMapper) sameSchema(s string) bool {
	m.mu.Lock()
	fold := m.fold
	m.mu.Unlock()
	if fold {
		return strings.EqualFold(s, m.schema)
	}
	return s == m.schema
}

// ddlTouches reports whether a statement logged as such (DDL) in schema
// may change a watched table: it alters, creates, drops, renames or
// truncates one (targets.go).
func (m *binlogMapper) ddlTouches(schema, q string) bool {
	return isDDL(q) && m.writes(schema, q)
}

// names reports whether a statement run in schema names a watched table
// (of the followed schema, when it runs in another): what writes falls
// back to when the parser cannot tell. Conservative: a name in a string
// or a longer name counts too.
func (m *binlogMapper) names(schema, q string) bool {
	lq := strings.ToLower(q)
	if !m.sameSchema(schema) && !strings.Contains(lq, strings.ToLower(m.schema)) {
		return false
	}
	for t := range m.tables {
		if strings.Contains(lq, t) {
			return true
		}
	}
	return false
}

// isDDL reports whether a statement changes a schema.
func isDDL(q string) bool {
	switch verb(q) {
	case "ALTER", "CREATE", "DROP", "TRUNCATE", "RENAME":
		return true
	}
	return false
}

// isDML reports whether a statement changes rows.
func isDML(q string) bool {
	switch verb(q) {
	case "INSERT", "UPDATE", "DELETE", "REPLACE", "LOAD", "WITH":
		return true
	}
	return false
}

// verb is a statement's first word, upper-cased, after any leading
// comments (/* … */, -- …, # …) and white space: the server logs a
// statement as the client sent it, comments included.
func verb(q string) string {
	for {
		q = strings.TrimLeft(q, " \t\r\n(")
		switch {
		case strings.HasPrefix(q, "/*"):
			end := strings.Index(q[2:], "*/")
			if end < 0 {
				return ""
			}
			// /*!50100 … */ and /*M! … */ are executed comments: their
			// body is the statement's.
			if body := q[2 : 2+end]; strings.HasPrefix(body, "!") || strings.HasPrefix(body, "M!") {
				body = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(body, "M"), "!"), "0123456789")
				if v := verb(body); v != "" {
					return v
				}
			}
			q = q[2+end+2:]
		case strings.HasPrefix(q, "--"), strings.HasPrefix(q, "#"):
			_, rest, ok := strings.Cut(q, "\n")
			if !ok {
				return ""
			}
			q = rest
		default:
			w, _, _ := strings.Cut(q, " ")
			w, _, _ = strings.Cut(w, "\n")
			w, _, _ = strings.Cut(w, "\t")
			return strings.ToUpper(w)
		}
	}
}

// rows adds what a row event changed to c. stale: the event's table has
// another column count than the one read (its schema changed), so its
// images cannot be read.
func (m *binlogMapper) rows(e *replication.RowsEvent, update bool, c *catalog.Change) (stale bool, err error) {
	if e.Table == nil || !m.sameSchema(string(e.Table.Schema)) {
		return false, nil
	}
	table := strings.ToLower(string(e.Table.Table))
	role, ok := m.tables[table]
	if !ok {
		return false, nil
	}
	if role == roleTable {
		all(c, catalog.KindTable)
		return false, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	tc, ok := m.cols[table]
	if !ok || tc.count != int(e.Table.ColumnCount) {
		return true, nil
	}
	col := func(row []any, name string) any {
		if i, ok := tc.pos[name]; ok && i < len(row) {
			return row[i]
		}
		return nil
	}
	for _, name := range roleColumns[role] {
		if _, ok := tc.pos[name]; !ok {
			return true, nil // a column the mapping needs is missing
		}
	}
	// A partial image (binlog_row_image MINIMAL, for the server or a
	// session) lacks columns the mapping reads: what the row was cannot
	// be known. NOBLOB leaves out only text columns the mapping does not
	// read.
	for _, skipped := range e.SkippedColumns {
		for _, c := range skipped {
			for _, name := range roleColumns[role] {
				if tc.pos[name] == c {
					return false, &BlindError{Reason: BlindPartial, Detail: fmt.Sprintf(
						"a row image of %s lacks its column %s (binlog_row_image is not FULL for the server or a session)",
						table, name)}
				}
			}
		}
	}
	for i := 0; i < len(e.Rows); i++ {
		row := e.Rows[i]
		var before []any
		if update && i+1 < len(e.Rows) {
			// An update's rows come in pairs: the before image, the after.
			before, row = row, e.Rows[i+1]
			i++
		}
		images := [][]any{row}
		if before != nil {
			images = append(images, before)
		}
		switch role {
		case rolePosts:
			for _, img := range images {
				id := toInt64(col(img, "ID"))
				switch toString(col(img, "post_type")) {
				case "product":
					c.Products = append(c.Products, id)
				case "product_variation":
					c.Products = append(c.Products, id)
					if p := toInt64(col(img, "post_parent")); p > 0 {
						c.Products = append(c.Products, p)
					}
				case "attachment":
					c.Posts = append(c.Posts, id)
				}
			}
		case rolePostmeta:
			for _, img := range images {
				if m.metaKeys[toString(col(img, "meta_key"))] {
					c.Posts = append(c.Posts, toInt64(col(img, "post_id")))
				}
			}
		case roleRelationships:
			for _, img := range images {
				if m.memberT[toInt64(col(img, "term_taxonomy_id"))] {
					// Polylang's term_language relates a term (a
					// category), not a post: its language moved.
					all(c, catalog.KindTerm)
					continue
				}
				c.Posts = append(c.Posts, toInt64(col(img, "object_id")))
			}
		case roleTermTaxonomy:
			ours := false
			for _, img := range images {
				if tax := toString(col(img, "taxonomy")); m.reads.ReadsTaxonomy(tax) {
					ours = true
					m.terms[toInt64(col(img, "term_id"))] = true
					if m.members[tax] {
						m.memberT[toInt64(col(img, "term_taxonomy_id"))] = true
					}
				}
			}
			// WordPress recounts a term's objects at every publish and
			// trash: a change of count alone shows nothing.
			if ours && (before == nil || !onlyChanged(before, row, tc.pos["count"])) {
				all(c, catalog.KindTerm)
			}
		case roleTerms:
			for _, img := range images {
				if m.terms[toInt64(col(img, "term_id"))] {
					all(c, catalog.KindTerm)
				}
			}
		case roleTermmeta:
			for _, img := range images {
				if toString(col(img, "meta_key")) == "order" && m.terms[toInt64(col(img, "term_id"))] {
					all(c, catalog.KindTerm)
				}
			}
		case roleOptions:
			for _, img := range images {
				if m.options[toString(col(img, "option_name"))] {
					all(c, catalog.KindOption)
				}
			}
		}
	}
	return false, nil
}

// all marks c as changing everything, the first such cause naming it.
func all(c *catalog.Change, kind string) {
	if !c.All {
		c.All, c.Kind = true, kind
	}
}

// onlyChanged reports whether the images differ in column i alone.
func onlyChanged(before, after []any, i int) bool {
	if len(before) != len(after) {
		return false
	}
	for j := range before {
		if j != i && !reflect.DeepEqual(before[j], after[j]) {
			return false
		}
	}
	return true
}

// toInt64 reads an integer column's value as the decoder gives it.
func toInt64(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int32:
		return int64(n)
	case int16:
		return int64(n)
	case int8:
		return int64(n)
	case int:
		return int64(n)
	case uint64:
		return int64(n)
	case uint32:
		return int64(n)
	case uint16:
		return int64(n)
	case uint8:
		return int64(n)
	case []byte:
		i, _ := strconv.ParseInt(string(n), 10, 64)
		return i
	case string:
		i, _ := strconv.ParseInt(n, 10, 64)
		return i
	}
	return 0
}

// toString reads a text column's value as the decoder gives it.
func toString(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []byte:
		return string(s)
	}
	return ""
}

// sortedUnique sorts ids and drops repeats and zeros.
func sortedUnique(ids []int64) []int64 {
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if ids[0] == 0 {
		ids = ids[1:]
	}
	return ids
}
