package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpdbtest"
)

// streamsShop is newLoadShop with meta rows of its first products added
// last, so that a post's rows fall in several meta_id ranges: their order
// (the first _price is the one WooCommerce reads) must be one pass's.
func streamsShop() *loadShop {
	l := newLoadShop()
	l.shop.PostMeta(l.variable, "_price", "7")
	l.shop.PostMeta(l.simple, "_price", "3")
	l.shop.PostMeta(l.variable, "_price", "1")
	return l
}

// openDSN opens wpdb on a loaded database with the options.
func openDSN(t *testing.T, dsn string, o Options) *DB {
	t.Helper()
	db, err := Open(dsn, o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// A load on several streams reads exactly what one transaction reads:
// every row, each post's meta in meta_id order.
func TestLoadShopStreams(t *testing.T) {
	t.Parallel()
	l := streamsShop()
	dsn, _ := testdb.Load(t, l.shop)
	ctx := context.Background()
	one := openDSN(t, dsn, Options{Prefix: "wp_", LoadStreams: 1})
	want, err := one.LoadShop(ctx, catalog.ShopReads)
	if err != nil {
		t.Fatal(err)
	}
	if got := want.Products.Meta.Values(l.variable, "_price"); len(got) < 3 || !reflect.DeepEqual(got[len(got)-2:], []string{"7", "1"}) {
		t.Fatalf("one transaction: _price of the variable product = %q, want the late rows 7, 1 last", got)
	}
	for _, n := range []int{2, 3, 4} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			db := openDSN(t, dsn, Options{Prefix: "wp_", LoadStreams: n})
			got, err := db.LoadShop(ctx, catalog.ShopReads)
			if err != nil {
				t.Fatal(err)
			}
			// The streams were used: each opened a connection of its own.
			if open := db.Pool().Stats().OpenConnections; open < n {
				t.Errorf("%d connections opened, want the %d streams'", open, n)
			}
			got.Cost = want.Cost // the database time differs from read to read
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%d streams:\n got %+v\nwant %+v", n, got.Products, want.Products)
			}
		})
	}
}

// The pool keeps room for the change feed and a patch read: a load never
// takes more than MaxOpen - 2 connections, and reads in one transaction
// when that leaves fewer than two.
func TestLoadStreamsCap(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ maxOpen, streams, want int }{
		{1, 4, 1}, {3, 4, 1}, {4, 4, 2}, {10, 4, 4}, {10, 0, defaultLoadStreams}, {10, 1, 1},
	} {
		db, err := Open("root@tcp(127.0.0.1:1)/x", Options{MaxOpen: tt.maxOpen, LoadStreams: tt.streams})
		if err != nil {
			t.Fatal(err)
		}
		if db.streams != tt.want {
			t.Errorf("MaxOpen %d, LoadStreams %d: %d streams, want %d", tt.maxOpen, tt.streams, db.streams, tt.want)
		}
		db.Close()
	}
}

// setPrice sets a product's _price on raw, committed at once.
func setPrice(t *testing.T, raw *sql.DB, id int64, price string) {
	t.Helper()
	if _, err := raw.Exec(`UPDATE wp_postmeta SET meta_value = ? WHERE post_id = ? AND meta_key = '_price'`, price, id); err != nil {
		t.Fatalf("set the price: %v", err)
	}
}

// The streams' transactions take their snapshot when opened, not at their
// first read: a commit after the openings shows in none of them, whatever
// the session's isolation level (at READ COMMITTED, each statement would
// see the commits before it).
func TestSnapshotsAtOpening(t *testing.T) {
	t.Parallel()
	for _, isolation := range []string{"", "READ-COMMITTED"} {
		t.Run("session "+isolation, func(t *testing.T) {
			t.Parallel()
			l := newLoadShop()
			dsn, raw := testdb.Load(t, l.shop)
			// MariaDB's name of the variable; MySQL 8 has only the
			// newer one.
			variable := "tx_isolation"
			var version string
			wpdbtest.RawScalar(t, raw, &version, `SELECT VERSION()`)
			if !strings.Contains(strings.ToLower(version), "mariadb") {
				variable = "transaction_isolation"
			}
			if isolation != "" {
				cfg, err := mysql.ParseDSN(dsn)
				if err != nil {
					t.Fatal(err)
				}
				if cfg.Params == nil {
					cfg.Params = map[string]string{}
				}
				cfg.Params[variable] = "'" + isolation + "'"
				dsn = cfg.FormatDSN()
			}
			db := openDSN(t, dsn, Options{Prefix: "wp_", LoadStreams: 2})
			ctx := context.Background()
			txs, _, release, err := db.openSnapshots(ctx, 2)
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			if isolation != "" {
				var level string
				if err := txs[0].Get(ctx, &level, `SELECT @@SESSION.`+variable); err != nil || level != isolation {
					t.Fatalf("the session's isolation level: %q, %v; want %s", level, err, isolation)
				}
			}
			setPrice(t, raw, l.simple, "42")
			// One transaction (View, and a load on one stream) too.
			view(t, db, func(ctx context.Context, tx *Tx) error {
				for _, want := range []string{"42", "42"} {
					m, err := tx.Meta(ctx, []int64{l.simple}, []string{"_price"})
					if err != nil {
						return err
					}
					if got := m.First(l.simple, "_price"); got != want {
						t.Errorf("View: _price = %q, want %q", got, want)
					}
					setPrice(t, raw, l.simple, "43")
				}
				return nil
			})
			for i, tx := range txs {
				m, err := tx.Meta(ctx, []int64{l.simple}, []string{"_price"})
				if err != nil {
					t.Fatal(err)
				}
				if got := m.First(l.simple, "_price"); got != "9" {
					t.Errorf("stream %d: _price = %q after a commit that followed the openings, want the snapshot's 9", i, got)
				}
			}
		})
	}
}

