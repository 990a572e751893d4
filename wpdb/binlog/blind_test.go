package binlog

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpdbtest"
	"catalogd/wpdb"
)

// On a server that compares names without case (lower_case_table_names=1:
// Windows, macOS, Azure's default), a DSN may spell the database in
// capitals: every query works, and so must the feed, whose row events
// carry the name as the server stores it.
func TestBinlogFeedSchemaCaseAsTheServerCompares(t *testing.T) {
	srv := testdb.NewServer(t, "--lower-case-table-names=1")
	p := wpdbtest.NewProducts()
	dsn, raw := testdb.LoadOn(t, srv.DSN(), p.Shop)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = strings.ToUpper(cfg.DBName[:1]) + cfg.DBName[1:] // Catalogd_test_…
	upper := cfg.FormatDSN()
	db, err := wpdb.Open(upper, wpdb.Options{Prefix: "wp_"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := &feedHarness{raw: raw, db: db, dsn: upper}
	h.run(t, upper, Options{}, nil)
	h.exec(t, false, fmt.Sprintf("UPDATE wp_postmeta SET meta_value = '12' WHERE post_id = %d AND meta_key = '_regular_price'", p.Radar))
	expect(t, h.next(t), catalog.Change{Posts: ids(p.Radar), Kind: catalog.KindProduct})
}

// A change the feed cannot read from the log (a statement, a partial row
// image), made by a session whose own settings differ from the server's,
// ends Run with a *BlindError that says why; a change to a table the
// catalog does not read, logged as a statement, does not.
func TestBinlogFeedBlindToSessionSettings(t *testing.T) {
	tests := []struct {
		name    string
		session string
		stmt    string
		reason  string // "" : no blindness, the marker's change comes next
	}{
		{"statement on postmeta", "SET SESSION binlog_format = 'STATEMENT'",
			"UPDATE wp_postmeta SET meta_value = '13' WHERE meta_key = '_regular_price' AND post_id = %d", BlindStatement},
		{"statement behind a comment", "SET SESSION binlog_format = 'STATEMENT'",
			"/* wc-admin */ DELETE FROM wp_term_relationships WHERE object_id = %d", BlindStatement},
		{"statement on a table not read", "SET SESSION binlog_format = 'STATEMENT'",
			"INSERT INTO wp_actionscheduler_logs (log_id, message) VALUES (%d, 'action complete')", ""},
		{"minimal image on postmeta", "SET SESSION binlog_row_image = 'MINIMAL'",
			"UPDATE wp_postmeta SET meta_value = '14' WHERE meta_key = '_regular_price' AND post_id = %d", BlindPartial},
		{"minimal image on posts", "SET SESSION binlog_row_image = 'MINIMAL'",
			"UPDATE wp_posts SET post_title = 'Radar M' WHERE ID = %d", BlindPartial},
		{"noblob image on postmeta: every column read is there", "SET SESSION binlog_row_image = 'NOBLOB'",
			"UPDATE wp_postmeta SET meta_value = '15' WHERE meta_key = '_regular_price' AND post_id = %d", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, p := newFeedShop(t)
			h.exec(t, false, "CREATE TABLE wp_actionscheduler_logs (log_id BIGINT PRIMARY KEY, message TEXT)")
			h.run(t, h.dsn, Options{}, nil)
			// One session: its own setting, then a transaction.
			ctx := context.Background()
			conn, err := h.raw.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(ctx, tt.session); err != nil {
				t.Fatal(err)
			}
			tx, err := conn.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(tt.stmt, p.Radar)); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if tt.reason == "" {
				if strings.Contains(tt.stmt, "wp_postmeta") {
					expect(t, h.next(t), catalog.Change{Posts: ids(p.Radar), Kind: catalog.KindProduct})
				}
				h.marker(t)
				expect(t, h.next(t), optionChange)
				return
			}
			h.wantBlind(t, tt.reason)
		})
	}
}

