package binlog

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
	"catalogd/internal/wpdbtest"
)

// Each write WordPress and WooCommerce make on what the catalog reads is
// reported as what it touches, once per transaction; writes on what it
// does not read are reported not at all.
func TestBinlogFeedMapsWordPressWrites(t *testing.T) {
	h, p := newFeedShop(t)
	thumb := h.scalar(t, "SELECT meta_value FROM wp_postmeta WHERE post_id = ? AND meta_key = '_thumbnail_id'", p.Bundle)
	alphaTerm := h.scalar(t, "SELECT term_id FROM wp_term_taxonomy WHERE term_taxonomy_id = ?", p.Alpha)
	order := h.scalar(t, "SELECT ID FROM wp_posts WHERE post_type = 'shop_order'")
	h.run(t, h.dsn, Options{}, nil)

	tests := []struct {
		name  string
		tx    bool
		stmts []string
		want  *catalog.Change // nil: none (the marker's comes next)
	}{
		{"admin price edit (update_post_meta _price, _regular_price)", false, []string{
			fmt.Sprintf("UPDATE wp_postmeta SET meta_value = '12' WHERE post_id = %d AND meta_key = '_regular_price'", p.Radar),
		}, &catalog.Change{Posts: ids(p.Radar), Kind: catalog.KindProduct}},
		{"a sale counted (wc_update_total_sales_counts): the popularity order", false, []string{
			fmt.Sprintf("INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (%d, 'total_sales', '4')", p.Radar),
		}, &catalog.Change{Posts: ids(p.Radar), Kind: catalog.KindProduct}},
		{"product saved (wp_update_post)", false, []string{
			fmt.Sprintf("UPDATE wp_posts SET post_excerpt = 'New short', post_modified = NOW(), post_modified_gmt = UTC_TIMESTAMP() WHERE ID = %d", p.Radar),
		}, &catalog.Change{Products: ids(p.Radar), Kind: catalog.KindProduct}},
		{"variation saved: the variation and its parent", false, []string{
			fmt.Sprintf("UPDATE wp_posts SET menu_order = 5 WHERE ID = %d", p.VarESX),
		}, &catalog.Change{Products: ids(p.VarESX, p.Bundle), Kind: catalog.KindProduct}},
		{"product trashed (wp_trash_post)", false, []string{
			fmt.Sprintf("UPDATE wp_posts SET post_status = 'trash' WHERE ID = %d", p.Cuffs),
		}, &catalog.Change{Products: ids(p.Cuffs), Kind: catalog.KindProduct}},
		{"draft deleted for good (wp_delete_post's last statement)", false, []string{
			fmt.Sprintf("DELETE FROM wp_posts WHERE ID = %d", p.Draft),
		}, &catalog.Change{Products: ids(p.Draft), Kind: catalog.KindProduct}},
		{"featured image edited (an attachment)", false, []string{
			fmt.Sprintf("UPDATE wp_posts SET post_title = 'New image' WHERE ID = %d", thumb),
		}, &catalog.Change{Posts: ids(thumb), Kind: catalog.KindProduct}},
		{"product moved to another category (wp_set_object_terms)", false, []string{
			fmt.Sprintf("INSERT INTO wp_term_relationships (object_id, term_taxonomy_id, term_order) VALUES (%d, %d, 0)", p.Radar, p.Beta),
		}, &catalog.Change{Posts: ids(p.Radar), Kind: catalog.KindProduct}},
		{"category renamed (wp_update_term)", false, []string{
			fmt.Sprintf("UPDATE wp_terms SET name = 'Alpha renamed' WHERE term_id = %d", alphaTerm),
		}, &catalog.Change{All: true, Kind: catalog.KindTerm}},
		{"category re-parented", false, []string{
			fmt.Sprintf("UPDATE wp_term_taxonomy SET parent = %d WHERE term_taxonomy_id = %d", alphaTerm, p.Beta),
		}, &catalog.Change{All: true, Kind: catalog.KindTerm}},
		{"category re-ordered (update_term_meta order)", false, []string{
			fmt.Sprintf("UPDATE wp_termmeta SET meta_value = '7' WHERE term_id = %d AND meta_key = 'order'", alphaTerm),
		}, &catalog.Change{All: true, Kind: catalog.KindTerm}},
		{"a product tag created and renamed (terms, term_taxonomy, terms)", true, []string{
			"INSERT INTO wp_terms (term_id, name, slug, term_group) VALUES (7001, 'Sale', 'sale', 0)",
			"INSERT INTO wp_term_taxonomy (term_id, taxonomy, description, parent, count) VALUES (7001, 'product_tag', '', 0, 0)",
			"UPDATE wp_terms SET name = 'Sales' WHERE term_id = 7001",
		}, &catalog.Change{All: true, Kind: catalog.KindTerm}},
		{"a product tag's slug edited (wp_update_term)", false, []string{
			"UPDATE wp_terms SET slug = 'sales' WHERE term_id = 7001",
		}, &catalog.Change{All: true, Kind: catalog.KindTerm}},
		{"a term of a new attribute's taxonomy created and renamed", true, []string{
			"INSERT INTO wp_terms (term_id, name, slug, term_group) VALUES (7002, 'Red', 'red', 0)",
			"INSERT INTO wp_term_taxonomy (term_id, taxonomy, description, parent, count) VALUES (7002, 'pa_color', '', 0, 0)",
			"UPDATE wp_terms SET name = 'Crimson' WHERE term_id = 7002",
		}, &catalog.Change{All: true, Kind: catalog.KindTerm}},
		{"currency changed (update_option)", false, []string{
			"UPDATE wp_options SET option_value = 'JPY' WHERE option_name = 'woocommerce_currency'",
		}, &optionChange},
		{"attribute's sort order changed", false, []string{
			"UPDATE wp_woocommerce_attribute_taxonomies SET attribute_orderby = 'name' WHERE attribute_name = 'framework'",
		}, &catalog.Change{All: true, Kind: catalog.KindTable}},
		{"WPML installed: its table created", false, []string{
			"CREATE TABLE wp_icl_translations (translation_id bigint(20) NOT NULL AUTO_INCREMENT PRIMARY KEY, element_id bigint(20))",
		}, &catalog.Change{All: true, Kind: catalog.KindTable}},
		{"a row of WPML's table", false, []string{
			"INSERT INTO wp_icl_translations (element_id) VALUES (1)",
		}, &catalog.Change{All: true, Kind: catalog.KindTable}},
		{"a save in one transaction: one change", true, []string{
			fmt.Sprintf("UPDATE wp_posts SET post_title = 'Radar 3' WHERE ID = %d", p.Radar),
			fmt.Sprintf("UPDATE wp_postmeta SET meta_value = '2' WHERE post_id = %d AND meta_key = '_price'", p.Badge),
			fmt.Sprintf("DELETE FROM wp_term_relationships WHERE object_id = %d AND term_taxonomy_id = %d", p.Radar, p.Beta),
		}, &catalog.Change{Posts: ids(p.Badge, p.Radar), Products: ids(p.Radar), Kind: catalog.KindProduct}},
		{"a transaction with an option: everything", true, []string{
			fmt.Sprintf("UPDATE wp_postmeta SET meta_value = '3' WHERE post_id = %d AND meta_key = '_price'", p.Badge),
			"UPDATE wp_options SET option_value = '3' WHERE option_name = 'woocommerce_price_num_decimals'",
		}, &catalog.Change{Posts: ids(p.Badge), All: true, Kind: catalog.KindOption}},

		{"a plugin adds a column to the posts table", false, []string{
			"ALTER TABLE wp_posts ADD COLUMN plugin_flag tinyint NOT NULL DEFAULT 0",
		}, &catalog.Change{All: true, Kind: catalog.KindTable}},
		{"a product saved after it: the new columns are read", false, []string{
			fmt.Sprintf("UPDATE wp_posts SET post_title = 'Radar 4', plugin_flag = 1 WHERE ID = %d", p.Radar),
		}, &catalog.Change{Products: ids(p.Radar), Kind: catalog.KindProduct}},

		// Nothing the catalog reads.
		{"an order's meta (wc_update_order_meta)", false, []string{
			fmt.Sprintf("INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (%d, '_order_total', '5.00')", order),
			fmt.Sprintf("UPDATE wp_posts SET post_status = 'wc-refunded' WHERE ID = %d", order),
		}, nil},
		{"a product's stock count and edit lock", false, []string{
			fmt.Sprintf("INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (%d, '_edit_lock', '1763900000:1')", p.Radar),
			fmt.Sprintf("INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (%d, '_stock', '9')", p.Radar),
		}, nil},
		{"a transient (product-transient-version)", false, []string{
			"INSERT INTO wp_options (option_name, option_value, autoload) VALUES ('_transient_product-transient-version', '1763900000', 'yes')",
			"UPDATE wp_options SET option_value = '1763900001' WHERE option_name = '_transient_product-transient-version'",
		}, nil},
		{"a term recount (wp_update_term_count)", false, []string{
			fmt.Sprintf("UPDATE wp_term_taxonomy SET count = count + 1 WHERE term_taxonomy_id = %d", p.Alpha),
		}, nil},
		{"a page and a revision", false, []string{
			fmt.Sprintf("UPDATE wp_posts SET post_title = 'About' WHERE ID = %d", p.Page),
			fmt.Sprintf("UPDATE wp_posts SET post_title = 'Radar' WHERE post_parent = %d AND post_type = 'revision'", p.Radar),
		}, nil},
		{"a table of another site's prefix", false, []string{
			"CREATE TABLE other_options (option_id bigint(20) unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, option_name varchar(191), option_value longtext, autoload varchar(20))",
			"INSERT INTO other_options (option_name, option_value, autoload) VALUES ('home', 'x', 'yes')",
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.exec(t, tt.tx, tt.stmts...)
			if tt.want != nil {
				expect(t, h.next(t), *tt.want)
			}
			// Nothing more: the next change is the marker's.
			h.marker(t)
			expect(t, h.next(t), optionChange)
		})
	}
}

