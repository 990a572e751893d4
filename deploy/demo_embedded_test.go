package deploy

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"catalogd/internal/proctest"
	"catalogd/internal/wpfixture"
)

// runDemoEmbedded runs the README's `make demo` (c) where no database
// answers: DEMO_PORT is a port nothing listens on, as on a laptop without
// MySQL. The demo must serve the same shop from the embedded in-memory
// server, with catalogctl's transcripts as shown; the shop's edits must
// show through the poll feed; and every statement catalogd sends must run
// there (the embedded server logs each one, -log-statements).
func runDemoEmbedded(t *testing.T, dir string, c shown, catalogctl []shown) {
	// The embedded server's first build takes minutes on a cold cache.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	_, closedPort, _ := net.SplitHostPort(proctest.FreeAddr(t))
	listen, admin, embedded := proctest.FreeAddr(t), proctest.FreeAddr(t), proctest.FreeAddr(t)
	statements := filepath.Join(t.TempDir(), "statements.jsonl")
	env := proctest.Environ("DEMO_HOST=127.0.0.1", "DEMO_PORT="+closedPort,
		"CATALOG_LISTEN="+listen, "CATALOG_ADMIN_LISTEN="+admin,
		"EMBEDDED_ADDR="+embedded, "EMBEDDED_FLAGS=-log-statements "+statements,
		"PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	text := c.text
	if m := demoListenRE.FindStringSubmatch(text); m != nil {
		text = strings.Replace(text, m[0], "DEMO_LISTEN="+listen, 1)
	}
	stop, log := serveDemo(t, ctx, dir, env, c, text, listen, catalogctl)
	defer stop()
	if !strings.Contains(log.String(), "using the embedded in-memory server") {
		t.Fatalf("`%s` with no database answering did not use the embedded server:\n%s", c.text, log.String())
	}

	db, err := sql.Open("mysql", "root@tcp("+embedded+")/wp_demo")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	base := "http://" + listen + "/wp-json/shop/v1"
	for _, e := range demoEdits {
		for _, stmt := range e.sql {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("%s: %s: %v", e.what, stmt, err)
			}
		}
		deadline, cancel := context.WithTimeout(ctx, 30*time.Second)
		if !pollFor(deadline, func() bool { return strings.Contains(getBody(deadline, base+e.path), e.shows) }) {
			t.Errorf("%s: %s does not show %s within 30 s: %s", e.what, e.path, e.shows, getBody(ctx, base+e.path))
		}
		cancel()
	}
	ours := map[string]bool{}
	for _, e := range demoEdits {
		for _, s := range e.sql {
			ours[s] = true
		}
	}
	checkStatements(t, ctx, db, embedded, statements, ours)
}

// demoEdits are the shop's edits made on the embedded server, each as the
// shop's admin would save it, and what the API then shows.
var demoEdits = []struct {
	what  string
	sql   []string
	path  string
	shows string
}{
	{"a price saved", []string{
		`UPDATE wp_postmeta SET meta_value = '7.5' WHERE post_id = 9 AND meta_key IN ('_price', '_sale_price')`,
		`UPDATE wp_posts SET post_modified = NOW(), post_modified_gmt = UTC_TIMESTAMP() WHERE ID = 9`,
	}, "/catalog/products/dispatch-system", `"price":"7.50"`},
	{"a category renamed", []string{
		`UPDATE wp_terms SET name = 'Law Enforcement' WHERE slug = 'police'`,
	}, "/catalog/categories", `"name":"Law Enforcement"`},
	{"the shop renamed", []string{
		`UPDATE wp_options SET option_value = 'Southwind Scripts' WHERE option_name = 'blogname'`,
	}, "/catalog", `"name":"Southwind Scripts"`},
}

// statementAnswers are the statements the embedded server may refuse,
// because catalogd takes the refusal as an answer: each is a statement
// of another server kind's, tried and then done without, or a probe.
var statementAnswers = []struct{ starts, err, why string }{
	{"START TRANSACTION WITH CONSISTENT SNAPSHOT", "syntax error",
		"a whole load then reads in one transaction (wpdb/load_streams.go)"},
	{"SHOW GRANTS", "database not found: mysql",
		"the server keeps no grant tables: catalogd says it cannot tell whether the user can write"},
	{"SELECT 1 FROM wp_", "table not found",
		"an optional plugin's table, absent on the demo shop (wpdb/plugins.go, ready.go)"},
	{"SELECT @@gtid_", "Unknown system variable",
		"MariaDB's or MySQL's own, read only by the binary-log feed, which a server without a binary log never starts"},
	{"SELECT @@log_", "Unknown system variable",
		"log_slave_updates (log_replica_updates on MySQL 8.4), read only where the server writes a binary log (wpdb/binlog/replica.go)"},
	{"SELECT ID, post_parent, post_type, post_status,", "function: 'weight_string' not found",
		"the products read with the server's title sort keys: read again without them, the titles folded instead (wpdb/titlekey.go)"},
	{"SHOW ALL SLAVES STATUS", "syntax error",
		"MariaDB's, sent only where the server writes a binary log; a server without it is asked SHOW SLAVE STATUS (wpdb/binlog/replica.go)"},
}

