// Package feedops is the change feeds' acceptance test, which the tests
// of wpdb/poll and wpdb/binlog run with their feed: the operations that
// must show, each performed on the database as WordPress and WooCommerce
// write it (wpfixture.Ops), and what an anonymous visitor sees once the
// feed reported it and the catalog applied it, through the catalog's
// public API.
package feedops

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
)

// Run runs every operation on a shop loaded with and without transient
// rows in wp_options (ObjectCache false and true), each with the feed
// newFeed returns: Start before the catalog's first read, then Follow. Each
// operation's check must fail before it and hold within window(op) after
// it; window is called once per operation, right after it is done (a test
// may move its feed's clock there).
func Run(t *testing.T, newFeed func(t *testing.T, db *wpdb.DB, dsn string) catalog.Feed, window func(op Op) time.Duration) {
	t.Helper()
	RunOn(t, testdb.Load, newFeed, window)
}

// RunOn is Run on the database load creates (testdb.Load: the
// shared test server; the binary log feed needs its private server).
func RunOn(t *testing.T, load func(testing.TB, *wpfixture.Shop) (string, *sql.DB),
	newFeed func(t *testing.T, db *wpdb.DB, dsn string) catalog.Feed, window func(op Op) time.Duration) {
	t.Helper()
	for _, objectCache := range []bool{false, true} {
		t.Run(fmt.Sprintf("object_cache=%v", objectCache), func(t *testing.T) {
			s := newOpsShop(objectCache)
			dsn, raw := load(t, s.shop)
			db, err := wpdb.Open(dsn, wpdb.Options{Prefix: s.shop.Prefix})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			ctx, cancel := context.WithCancel(context.Background())
			feed := newFeed(t, db, dsn)
			if err := feed.Start(ctx); err != nil {
				cancel()
				t.Fatalf("%s: Start: %v", feed.Name(), err)
			}
			cat := catalog.New(db, catalog.Config{})
			followed := make(chan error, 1)
			go func() { followed <- cat.Follow(ctx, feed, nil) }()
			t.Cleanup(func() {
				cancel()
				if err := <-followed; err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("Follow: %v", err)
				}
			})
			waitFor(t, "the first snapshot", 10*time.Second, func() error {
				_, err := cat.Index(ctx)
				return err
			})
			ops := &wpfixture.Ops{DB: raw, Prefix: s.shop.Prefix, ObjectCache: objectCache}
			transientsBefore := transientRows(t, raw)
			sighted, _ := feed.(catalog.Sighted)
			for _, op := range feedOps {
				if t.Failed() {
					return // the shop's state is not what the next ops expect
				}
				if op.logOnly && (sighted == nil || !sighted.SeesEverything()) {
					continue
				}
				t.Run(strings.ReplaceAll(op.name, " ", "_"), func(t *testing.T) {
					if err := op.check(ctx, cat, s); err == nil {
						t.Fatalf("the check holds before the operation: it proves nothing")
					}
					if err := op.do(ctx, ops, s); err != nil {
						t.Fatalf("operation: %v", err)
					}
					waitFor(t, "the visitor to see it", window(op), func() error { return op.check(ctx, cat, s) })
				})
			}
			// The knob did what it says: transients in wp_options moved
			// without an object cache, and none appeared with one.
			after := transientRows(t, raw)
			if objectCache && len(after) > 0 {
				t.Errorf("object cache: transient rows in wp_options: %v", after)
			}
			if !objectCache && slices.Equal(after, transientsBefore) {
				t.Errorf("no object cache: the transient rows did not change (%v)", after)
			}
		})
	}
}

// transientRows lists the transient options with their values.
func transientRows(t *testing.T, raw *sql.DB) []string {
	t.Helper()
	rows, err := raw.Query(`SELECT CONCAT(option_name, '=', option_value) FROM wp_options WHERE option_name LIKE '\\_transient\\_%' ORDER BY option_name`)
	if err != nil {
		t.Fatalf("transients: %v", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatalf("transients: %v", err)
		}
		out = append(out, s)
	}
	return out
}

// waitFor polls cond until it returns nil, failing the test with cond's
// last answer when within has passed.
func waitFor(t *testing.T, what string, within time.Duration, cond func() error) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(within)
	for {
		err := cond()
		if err == nil {
			t.Logf("%s: after %v", what, time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s: %v", within, what, err)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, not waiting for behaviour
	}
}