// The feed resumes after its replication connection is killed, and a
// change made while it was away is reported.
func TestBinlogFeedResumesAfterDisconnect(t *testing.T) {
	h, p := newFeedShop(t)
	h.run(t, h.dsn, Options{}, nil)
	h.marker(t)
	expect(t, h.next(t), optionChange) // the stream is up

	for i := range 2 {
		var id int64
		err := h.raw.QueryRow("SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%' AND USER = 'root'").Scan(&id)
		if err != nil {
			t.Fatalf("the feed's dump thread: %v", err)
		}
		h.exec(t, false, fmt.Sprintf("KILL CONNECTION %d", id),
			fmt.Sprintf("UPDATE wp_postmeta SET meta_value = '%d' WHERE post_id = %d AND meta_key = '_price'", 20+i, p.Radar))
		expect(t, h.next(t), catalog.Change{Posts: ids(p.Radar), Kind: catalog.KindProduct})
		h.marker(t)
		expect(t, h.next(t), optionChange) // and nothing twice
	}
	if n := h.reconn.Load(); n < 2 {
		t.Errorf("OnReconnect called %d times, want 2 or more", n)
	}
}

// A feed whose position the server purged reports one resync, then the
// changes after it.
func TestBinlogFeedResyncsWhenPositionPurged(t *testing.T) {
	h, p := newFeedShop(t)
	h.run(t, h.dsn, Options{}, nil)
	h.marker(t)
	expect(t, h.next(t), optionChange)
	h.stop()
	old := h.feed.pos.clone()

	// Changed while no feed ran, then purged.
	h.exec(t, false, fmt.Sprintf("UPDATE wp_postmeta SET meta_value = '30' WHERE post_id = %d AND meta_key = '_price'", p.Radar),
		"FLUSH BINARY LOGS")
	var newest, size string
	rows, err := h.raw.Query("SHOW BINARY LOGS")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		cols, _ := rows.Columns()
		vals := []any{&newest, &size}
		for len(vals) < len(cols) {
			vals = append(vals, new(sql.RawBytes))
		}
		if err := rows.Scan(vals...); err != nil {
			t.Fatal(err)
		}
	}
	rows.Close()
	// A log a replica still reads is not purged: wait for the stopped
	// feed's dump thread to end.
	deadline := time.Now().Add(10 * time.Second)
	for h.scalar(t, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'") > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the stopped feed's dump thread is still there after 10 s")
		}
		time.Sleep(20 * time.Millisecond) // polling a condition, with a deadline
	}
	// MariaDB keeps a log until the engine's checkpoint has passed its
	// transactions (binlog checkpoint): purge until it is gone.
	for {
		h.exec(t, false, "PURGE BINARY LOGS TO '"+newest+"'")
		var oldest string
		if err := h.raw.QueryRow("SHOW BINARY LOGS").Scan(&oldest, &size); err != nil {
			t.Fatal(err)
		}
		if oldest == newest {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the oldest binary log is still %s after PURGE BINARY LOGS TO '%s'", oldest, newest)
		}
		time.Sleep(50 * time.Millisecond) // polling a condition, with a deadline
	}

	h.run(t, h.dsn, Options{}, &old)
	c := h.next(t)
	if !c.All || c.Kind != catalog.KindResync {
		t.Fatalf("first change from a purged position = %+v, want a resync", c)
	}
	if n := h.resyncs.Load(); n != 1 {
		t.Errorf("OnResync called %d times, want 1", n)
	}
	h.exec(t, false, fmt.Sprintf("UPDATE wp_postmeta SET meta_value = '31' WHERE post_id = %d AND meta_key = '_price'", p.Radar))
	expect(t, h.next(t), catalog.Change{Posts: ids(p.Radar), Kind: catalog.KindProduct})
}