// statementsElsewhere are the statements the demo shop never sends and
// that cannot be sent alone (a part of them is made at run time), and
// why: their tests run them on MariaDB.
var statementsElsewhere = []struct{ file, starts, why string }{
	{"plugins.go", "SELECT meta_value FROM", "a network (multisite) install's tables, named at run time"},
	{"binlog/map.go", "SELECT LOWER(TABLE_NAME)", "the binary-log feed, which a server without a binary log never starts"},
	{"poll/delta.go", "SELECT ID, post_parent", "the delta, sent only where wp_posts has an index on post_modified_gmt, which it names at run time"},
}

// checkStatements reads the embedded server's statement log (path):
// every statement catalogd sent ran, but for the refusals it takes as
// answers. Every statement written in wpdb was sent at least once; one
// the demo shop never needs is sent here, with 1 for each of its
// parameters, to an empty shop with the translation plugins' tables
// (on db's server, at addr), and must run too, unless it is one of
// statementsElsewhere. ours are the test's own edits.
func checkStatements(t *testing.T, ctx context.Context, db *sql.DB, addr, path string, ours map[string]bool) {
	t.Helper()
	plugins := pluginsShop(t, ctx, db, addr)
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the embedded server's statement log: %v", err)
	}
	defer f.Close()
	var sent []string
	refused := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s struct{ Query, Error string }
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("statement log: %v: %s", err, sc.Text())
		}
		if ours[s.Query] {
			continue
		}
		sent = append(sent, s.Query)
		if s.Error != "" && !answered(s.Query, s.Error) && !refused[s.Query] {
			refused[s.Query] = true
			t.Errorf("the embedded server refused a statement catalogd sent: %s\n%.400s", s.Error, s.Query)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var alone int
statements:
	for _, st := range wpdbStatements(t, filepath.Join(repoRoot(t), "wpdb")) {
		for _, q := range sent {
			if st.covers(q, "wp_") {
				continue statements
			}
		}
		if q, ok := st.runnable("wp_"); ok {
			alone++
			rows, err := plugins.QueryContext(ctx, q)
			if err == nil {
				err = rows.Close()
			}
			if err != nil && !answered(q, err.Error()) {
				t.Errorf("wpdb/%s: the embedded server refuses a statement the demo shop does not send: %v\n%s", st.where, err, q)
			}
			continue
		}
		file, _, _ := strings.Cut(st.where, ":")
		for _, e := range statementsElsewhere {
			if e.file == file && strings.HasPrefix(strings.TrimSpace(st.parts[0]), e.starts) {
				continue statements
			}
		}
		t.Errorf("wpdb/%s: a statement the demo shop never sends, nor can this test alone: %s", st.where, st.text)
	}
	t.Logf("%d statements sent by catalogd, %d more run alone", len(sent), alone)
}

// pluginsShop creates an empty shop with WPML's and TranslatePress's
// tables in a database of its own on db's server (at addr), and connects
// to it.
func pluginsShop(t *testing.T, ctx context.Context, db *sql.DB, addr string) *sql.DB {
	t.Helper()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE wp_plugins"); err != nil {
		t.Fatal(err)
	}
	plugins, err := sql.Open("mysql", "root@tcp("+addr+")/wp_plugins")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plugins.Close() })
	shop := wpfixture.New("wp_", "http://localhost:8080")
	shop.EnableWPML("en", "de")
	shop.EnableTranslatePress("en_US", "de_DE")
	if err := shop.CreateSchema(ctx, plugins); err != nil {
		t.Fatal(err)
	}
	return plugins
}

// answered reports whether the embedded server's refusal of query, err,
// is one of statementAnswers.
func answered(query, err string) bool {
	q := strings.Join(strings.Fields(query), " ")
	for _, a := range statementAnswers {
		if strings.HasPrefix(q, a.starts) && strings.Contains(err, a.err) {
			return true
		}
	}
	return false
}
