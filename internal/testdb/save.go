package testdb

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
)

// SavePrice saves a product's price the way WooCommerce's product data
// store does when it runs in a transaction (an import, a bulk edit, a
// plugin): the price metas and the post's modified time, committed
// together. It runs on a connection opened now, so that it takes the
// server's current global binlog_format and binlog_row_image, as a new PHP
// request does.
func SavePrice(t testing.TB, dsn, slug, price string) {
	t.Helper()
	db := Open(t, dsn)
	db.SetMaxIdleConns(0)
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, st := range []struct {
		q    string
		args []any
	}{
		{`UPDATE wp_postmeta m JOIN wp_posts p ON p.ID = m.post_id SET m.meta_value = ?
			WHERE p.post_name = ? AND m.meta_key IN ('_price', '_regular_price')`, []any{price, slug}},
		{`UPDATE wp_posts SET post_modified = post_modified + INTERVAL 1 SECOND,
			post_modified_gmt = post_modified_gmt + INTERVAL 1 SECOND WHERE post_name = ?`, []any{slug}},
	} {
		if _, err := tx.ExecContext(ctx, st.q, st.args...); err != nil {
			t.Fatalf("save %s: %v", slug, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// SetGlobal sets a server variable for the test (SET GLOBAL), and sets it
// back after.
func SetGlobal(t testing.TB, admin *sql.DB, name, value string) {
	t.Helper()
	var was string
	if err := admin.QueryRow("SELECT @@GLOBAL." + name).Scan(&was); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(fmt.Sprintf("SET GLOBAL %s = '%s'", name, value)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(fmt.Sprintf("SET GLOBAL %s = '%s'", name, was)) })
}