// Status says why a server or a user cannot feed catalogd, in a
// sentence without the password, and accepts one that can; a user with
// exactly the grants deploy/mysql gives follows the log.
func TestBinlogStatus(t *testing.T) {
	ctx := context.Background()
	t.Run("the shared server", func(t *testing.T) {
		p := wpdbtest.NewProducts()
		dsn, raw := testdb.Load(t, p.Shop)
		var logBin bool
		if err := raw.QueryRow("SELECT @@GLOBAL.log_bin").Scan(&logBin); err != nil {
			t.Fatal(err)
		}
		db := openTest(t, dsn)
		ok, why := Status(ctx, db, dsn)
		t.Logf("status: %v, %s", ok, why)
		if logBin {
			t.Logf("the shared server writes a binary log: only its grants are checked")
			return
		}
		if ok || !strings.Contains(why, "log_bin is OFF") {
			t.Errorf("Status = %v, %q; want false, no binary log", ok, why)
		}
	})

	h, p := newFeedShop(t)
	server := testdb.BinlogServer(t)
	cfgDB := strings.TrimPrefix(h.dsn[strings.LastIndex(h.dsn, "/"):], "/")
	cfgDB, _, _ = strings.Cut(cfgDB, "?")
	selects := []string{}
	for _, tb := range []string{"posts", "postmeta", "terms", "term_taxonomy", "term_relationships", "termmeta",
		"options", "woocommerce_attribute_taxonomies"} {
		selects = append(selects, "SELECT ON `"+cfgDB+"`.`wp_"+tb+"`")
	}
	tests := []struct {
		name   string
		grants []string
		global string // SET GLOBAL for the case, undone after
		ok     bool
		want   string
	}{
		{"SELECT alone", selects, "", false, "lacks REPLICATION SLAVE and REPLICATION CLIENT (BINLOG MONITOR)"},
		{"REPLICATION SLAVE alone", append(slices.Clone(selects), "REPLICATION SLAVE ON *.*"), "", false,
			"lacks REPLICATION CLIENT (BINLOG MONITOR)"},
		{"the grants deploy/mysql gives", append(slices.Clone(selects), "REPLICATION SLAVE, REPLICATION CLIENT ON *.*"), "", true, "binlog_format=ROW"},
		{"MINIMAL row images", append(slices.Clone(selects), "REPLICATION SLAVE, REPLICATION CLIENT ON *.*"),
			"binlog_row_image = 'MINIMAL'", false, "binlog_row_image is MINIMAL"},
		{"MIXED format", append(slices.Clone(selects), "REPLICATION SLAVE, REPLICATION CLIENT ON *.*"),
			"binlog_format = 'MIXED'", false, "binlog_format is MIXED, not ROW"},
		// NOBLOB leaves out only text columns the feed does not read.
		{"NOBLOB row images", append(slices.Clone(selects), "REPLICATION SLAVE, REPLICATION CLIENT ON *.*"),
			"binlog_row_image = 'NOBLOB'", true, "binlog_row_image=NOBLOB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.global != "" {
				name, _, _ := strings.Cut(tt.global, " ")
				var was string
				if err := h.raw.QueryRow("SELECT @@GLOBAL." + name).Scan(&was); err != nil {
					t.Fatal(err)
				}
				h.exec(t, false, "SET GLOBAL "+tt.global)
				t.Cleanup(func() { h.raw.Exec("SET GLOBAL " + name + " = '" + was + "'") })
			}
			u := testdb.NewUserOn(t, server, h.dsn, tt.grants...)
			db := openTest(t, u.DSN)
			ok, why := Status(ctx, db, u.DSN)
			t.Logf("status: %v, %s", ok, why)
			if ok != tt.ok || !strings.Contains(why, tt.want) {
				t.Errorf("Status = %v, %q; want %v, %q", ok, why, tt.ok, tt.want)
			}
			if strings.Contains(why, u.Password) || strings.Contains(why, u.Hash) {
				t.Errorf("the sentence holds the password or its hash: %q", why)
			}
			if !ok || tt.global != "" {
				return
			}
			// This user follows the log.
			uh := &feedHarness{raw: h.raw, db: db}
			uh.run(t, u.DSN, Options{}, nil)
			h.exec(t, false, fmt.Sprintf("UPDATE wp_posts SET post_title = 'Radar by replica' WHERE ID = %d", p.Radar))
			expect(t, uh.next(t), catalog.Change{Products: ids(p.Radar), Kind: catalog.KindProduct})
		})
	}
}