// wantBlind waits, 10 s at most, for Run to end with a *BlindError for
// reason, before it reports any change, and returns it.
func (h *feedHarness) wantBlind(t *testing.T, reason string) *BlindError {
	t.Helper()
	select {
	case err := <-h.runError:
		var blind *BlindError
		if !errors.As(err, &blind) || blind.Reason != reason {
			t.Fatalf("Run ended with %v, want a BlindError for %s", err, reason)
		}
		t.Logf("Run: %v", err)
		h.ended.Store(true)
		return blind
	case c := <-h.changes:
		t.Fatalf("the feed reported %+v and goes on, blind", c)
	case <-time.After(10 * time.Second):
		t.Fatal("the feed did not end within 10 s")
	}
	return nil
}

// session runs stmts, in order, in one session of the shop's database
// as the admin (a SET SESSION holds for those after it), which then ends.
func (h *feedHarness) session(t *testing.T, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := h.raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		// Its settings would go back to the pool with it.
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		conn.Close()
	}()
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// A change logged as a statement that writes what the catalog reads
// through a view, a trigger or a stored function names only the view, the
// side table or the SELECT: the feed ends blind unless every table the
// statement writes is shown to be plain. WooCommerce's sessions table is
// plain to WordPress's own user (every privilege on the shop's schema),
// not to the read-only user of deploy/mysql, which sees no trigger.
func TestBinlogFeedBlindThroughViewsAndTriggers(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs.tsv")
	if err := os.WriteFile(logs, []byte("1\tloaded\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mysql.RegisterLocalFile(logs)
	defer mysql.DeregisterLocalFile(logs)
	const (
		statement = "SET SESSION binlog_format = 'STATEMENT'"
		mixed     = "SET SESSION binlog_format = 'MIXED'"
	)
	tests := []struct {
		name    string
		setup   []string // as the admin, before the feed starts
		session string
		stmt    string // %d: the product
		user    string // "": the admin; wordpress, readonly: as deploy/mysql's user or WordPress's
		reason  string // "": not blind
	}{
		{"an update through a view over the meta", []string{"CREATE VIEW v_meta AS SELECT * FROM wp_postmeta"}, statement,
			"UPDATE v_meta SET meta_value = '66' WHERE meta_key = '_regular_price' AND post_id = %d", "", "a view"},
		{"an update through a view, MIXED", []string{"CREATE VIEW v_meta AS SELECT * FROM wp_postmeta"}, mixed,
			"UPDATE v_meta SET meta_value = '66' WHERE meta_key = '_regular_price' AND post_id = %d", "", "a view"},
		{"an insert into a side table whose trigger updates the meta", []string{
			"CREATE TABLE price_feed (post_id BIGINT, price VARCHAR(20))",
			"CREATE TRIGGER price_feed_ai AFTER INSERT ON price_feed FOR EACH ROW UPDATE wp_postmeta " +
				"SET meta_value = NEW.price WHERE meta_key = '_regular_price' AND post_id = NEW.post_id"}, statement,
			"INSERT INTO price_feed (post_id, price) VALUES (%d, '66')", "", "has triggers"},
		{"a stored function that updates the meta", []string{
			"CREATE FUNCTION reprice(id BIGINT) RETURNS INT DETERMINISTIC MODIFIES SQL DATA BEGIN " +
				"UPDATE wp_postmeta SET meta_value = '66' WHERE meta_key = '_regular_price' AND post_id = id; RETURN 1; END"},
			statement, "SELECT reprice(%d)", "", "stored function"},
		{"a LOAD DATA into a table not read", nil, statement,
			"LOAD DATA LOCAL INFILE '" + logs + "' INTO TABLE wp_actionscheduler_logs /* %d */", "", "LOAD DATA"},
		{"the sessions table, as WordPress's user", nil, statement, wcSession, "wordpress", ""},
		{"the sessions table, as the read-only user", nil, statement, wcSession, "readonly", "cannot see"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, p := newFeedShop(t)
			h.exec(t, false, append([]string{"CREATE TABLE wp_actionscheduler_logs (log_id BIGINT PRIMARY KEY, message TEXT)",
				"CREATE TABLE wp_woocommerce_sessions (session_id BIGINT AUTO_INCREMENT PRIMARY KEY, " +
					"session_key CHAR(32) UNIQUE, session_value LONGTEXT, session_expiry BIGINT)"}, tt.setup...)...)
			f := h.as(t, tt.user)
			f.run(t, f.dsn, Options{}, nil)
			h.session(t, tt.session, fmt.Sprintf(tt.stmt, p.Radar))
			if tt.reason == "" {
				h.marker(t)
				expect(t, f.next(t), optionChange)
				return
			}
			if blind := f.wantBlind(t, BlindStatement); !strings.Contains(blind.Detail, tt.reason) {
				t.Errorf("Detail %q does not say %q", blind.Detail, tt.reason)
			}
		})
	}
}

// wcSession is WooCommerce's write of a cart's session (WC_Session_Handler::save_data).
const wcSession = "INSERT INTO wp_woocommerce_sessions (session_key, session_value, session_expiry) " +
	"VALUES ('t_%d', 'a:0:{}', 1900000000) ON DUPLICATE KEY UPDATE session_value = VALUES(session_value)"

// as returns a harness on h's shop whose feed reads as the user named: ""
// the admin, "readonly" the grants deploy/mysql/readonly-user.sql gives
// (SELECT on the tables catalogd reads) with those of the binary log,
// "wordpress" every privilege on the shop's schema, as WordPress's own
// user holds, with those of the binary log.
func (h *feedHarness) as(t *testing.T, user string) *feedHarness {
	t.Helper()
	if user == "" {
		return h
	}
	cfg, err := mysql.ParseDSN(h.dsn)
	if err != nil {
		t.Fatal(err)
	}
	grants := []string{"REPLICATION SLAVE, REPLICATION CLIENT ON *.*"}
	switch user {
	case "readonly":
		for _, tb := range []string{"posts", "postmeta", "terms", "term_taxonomy", "term_relationships", "termmeta",
			"options", "woocommerce_attribute_taxonomies"} {
			grants = append(grants, "SELECT ON `"+cfg.DBName+"`.`wp_"+tb+"`")
		}
	case "wordpress":
		grants = append(grants, "ALL PRIVILEGES ON `"+cfg.DBName+"`.*")
	default:
		t.Fatalf("no user %q", user)
	}
	u := testdb.NewUserOn(t, testdb.BinlogServer(t), h.dsn, grants...)
	return &feedHarness{raw: h.raw, db: openTest(t, u.DSN), dsn: u.DSN}
}

// What the feed knows of a table is read again after a schema change
// names it: a trigger made on a side table while the feed follows the
// log makes the next statement-logged insert into it blind.
func TestBinlogFeedLearnsTriggersFromTheLog(t *testing.T) {
	h, p := newFeedShop(t)
	h.exec(t, false, "CREATE TABLE price_feed (post_id BIGINT, price VARCHAR(20))")
	h.run(t, h.dsn, Options{}, nil)
	insert := fmt.Sprintf("INSERT INTO price_feed (post_id, price) VALUES (%d, '66')", p.Radar)
	h.session(t, "SET SESSION binlog_format = 'STATEMENT'", insert)
	h.marker(t)
	expect(t, h.next(t), optionChange)
	// A schema change that began in the second the feed looked the table
	// up would make it blind by itself (what the table was is not
	// known): the trigger comes in a later second.
	then := h.scalar(t, "SELECT UNIX_TIMESTAMP()")
	for deadline := time.Now().Add(5 * time.Second); h.scalar(t, "SELECT UNIX_TIMESTAMP()") <= then; {
		if time.Now().After(deadline) {
			t.Fatal("the server's clock did not move within 5 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.exec(t, false, "CREATE TRIGGER price_feed_ai AFTER INSERT ON price_feed FOR EACH ROW UPDATE wp_postmeta "+
		"SET meta_value = NEW.price WHERE meta_key = '_regular_price' AND post_id = NEW.post_id")
	// The trigger's text names the meta: the columns are read again, and
	// the whole shop.
	expect(t, h.next(t), catalog.Change{All: true, Kind: catalog.KindTable})
	h.session(t, "SET SESSION binlog_format = 'STATEMENT'", insert)
	if blind := h.wantBlind(t, BlindStatement); !strings.Contains(blind.Detail, "price_feed, which has triggers") {
		t.Errorf("Detail %q does not name the table and its triggers", blind.Detail)
	}
}
