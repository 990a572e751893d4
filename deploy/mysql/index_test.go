package mysql_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
	"catalogd/wpdb/poll"
)

// post-modified-index.sql, sourced as its header prints it (twice: it is
// safe to run again), gives the posts table the index, and catalogd's
// read-only user finds the edits through it: the poller's detections are
// deltas.
func TestPostModifiedIndex(t *testing.T) {
	s := wpfixture.New("shop_", "https://shop.example")
	radar := s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5"})
	dsn, admin := testdb.Load(t, s)
	cfg, _ := mysql.ParseDSN(dsn)
	ctx := context.Background()
	conn, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET @db = ?, @prefix = 'shop_'", cfg.DBName); err != nil {
		t.Fatal(err)
	}
	const alter = "	CONCAT('ALTER TABLE ', @table, ' ADD INDEX catalogd_post_modified_gmt (post_modified_gmt), ALGORITHM=INPLACE, LOCK=NONE'));"
	for range 2 {
		source(t, conn, "post-modified-index.sql", alter, "")
	}
	var n int
	if err := admin.QueryRow(`SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()
		AND TABLE_NAME = 'shop_posts' AND INDEX_NAME = 'catalogd_post_modified_gmt'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the index's columns: %d (%v), want 1", n, err)
	}

	ro := runScript(t, admin, cfg, false)
	db, err := wpdb.Open(ro.FormatDSN(), wpdb.Options{Prefix: "shop_"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mu sync.Mutex
	var deltas, fulls, changes int
	p := poll.New(db, catalog.ShopReads, poll.Options{Interval: 100 * time.Millisecond, OnPoll: func(s poll.Stats) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case s.Err != nil && ctx.Err() != nil:
			// The test is over: a round cut by its end.
		case s.Err != nil:
			t.Errorf("poll: %v", s.Err)
		case s.Delta:
			deltas++
			changes += s.Changes
		case s.Scan:
			fulls++
		}
	}})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.LoadShop(ctx, catalog.ShopReads); err != nil { // the poller's baseline
		t.Fatal(err)
	}
	go p.Run(ctx, catalog.ChangeFunc(func(catalog.Change) {})) //nolint:errcheck // ends with ctx
	ops := &wpfixture.Ops{DB: admin, Prefix: "shop_"}
	if err := ops.EditPrice(ctx, radar, "7", ""); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		d, f, c := deltas, fulls, changes
		mu.Unlock()
		if c > 0 {
			if f > 0 {
				t.Errorf("%d full scans beside %d deltas, want none", f, d)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no delta reported the price edit within 10 s (%d deltas, %d full scans)", d, f)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition, with a deadline
	}
}