// On a server with a binary log, a commit between two streams' openings
// is seen (their snapshots' binary log positions differ, as the first
// stream does not see the change and the second does), and the streams
// are opened again; when it happens at every try, the load is read in one
// transaction. Either way the load is one instant: the change shows in
// the meta of every post, with the product's every row.
func TestLoadStreamsOneInstant(t *testing.T) {
	t.Parallel()
	server := testdb.BinlogServer(t)
	l := newLoadShop()
	dsn, raw := testdb.LoadOn(t, server, l.shop)
	ctx := context.Background()

	t.Run("server", func(t *testing.T) {
		// What the design rests on, MariaDB's own behaviour: snapshots
		// with no commit between them stand at one position; a commit
		// between moves it, and the first does not see what the second
		// does.
		db := openDSN(t, dsn, Options{Prefix: "wp_", LoadStreams: 2})
		// The other tests on this server commit too: one of their
		// commits may fall between two openings now and then.
		var pos []string
		for range 20 {
			_, p, release, err := db.openSnapshots(ctx, 2)
			if err != nil {
				t.Fatal(err)
			}
			release()
			if pos = p; p[0] != "" && oneInstant(p) == nil {
				break
			}
		}
		if pos[0] == "" || oneInstant(pos) != nil {
			t.Fatalf("no commit between the openings: positions %q, want one, not empty", pos)
		}
		db.betweenOpenings = func(int) { setPrice(t, raw, l.simple, "11") }
		txs, pos, release, err := db.openSnapshots(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if !errors.Is(oneInstant(pos), errMoved) {
			t.Errorf("a commit between the openings: positions %q, want them to differ", pos)
		}
		for i, want := range []string{"9", "11"} {
			m, err := txs[i].Meta(ctx, []int64{l.simple}, []string{"_price"})
			if err != nil {
				t.Fatal(err)
			}
			if got := m.First(l.simple, "_price"); got != want {
				t.Errorf("stream %d: _price = %q, want %q", i, got, want)
			}
		}
	})

	for _, tt := range []struct {
		name     string
		commitAt func(call int) bool // which calls of the hook commit (2 per try with 3 streams)
		calls    int                 // at least: the other tests' commits may add a try
	}{
		{"once", func(call int) bool { return call == 1 }, 4},
		{"every try", func(int) bool { return true }, 2 * snapshotTries},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := openDSN(t, dsn, Options{Prefix: "wp_", LoadStreams: 3})
			calls, price := 0, 0
			db.betweenOpenings = func(int) {
				calls++
				if tt.commitAt(calls) {
					price++
					setPrice(t, raw, l.simple, fmt.Sprint(100+price))
				}
			}
			rows, err := db.LoadShop(ctx, catalog.ShopReads)
			if err != nil {
				t.Fatal(err)
			}
			if calls < tt.calls {
				t.Errorf("%d openings after the first, want %d or more", calls, tt.calls)
			}
			if got, want := rows.Products.Meta.First(l.simple, "_price"), fmt.Sprint(100+price); got != want {
				t.Errorf("_price = %q, want %q, the last commit before the load's instant", got, want)
			}
		})
	}
}

// The meta_id ranges cover the whole table, each id in exactly one, in
// order, the ends open (a row added after the bounds were read is in the
// last), and about evenly.
func TestMetaRanges(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		lo, hi int64
		n      int
		want   []metaRange
	}{
		{0, 0, 4, []metaRange{{}}},                           // an empty table
		{1, 3, 4, []metaRange{{}}},                           // too few ids to split
		{1, 100, 1, []metaRange{{}}},                         // one stream
		{1, 100, 2, []metaRange{{0, 51}, {51, 0}}},           // halves
		{1, 100, 3, []metaRange{{0, 34}, {34, 67}, {67, 0}}}, // thirds, the last a little wider
		{1001, 1100, 4, []metaRange{{0, 1026}, {1026, 1051}, {1051, 1076}, {1076, 0}}},
	} {
		if got := metaRanges(tt.lo, tt.hi, tt.n); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("metaRanges(%d, %d, %d) = %v, want %v", tt.lo, tt.hi, tt.n, got, tt.want)
		}
	}
}
