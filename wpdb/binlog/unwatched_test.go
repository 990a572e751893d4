package binlog

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"catalogd/catalog"
	"catalogd/internal/testdb"
)

// A change logged as a statement leaves the feed following the log only
// when every table it writes is shown to be a plain table the catalog
// does not read; a view, a table with triggers, one whose triggers or
// whose self the user cannot see, count as touching the shop. Run in the
// followed schema "shop" or in another, "percona"; facts are what
// information_schema showed (by schema.table; absent: not seen).
func TestStatementTouchesTheShop(t *testing.T) {
	t.Parallel()
	plain := tableFacts{seen: true, kind: "BASE TABLE", engine: "InnoDB", triggersSeen: true}
	with := func(f tableFacts, change func(*tableFacts)) tableFacts { change(&f); return f }
	facts := map[string]tableFacts{
		"shop.wp_actionscheduler_logs": plain,
		"shop.wp_woocommerce_sessions": with(plain, func(f *tableFacts) { f.triggersSeen = false }),
		"shop.v_meta":                  {seen: true, kind: "VIEW"},
		"shop.price_feed":              with(plain, func(f *tableFacts) { f.triggers = 1 }),
		"shop.merged":                  with(plain, func(f *tableFacts) { f.engine = "MRG_MyISAM" }),
		"shop.history":                 with(plain, func(f *tableFacts) { f.kind = "SYSTEM VERSIONED" }),
		"shop.ids":                     with(plain, func(f *tableFacts) { f.kind = "SEQUENCE" }),
		"shop.flaky":                   {err: errors.New("connection refused")},
		"percona.checksums":            plain,
		"percona.wp_posts":             plain,
		"percona.v_meta":               {seen: true, kind: "VIEW"},
	}
	tests := []struct {
		name, schema, q string
		touches         string // a word of the reason; "" : shown not to touch
	}{
		{"an update through a view over the meta", "shop",
			"UPDATE v_meta SET meta_value = '66' WHERE post_id = 7 AND meta_key = '_regular_price'", "a view"},
		{"an insert into a table whose trigger writes the meta", "shop",
			"INSERT INTO price_feed (post_id, price) VALUES (7, '66')", "has triggers"},
		{"a plain table seen whole", "shop", "INSERT INTO wp_actionscheduler_logs (log_id, message) VALUES (1, 'x')", ""},
		{"a table whose triggers the user cannot see", "shop",
			"UPDATE wp_woocommerce_sessions SET session_expiry = 1 WHERE session_key = 'k'", "TRIGGER privilege"},
		{"a table the user cannot see", "shop", "DELETE FROM wp_wc_orders_meta WHERE order_id = 3", "cannot see"},
		{"a table whose rows are other tables'", "shop", "INSERT INTO merged VALUES (1)", "MRG_MyISAM"},
		{"a system-versioned table", "shop", "UPDATE history SET v = 2 WHERE id = 1", ""},
		{"a sequence", "shop", "INSERT INTO ids VALUES (1)", "no base table"},
		{"a table that could not be looked up", "shop", "INSERT INTO flaky VALUES (1)", "could not look up"},
		{"pt-table-checksum's chunk into its own schema", "shop", "REPLACE INTO `percona`.`checksums` (db, tbl, this_cnt) " +
			"SELECT 'shop', 'wp_posts', COUNT(*) FROM `shop`.`wp_posts`", ""},
		{"unqualified, in a session of another schema", "percona", "UPDATE checksums SET master_crc = this_crc", ""},
		{"a read table's name in another schema", "shop", "UPDATE percona.wp_posts SET post_title = 'x'", ""},
		{"another schema's view", "shop", "UPDATE percona.v_meta SET meta_value = '1'", "a view"},
		{"a join that reads the view and writes a plain table", "shop",
			"UPDATE wp_actionscheduler_logs l JOIN v_meta v ON v.post_id = l.log_id SET l.message = v.meta_value", ""},
		{"a join that writes through the view", "shop",
			"UPDATE wp_actionscheduler_logs l JOIN v_meta v ON v.post_id = l.log_id SET v.meta_value = l.message", "a view"},
		{"the meta itself", "shop", "UPDATE wp_postmeta SET meta_value = '1' WHERE post_id = 7", "which catalogd reads"},
		{"a stored function's write", "shop", "SELECT `shop`.`reprice`(7)", "stored function"},
		{"a stored function's write, DO", "shop", "/* cron */ DO reprice(7)", "stored function"},
		{"a body the parser cannot read", "shop", "/*M!100000 UPDATE wp_actionscheduler_logs SET message = 'x' */",
			"cannot read which tables"},
	}
	m := newBinlogMapper("shop", "wp_", catalog.ShopReads)
	for _, tt := range tests {
		var looked []string
		got := m.dmlTouches(tt.schema, tt.q, func(t target) tableFacts {
			looked = append(looked, t.schema+"."+t.table)
			return facts[t.schema+"."+t.table]
		})
		switch {
		case tt.touches == "" && got != "":
			t.Errorf("%s: %q touches the shop: %s; want it shown not to", tt.name, tt.q, got)
		case tt.touches != "" && !strings.Contains(got, tt.touches):
			t.Errorf("%s: %q: reason %q, want one saying %q", tt.name, tt.q, got, tt.touches)
		}
		if strings.Contains(tt.touches, "catalogd reads") && len(looked) > 0 {
			t.Errorf("%s: looked up %v for a table the feed follows", tt.name, looked)
		}
	}
}

