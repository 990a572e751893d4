package binlog

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"catalogd/wpdb"
)

// A change logged as a statement names the tables it writes, not what it
// changed: an UPDATE through a view changes the view's base tables, an
// INSERT fires its table's triggers, and neither shows in the log. So a
// statement leaves the feed following the log only when every table it
// writes is shown to be a plain table the catalog does not read: a base
// table of an engine that keeps its own rows, which the user sees in
// information_schema, whose triggers the user may see (MariaDB and MySQL
// show a table's triggers only to a holder of the TRIGGER privilege on
// it), and which has none. Anything else may write what the catalog
// reads: the feed is blind.

// tableFacts is what information_schema showed the user of a table a
// statement logged as such writes.
type tableFacts struct {
	seen         bool   // in information_schema.TABLES
	kind         string // its TABLE_TYPE
	engine       string
	triggersSeen bool // the user holds TRIGGER on it: TRIGGERS shows them all
	triggers     int
	// at is the server's clock after the reads (Unix seconds): a schema
	// change that began later was not in them.
	at  int64
	err error
}

// baseKinds are the TABLE_TYPEs of a table that holds its own rows.
var baseKinds = map[string]bool{"BASE TABLE": true, "SYSTEM VERSIONED": true}

// plainEngines keep their rows themselves: MERGE's are other tables',
// FEDERATED's, CONNECT's and SPIDER's another table's, maybe on this server.
var plainEngines = map[string]bool{"innodb": true, "myisam": true, "aria": true, "memory": true,
	"csv": true, "archive": true, "blackhole": true, "rocksdb": true}

// notPlain says, after the table's name, why the facts do not show a
// plain table; "" when they do.
func (f tableFacts) notPlain() string {
	switch {
	case f.err != nil:
		return fmt.Sprintf("which catalogd could not look up (%v)", f.err)
	case !f.seen:
		return "which catalogd's user cannot see"
	case f.kind == "VIEW":
		return "a view: what it changes is the tables it selects from"
	case !baseKinds[f.kind]:
		return fmt.Sprintf("which is no base table (%s)", strings.ToLower(f.kind))
	case !plainEngines[strings.ToLower(f.engine)]:
		return fmt.Sprintf("a table of the %s engine, whose rows may be other tables'", f.engine)
	case !f.triggersSeen:
		return "whose triggers catalogd's user cannot see (that takes the TRIGGER privilege on the table)"
	case f.triggers > 0:
		return "which has triggers: what they write is not in the log"
	}
	return ""
}

// statementBlind is the feed's end at a change logged as a statement that
// may touch what the catalog reads, made by session (its thread ID, as
// SHOW PROCESSLIST shows it).
func statementBlind(session uint32, why string) *BlindError {
	return &BlindError{Reason: BlindStatement, Detail: fmt.Sprintf("a change was logged as a statement, not as rows "+
		"(binlog_format is not ROW for the server or for session %d): %s", session, why)}
}

// dmlTouches says why a data change logged as a statement in schema may
// change what the catalog reads, or "" when every table it writes is
// shown to be a plain table the feed does not follow; lookup tells what a
// table is (schema resolved).
func (m *binlogMapper) dmlTouches(schema, q string, lookup func(target) tableFacts) string {
	if isCall(q) {
		return "it calls a stored function that wrote data (the log holds a SELECT or DO for nothing else), " +
			"and what that wrote is not in the log"
	}
	tables, _, ok := statementTargets(q)
	if !ok {
		return "catalogd cannot read which tables it writes"
	}
	for _, t := range tables {
		if m.watched(schema, t) {
			return fmt.Sprintf("it writes %s, which catalogd reads", qualified(schema, t))
		}
	}
	for _, t := range tables {
		if t.schema == "" {
			t.schema = schema
		}
		if why := lookup(t).notPlain(); why != "" {
			return fmt.Sprintf("it writes %s, %s", qualified(schema, t), why)
		}
	}
	return ""
}

// qualified is t's name with its schema, the statement's when it names none.
func qualified(schema string, t target) string {
	if t.schema != "" {
		schema = t.schema
	}
	return schema + "." + t.table
}

// isCall reports whether a statement is a SELECT or DO, which the log
// holds only when a stored function it calls wrote data.
func isCall(q string) bool {
	v := verb(q)
	return v == "SELECT" || v == "DO"
}

// maxKnown bounds the tables the mapper remembers; past it, it forgets
// them all and looks them up again.
const maxKnown = 1024

// known returns what the mapper knows of t (schema resolved), looking it
// up through db when it knows nothing. A table stays known until a schema
// change names it (knownChanged); a failed look-up is not kept.
func (m *binlogMapper) known(ctx context.Context, db *wpdb.DB, t target) tableFacts {
	m.mu.Lock()
	fold, key := m.fold, t
	if fold {
		key = target{strings.ToLower(t.schema), strings.ToLower(t.table)}
	}
	f, ok := m.tablesKnown[key]
	m.mu.Unlock()
	if ok {
		return f
	}
	f = lookupTable(ctx, db, t, fold)
	if f.err != nil {
		return f
	}
	m.mu.Lock()
	if m.tablesKnown == nil || len(m.tablesKnown) >= maxKnown {
		m.tablesKnown = map[target]tableFacts{}
	}
	m.tablesKnown[key] = f
	m.mu.Unlock()
	return f
}

// forgetTables drops what the mapper knows of tables (another server).
func (m *binlogMapper) forgetTables() {
	m.mu.Lock()
	m.tablesKnown = nil
	m.mu.Unlock()
}

