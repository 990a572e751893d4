package main

import (
	"database/sql"
	"net"
	"testing"
	"time"
)

// The demo script loads into the embedded server and answers the queries
// catalogd relies on: a read-only transaction, the shop's options, and
// product posts through the term relationships.
func TestDemoLoads(t *testing.T) {
	addr := startServer(t)
	start := time.Now()
	if err := load(addr, "wp_demo", "../seed/demo.sql"); err != nil {
		t.Fatal(err)
	}
	t.Logf("demo loaded in %s", time.Since(start))

	db, err := sql.Open("mysql", "root@tcp("+addr+")/wp_demo")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTx(t.Context(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only transaction: %v", err)
	}
	defer tx.Rollback()
	var name string
	if err := tx.QueryRow(`SELECT option_value FROM wp_options WHERE option_name IN (?)`, "blogname").Scan(&name); err != nil || name != "Northwind Scripts" {
		t.Errorf("blogname = %q, %v", name, err)
	}
	var n int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM wp_posts p WHERE p.post_type = 'product' AND p.post_status = 'publish'
		AND p.ID NOT IN (SELECT object_id FROM wp_term_relationships tr JOIN wp_term_taxonomy tt
		ON tt.term_taxonomy_id = tr.term_taxonomy_id JOIN wp_terms t ON t.term_id = tt.term_id
		WHERE tt.taxonomy = 'product_visibility' AND t.slug = 'exclude-from-catalog')`).Scan(&n); err != nil || n != 58 {
		t.Errorf("catalog-visible products = %d, %v; want 58", n, err)
	}
}

// The server says it keeps no UPDATE_TIME: go-mysql-server's constant
// 2000-01-01 would tell catalogd's poll feed that wp_posts never changes,
// and a demo edit would wait for its forced scan (server.go).
func TestNoUpdateTime(t *testing.T) {
	addr := startServer(t)
	db, err := sql.Open("mysql", "root@tcp("+addr+")/wp_demo")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE wp_posts (ID bigint PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	var updated sql.NullString
	if err := db.QueryRow(`SELECT CAST(UPDATE_TIME AS CHAR) FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'wp_posts'`).Scan(&updated); err != nil {
		t.Fatal(err)
	}
	if updated.Valid {
		t.Errorf("wp_posts' UPDATE_TIME = %q, want NULL: a time that never moves hides every save", updated.String)
	}
}

// startServer serves an empty wp_demo on a free port until the test ends.
func startServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv, err := newServer(addr, "wp_demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	t.Cleanup(func() { srv.Close() })
	return addr
}