// A schema change that names a table the feed took for plain, and began
// no later than the reads that showed it so, may have made it plain
// after the change logged before it ran: the feed is blind. Later, or of
// another table, it only drops what the feed knew, which is read again.
func TestKnownTablesChanged(t *testing.T) {
	t.Parallel()
	plain := tableFacts{seen: true, kind: "BASE TABLE", engine: "InnoDB", triggersSeen: true, at: 1000}
	view := tableFacts{seen: true, kind: "VIEW", at: 1000}
	tests := []struct {
		name, schema string // the change ran in schema
		began        uint32
		ddl          string
		blind        bool
		forgotten    bool
	}{
		{"its trigger dropped before the reads", "shop", 999, "/* cleanup */ DROP TRIGGER reprice", true, true},
		{"its trigger dropped in the reads' second", "percona", 1000, "DROP TRIGGER IF EXISTS `shop`.`price_feed_ai`", true, true},
		{"a view replaced by it before the reads", "shop", 1000, "RENAME TABLE price_feed_new TO price_feed", true, true},
		{"a trigger made on it after the reads", "shop", 1001,
			"CREATE TRIGGER t AFTER INSERT ON price_feed FOR EACH ROW SET @x = 1", false, true},
		{"another table changed", "shop", 999, "ALTER TABLE wp_actionscheduler_logs ADD COLUMN x INT", false, false},
		{"a trigger of another schema dropped", "percona", 999, "DROP TRIGGER reprice", false, false},
		{"a table of its name in another schema", "percona", 999, "DROP VIEW price_feed", false, false},
	}
	for _, tt := range tests {
		m := newBinlogMapper("shop", "wp_", catalog.ShopReads)
		m.tablesKnown = map[target]tableFacts{{"shop", "price_feed"}: plain, {"shop", "v_meta"}: view}
		why := m.knownChanged(tt.schema, tt.began, tt.ddl)
		if (why != "") != tt.blind {
			t.Errorf("%s: knownChanged = %q, want blind %v", tt.name, why, tt.blind)
		}
		if _, kept := m.tablesKnown[target{"shop", "price_feed"}]; kept == tt.forgotten {
			t.Errorf("%s: the table is known still: %v, want %v", tt.name, kept, !tt.forgotten)
		}
	}
	// A view stays a view whatever came after: it is only forgotten.
	m := newBinlogMapper("shop", "wp_", catalog.ShopReads)
	m.tablesKnown = map[target]tableFacts{{"shop", "v_meta"}: view}
	if why := m.knownChanged("shop", 999, "DROP VIEW v_meta"); why != "" || len(m.tablesKnown) != 0 {
		t.Errorf("a view dropped: knownChanged = %q, known %v; want no blindness, the view forgotten", why, m.tablesKnown)
	}
}

// What a user may be shown of a table, on the server: its type to any
// user with a privilege on it, its triggers only to a holder of the
// TRIGGER privilege (on it, its schema, or every schema). A SELECT-only
// user sees no trigger at all, so no table is plain to it.
func TestLookupTableAsTheServerShowsIt(t *testing.T) {
	dsn := testdb.New(t)
	admin := testdb.Open(t, dsn)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE wp_postmeta (meta_id BIGINT PRIMARY KEY, post_id BIGINT, meta_key VARCHAR(255), meta_value LONGTEXT)",
		"CREATE TABLE price_feed (post_id BIGINT, price VARCHAR(20))",
		"CREATE TABLE plain_log (id BIGINT PRIMARY KEY)",
		"CREATE VIEW v_meta AS SELECT * FROM wp_postmeta",
		"CREATE TRIGGER price_feed_ai AFTER INSERT ON price_feed FOR EACH ROW " +
			"UPDATE wp_postmeta SET meta_value = NEW.price WHERE post_id = NEW.post_id AND meta_key = '_price'",
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	schema := cfg.DBName
	on := func(what string) string { return what + " ON `" + schema + "`.*" }
	tests := []struct {
		name   string
		grants []string // nil: the admin itself
		table  string
		plain  bool
		why    string
	}{
		{"the admin: a plain table", nil, "plain_log", true, ""},
		{"the admin: a view", nil, "v_meta", false, "a view"},
		{"the admin: a table with a trigger", nil, "price_feed", false, "has triggers"},
		{"SELECT on the schema: a plain table", []string{on("SELECT")}, "plain_log", false, "TRIGGER privilege"},
		{"SELECT on the schema: a table with a trigger", []string{on("SELECT")}, "price_feed", false, "TRIGGER privilege"},
		{"SELECT on the schema: a view", []string{on("SELECT")}, "v_meta", false, "a view"},
		{"SELECT on the meta alone: another table", []string{"SELECT ON `" + schema + "`.`wp_postmeta`"}, "plain_log", false, "cannot see"},
		{"SELECT, TRIGGER on the schema: a plain table", []string{on("SELECT, TRIGGER")}, "plain_log", true, ""},
		{"SELECT, TRIGGER on the schema: a table with a trigger", []string{on("SELECT, TRIGGER")}, "price_feed", false, "has triggers"},
		{"TRIGGER on the table alone", []string{"SELECT, TRIGGER ON `" + schema + "`.`plain_log`"}, "plain_log", true, ""},
		{"TRIGGER on another table", []string{on("SELECT"), "TRIGGER ON `" + schema + "`.`price_feed`"}, "plain_log", false, "TRIGGER privilege"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := dsn
			if tt.grants != nil {
				as = testdb.NewUser(t, dsn, tt.grants...).DSN
			}
			f := lookupTable(ctx, openTest(t, as), target{schema, tt.table}, false)
			why := f.notPlain()
			if (why == "") != tt.plain || !strings.Contains(why, tt.why) {
				t.Errorf("%s: facts %+v: %q; want plain %v, a reason saying %q", tt.table, f, why, tt.plain, tt.why)
			}
			if f.err == nil && f.at == 0 {
				t.Errorf("no time of the reads: %+v", f)
			}
		})
	}
}
