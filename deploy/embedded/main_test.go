package main

import (
	"database/sql"
	"net"
	"testing"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/server"
	gms "github.com/dolthub/go-mysql-server/sql"
)

// The demo script loads into the embedded server and answers the queries
// catalogd relies on: a read-only transaction, the shop's options, and
// product posts through the term relationships.
func TestDemoLoads(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	pro := memory.NewDBProvider(memory.NewDatabase("wp_demo"))
	srv, err := server.NewServer(server.Config{Protocol: "tcp", Address: addr}, sqle.NewDefault(pro), gms.NewContext,
		memory.NewSessionBuilder(pro), nil)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	defer srv.Close()
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