// Every one of 200 single-row updates, one at a time, is reported, in
// order. The lag is logged, not asserted: it measures the machine as much
// as the feed, and make bench (catalogbench's change-feed figures) is
// where its target is held.
func TestBinlogFeedLag(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: lag measurement in -short mode")
	}
	h, p := newFeedShop(t)
	h.run(t, h.dsn, Options{}, nil)
	// The server sends the event as it commits, before the client has its
	// OK: the lag is taken from the statement sent (an upper bound, the
	// statement's own time included).
	const n = 200
	lags := make([]time.Duration, 0, n)
	for i := range n {
		sent := time.Now()
		if _, err := h.raw.Exec("UPDATE wp_postmeta SET meta_value = ? WHERE post_id = ? AND meta_key = '_price'", 100+i, p.Radar); err != nil {
			t.Fatal(err)
		}
		c := h.next(t)
		lags = append(lags, time.Since(sent))
		if !slices.Equal(c.Posts, []int64{p.Radar}) {
			t.Fatalf("change %d = %+v", i, c)
		}
	}
	slices.Sort(lags)
	p50, p99 := lags[n/2], lags[n*99/100]
	t.Logf("binlog feed lag, autocommit UPDATE sent → change reported, %d single-row updates: p50 %v, p99 %v, max %v",
		n, p50, p99, lags[n-1])
}

