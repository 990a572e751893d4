package wpdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/catalog"
	"catalogd/internal/testdb"
)

// On a server that compares names without case (lower_case_table_names=1:
// Windows, macOS, Azure's default), a DSN may spell the database in
// capitals: every query works, and so must the feed, whose row events
// carry the name as the server stores it.
func TestBinlogFeedSchemaCaseAsTheServerCompares(t *testing.T) {
	srv := testdb.NewServer(t, "--lower-case-table-names=1")
	p := newProductShop()
	dsn, raw := testdb.LoadOn(t, srv.DSN(), p.shop)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = strings.ToUpper(cfg.DBName[:1]) + cfg.DBName[1:] // Catalogd_test_…
	upper := cfg.FormatDSN()
	db, err := Open(upper, Options{Prefix: "wp_"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := &feedHarness{raw: raw, db: db, dsn: upper}
	h.run(t, upper, BinlogOptions{}, nil)
	h.exec(t, false, fmt.Sprintf("UPDATE wp_postmeta SET meta_value = '12' WHERE post_id = %d AND meta_key = '_regular_price'", p.radar))
	expect(t, h.next(t), catalog.Change{Posts: ids(p.radar), Kind: catalog.KindProduct})
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
			h.run(t, h.dsn, BinlogOptions{}, nil)
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
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(tt.stmt, p.radar)); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if tt.reason == "" {
				if strings.Contains(tt.stmt, "wp_postmeta") {
					expect(t, h.next(t), catalog.Change{Posts: ids(p.radar), Kind: catalog.KindProduct})
				}
				h.marker(t)
				expect(t, h.next(t), optionChange)
				return
			}
			select {
			case err := <-h.runError:
				var blind *BlindError
				if !errors.As(err, &blind) || blind.Reason != tt.reason {
					t.Fatalf("Run ended with %v, want a BlindError for %s", err, tt.reason)
				}
				t.Logf("Run: %v", err)
				h.ended.Store(true)
			case c := <-h.changes:
				t.Fatalf("the feed reported %+v and goes on, blind", c)
			case <-time.After(10 * time.Second):
				t.Fatal("the feed did not end within 10 s")
			}
		})
	}
}