// knownChanged takes a schema change logged in schema at began (the
// server's clock, Unix seconds, when it began): what the mapper knows of
// the tables it names is dropped. One it took for plain from reads made
// after the change began may have been a view, or had a trigger, when the
// statement that wrote it ran, before the change in the log: knownChanged
// says so, and the feed is blind; "" otherwise. A table counts as named
// when its name is anywhere in the text (a DROP TRIGGER names only the
// trigger: every table counts), and its schema too or the change ran in
// it, which takes in more, never less.
func (m *binlogMapper) knownChanged(schema string, began uint32, q string) string {
	lq := strings.ToLower(q)
	anyTable := dropTriggerRE.MatchString(q)
	m.mu.Lock()
	defer m.mu.Unlock()
	why := ""
	for t, f := range m.tablesKnown {
		if !anyTable && !strings.Contains(lq, strings.ToLower(t.table)) ||
			!strings.EqualFold(t.schema, schema) && !strings.Contains(lq, strings.ToLower(t.schema)) {
			continue
		}
		delete(m.tablesKnown, t)
		if why == "" && f.notPlain() == "" && int64(began) <= f.at {
			why = fmt.Sprintf("a schema change that names %s.%s began before catalogd looked the table up "+
				"for a change logged as a statement before it: what the table was then is not known", t.schema, t.table)
		}
	}
	return why
}

// dropTriggerRE finds a DROP TRIGGER, which names no table.
var dropTriggerRE = regexp.MustCompile(`(?i)\bDROP\s+TRIGGER\b`)

// lookupTable reads what information_schema shows the user of the table t:
// its type and engine, its triggers, and whether it may see them (the
// TRIGGER privilege, granted on the table, its schema or globally).
// Names are matched as the server matches them: exactly, or without case
// where lower_case_table_names folds it (fold); information_schema's own
// comparison may be looser (MariaDB's ignores case), so the rows are
// matched again here. A privilege held through a role is not seen: its
// table then counts as one whose triggers are hidden.
func lookupTable(ctx context.Context, db *wpdb.DB, t target, fold bool) tableFacts {
	same := func(a, b string) bool {
		if fold {
			return strings.EqualFold(a, b)
		}
		return a == b
	}
	var f tableFacts
	f.err = db.View(ctx, func(ctx context.Context, tx *wpdb.Tx) error {
		var user string
		if err := tx.Get(ctx, &user, `SELECT CURRENT_USER()`); err != nil {
			return fmt.Errorf("wpdb: binlog: the current user: %w", err)
		}
		var tables []struct {
			Schema string `db:"s"`
			Name   string `db:"n"`
			Kind   string `db:"kind"`
			Engine string `db:"engine"`
		}
		if err := tx.Select(ctx, &tables, `SELECT TABLE_SCHEMA AS s, TABLE_NAME AS n, TABLE_TYPE AS kind,
			COALESCE(ENGINE, '') AS engine FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`,
			t.schema, t.table); err != nil {
			return fmt.Errorf("wpdb: binlog: what %s.%s is: %w", t.schema, t.table, err)
		}
		for _, r := range tables {
			if same(r.Schema, t.schema) && same(r.Name, t.table) {
				f.seen, f.kind, f.engine = true, r.Kind, r.Engine
			}
		}
		var names []struct {
			Schema string `db:"s"`
			Name   string `db:"n"`
		}
		if err := tx.Select(ctx, &names, `SELECT EVENT_OBJECT_SCHEMA AS s, EVENT_OBJECT_TABLE AS n
			FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ?`,
			t.schema, t.table); err != nil {
			return fmt.Errorf("wpdb: binlog: the triggers of %s.%s: %w", t.schema, t.table, err)
		}
		for _, r := range names {
			if same(r.Schema, t.schema) && same(r.Name, t.table) {
				f.triggers++
			}
		}
		// A global grant shows with no schema, a schema's with no table.
		names = names[:0]
		if grantee, ok := granteeOf(user); ok {
			if err := tx.Select(ctx, &names, `SELECT '' AS s, '' AS n FROM information_schema.USER_PRIVILEGES
				WHERE GRANTEE = ? AND PRIVILEGE_TYPE = 'TRIGGER'
				UNION ALL SELECT TABLE_SCHEMA, '' FROM information_schema.SCHEMA_PRIVILEGES
				WHERE GRANTEE = ? AND PRIVILEGE_TYPE = 'TRIGGER' AND TABLE_SCHEMA = ?
				UNION ALL SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLE_PRIVILEGES
				WHERE GRANTEE = ? AND PRIVILEGE_TYPE = 'TRIGGER' AND TABLE_SCHEMA = ? AND TABLE_NAME = ?`,
				grantee, grantee, t.schema, grantee, t.schema, t.table); err != nil {
				return fmt.Errorf("wpdb: binlog: the TRIGGER privilege: %w", err)
			}
		}
		for _, r := range names {
			if r.Schema == "" || same(r.Schema, t.schema) && (r.Name == "" || same(r.Name, t.table)) {
				f.triggersSeen = true
			}
		}
		if err := tx.Get(ctx, &f.at, `SELECT UNIX_TIMESTAMP()`); err != nil {
			return fmt.Errorf("wpdb: binlog: the server's clock: %w", err)
		}
		return nil
	})
	if f.err != nil {
		f = tableFacts{err: f.err}
	}
	return f
}

// granteeOf is information_schema's GRANTEE ('user'@'host') of the account
// CURRENT_USER() names (user@host).
func granteeOf(user string) (string, bool) {
	i := strings.LastIndex(user, "@")
	if i < 0 {
		return "", false
	}
	return "'" + user[:i] + "'@'" + user[i+1:] + "'", true
}