// A table whose columns changed unseen (an ALTER kept out of the log) is
// noticed at its first row event: everything is reported once, and the
// columns read again.
func TestBinlogFeedUnloggedSchemaChange(t *testing.T) {
	h, p := newFeedShop(t)
	h.run(t, h.dsn, Options{}, nil)
	ctx := context.Background()
	conn, err := h.raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, s := range []string{"SET SESSION sql_log_bin = 0",
		"ALTER TABLE wp_postmeta ADD COLUMN meta_extra int NULL FIRST", "SET SESSION sql_log_bin = 1"} {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	price := fmt.Sprintf("UPDATE wp_postmeta SET meta_value = meta_value + 1 WHERE post_id = %d AND meta_key = '_price'", p.Radar)
	h.exec(t, false, price)
	expect(t, h.next(t), catalog.Change{All: true, Kind: catalog.KindTable})
	h.exec(t, false, price)
	expect(t, h.next(t), catalog.Change{Posts: ids(p.Radar), Kind: catalog.KindProduct})
}

// Where the server has no GTID position the feed follows a file and
// offset, and resumes from them after a disconnect.
func TestBinlogFeedFilePosition(t *testing.T) {
	h, p := newFeedShop(t)
	fp, err := masterStatus(context.Background(), h.db)
	if err != nil {
		t.Fatal(err)
	}
	h.run(t, h.dsn, Options{}, &binlogPosition{file: fp})
	price := fmt.Sprintf("UPDATE wp_postmeta SET meta_value = meta_value + 1 WHERE post_id = %d AND meta_key = '_price'", p.Radar)
	h.exec(t, false, price)
	expect(t, h.next(t), catalog.Change{Posts: ids(p.Radar), Kind: catalog.KindProduct})
	id := h.scalar(t, "SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'")
	h.exec(t, false, fmt.Sprintf("KILL CONNECTION %d", id), price)
	expect(t, h.next(t), catalog.Change{Posts: ids(p.Radar), Kind: catalog.KindProduct})
	h.marker(t)
	expect(t, h.next(t), optionChange)
	if pos := h.feed.Position(); strings.HasPrefix(pos, "GTID") || !strings.Contains(pos, fp.Name) {
		t.Errorf("position %q, want one in %s", pos, fp.Name)
	}
}

// No log line of the feed, go-mysql's own included (at debug level), holds
// the password, even when the server refuses it at a reconnection.
func TestBinlogFeedLogsNoSecret(t *testing.T) {
	h, p := newFeedShop(t)
	u := testdb.NewUserOn(t, testdb.BinlogServer(t), h.dsn, "SELECT ON *.*", "REPLICATION SLAVE, REPLICATION CLIENT ON *.*")
	logs := &proctest.SyncBuffer{} // the feed's goroutine writes it
	f, err := New(openTest(t, u.DSN), u.DSN, catalog.ShopReads, Options{
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	changes, done := make(chan catalog.Change, 100), make(chan error, 1)
	go func() { done <- f.Run(ctx, catalog.ChangeFunc(func(c catalog.Change) { changes <- c })) }()
	defer func() {
		cancel()
		<-done
	}()
	h.exec(t, false, fmt.Sprintf("UPDATE wp_posts SET post_title = 'Radar 5' WHERE ID = %d", p.Radar))
	select {
	case <-changes:
	case <-time.After(10 * time.Second):
		t.Fatal("no change within 10 s")
	}
	u.ChangePassword(t) // ends its sessions: the dump thread too
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "Access denied") {
		if time.Now().After(deadline) {
			t.Fatalf("no refused reconnection logged within 10 s:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond) // polling a condition, with a deadline
	}
	if testing.Verbose() {
		t.Log(logs.String())
	}
	if out := logs.String(); strings.Contains(out, u.Password) || strings.Contains(out, u.Hash) {
		t.Errorf("a log line holds the password or its hash:\n%s", out)
	}
}
