package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpdbtest"
	"catalogd/internal/wpfixture"
)

// openShop loads the shop into a throwaway database and opens it with wpdb,
// using the shop's prefix; it returns the DB and a raw pool on the database.
func openShop(t *testing.T, shop *wpfixture.Shop) (*DB, *sql.DB) {
	t.Helper()
	return openShopWith(t, shop, Options{Prefix: shop.Prefix})
}

// openShopWith is openShop with explicit options.
func openShopWith(t *testing.T, shop *wpfixture.Shop, o Options) (*DB, *sql.DB) {
	t.Helper()
	return wpdbtest.Load(t, shop, func(dsn string) (*DB, error) { return Open(dsn, o) })
}

// view runs fn in a View and fails the test on an error.
func view(t *testing.T, db *DB, fn func(ctx context.Context, tx *Tx) error) {
	t.Helper()
	if err := db.View(context.Background(), fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

// mysqlErrNumber returns the MySQL error number in err's chain, 0 for none.
func mysqlErrNumber(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// closedPort returns a local TCP port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatalf("close listener: %v", err)
	}
	return port
}

func TestViewIsReadOnly(t *testing.T) {
	t.Parallel()
	db, raw := openShop(t, wpdbtest.NewShop("wp_"))
	var optionsBefore int
	wpdbtest.RawScalar(t, raw, &optionsBefore, `SELECT COUNT(*) FROM wp_options`)

	tests := []struct {
		name string
		stmt string
	}{
		{"insert", `INSERT INTO {options} (option_name, option_value, autoload) VALUES ('evil', 'x', 'yes')`},
		{"update", `UPDATE {options} SET option_value = 'Hacked' WHERE option_name = 'blogname'`},
		{"delete", `DELETE FROM {options} WHERE option_name = 'blogname'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view(t, db, func(ctx context.Context, tx *Tx) error {
				_, err := tx.tx.ExecContext(ctx, tx.sql(tt.stmt))
				if err == nil {
					t.Fatalf("%s through a View succeeded; want MariaDB error 1792", tt.name)
				}
				if n := mysqlErrNumber(err); n != 1792 {
					t.Errorf("%s: error %v (number %d), want 1792 (read-only transaction)", tt.name, err, n)
				}
				if IsUnavailable(err) {
					t.Errorf("IsUnavailable(%v) = true for a refused write", err)
				}
				return nil
			})
			var optionsAfter int
			wpdbtest.RawScalar(t, raw, &optionsAfter, `SELECT COUNT(*) FROM wp_options`)
			if optionsAfter != optionsBefore {
				t.Errorf("wp_options has %d rows after the %s, want %d", optionsAfter, tt.name, optionsBefore)
			}
			var blogname string
			wpdbtest.RawScalar(t, raw, &blogname, `SELECT option_value FROM wp_options WHERE option_name = 'blogname'`)
			if blogname != "Script Shop" {
				t.Errorf("blogname = %q after the %s, want %q", blogname, tt.name, "Script Shop")
			}
		})
	}
}

func TestQueriesCountsEveryStatement(t *testing.T) {
	t.Parallel()
	db, _ := openShop(t, wpdbtest.NewShop("wp_"))
	tests := []struct {
		name string
		fn   func(ctx context.Context, tx *Tx) error
		want int64
	}{
		{"empty view counts BEGIN", func(ctx context.Context, tx *Tx) error { return nil }, 1},
		{"two reads", func(ctx context.Context, tx *Tx) error {
			if _, err := tx.Options(ctx, []string{"blogname"}); err != nil {
				return err
			}
			_, err := tx.Terms(ctx, []string{"product_cat"}, "")
			return err
		}, 3},
		{"a read that finds nothing still counts", func(ctx context.Context, tx *Tx) error {
			_, err := tx.Options(ctx, []string{"no_such_option"})
			return err
		}, 2},
		{"reads with nothing to read send nothing", func(ctx context.Context, tx *Tx) error {
			if _, err := tx.Meta(ctx, nil, []string{"_price"}); err != nil {
				return err
			}
			if _, err := tx.Relationships(ctx, nil); err != nil {
				return err
			}
			if _, err := tx.Posts(ctx, nil, true); err != nil {
				return err
			}
			if _, err := tx.Variations(ctx, nil); err != nil {
				return err
			}
			if _, err := tx.WPMLPosts(ctx, nil); err != nil {
				return err
			}
			if _, err := tx.PolylangGroups(ctx, nil); err != nil {
				return err
			}
			if _, err := tx.MetaByKey(ctx, nil, func(int64, string) bool { return true }); err != nil {
				return err
			}
			_, err := tx.TermMembers(ctx, nil)
			return err
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := db.Queries()
			view(t, db, tt.fn)
			if got := db.Queries() - before; got != tt.want {
				t.Errorf("Queries() grew by %d, want %d", got, tt.want)
			}
		})
	}
}

// The deadline leaves room for the pool's next, ordinary read on a
// loaded two-core machine; the sleep is far past it, so that View
// returning before it ends is the deadline's doing however busy the
// machine.
func TestViewEnforcesQueryDeadline(t *testing.T) {
	t.Parallel()
	db, _ := openShopWith(t, wpdbtest.NewShop("wp_"), Options{Prefix: "wp_", QueryTimeout: 250 * time.Millisecond})
	start := time.Now()
	err := db.View(context.Background(), func(ctx context.Context, tx *Tx) error {
		var slept int
		return tx.Get(ctx, &slept, `SELECT SLEEP(60)`)
	})
	elapsed := time.Since(start)
	if err == nil {
		t.Fatal("SELECT SLEEP(60) under a 250ms deadline returned no error")
	}
	if elapsed > 30*time.Second {
		t.Errorf("View returned after %v, want the 250ms deadline to stop SELECT SLEEP(60)", elapsed)
	}
	if !IsUnavailable(err) {
		t.Errorf("IsUnavailable(%v) = false for a query past the deadline", err)
	}
	// The pool recovers: the next View works.
	view(t, db, func(ctx context.Context, tx *Tx) error {
		_, err := tx.Options(ctx, []string{"blogname"})
		return err
	})
}

func TestOpenRejects(t *testing.T) {
	tests := []struct {
		name   string
		dsn    string
		prefix string
	}{
		{"dash in prefix", "root@tcp(127.0.0.1:3306)/wp", "wp-"},
		{"SQL in prefix", "root@tcp(127.0.0.1:3306)/wp", "x;DROP"},
		{"space in prefix", "root@tcp(127.0.0.1:3306)/wp", "wp _"},
		{"backquote in prefix", "root@tcp(127.0.0.1:3306)/wp", "wp`_"},
		{"prefix too long", "root@tcp(127.0.0.1:3306)/wp", "abcdefghijklmnopqrstuvwxyz0123456"},
		{"DSN without database slash", "root@tcp(127.0.0.1:3306)", "wp_"},
		{"DSN not a DSN", "this is not a dsn", "wp_"},
		{"DSN bad timeout", "root@tcp(127.0.0.1:3306)/wp?timeout=soon", "wp_"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(tt.dsn, Options{Prefix: tt.prefix})
			if err == nil {
				db.Close()
				t.Fatalf("Open(%q, prefix %q) succeeded, want an error", tt.dsn, tt.prefix)
			}
		})
	}
}

func TestOpenAcceptsValidPrefixes(t *testing.T) {
	for _, prefix := range []string{"", "wp_", "shop2_", "WP_Live_9", "abcdefghijklmnopqrstuvwxyz012345"} {
		t.Run(fmt.Sprintf("%q", prefix), func(t *testing.T) {
			if !ValidPrefix(prefix) {
				t.Errorf("ValidPrefix(%q) = false, want true", prefix)
			}
			db, err := Open("root@tcp(127.0.0.1:3306)/wp", Options{Prefix: prefix})
			if err != nil {
				t.Fatalf("Open with prefix %q: %v", prefix, err)
			}
			db.Close()
		})
	}
}

func TestIsUnavailableConnectionRefused(t *testing.T) {
	t.Parallel()
	dsn := fmt.Sprintf("root@tcp(127.0.0.1:%d)/wp?timeout=1s", closedPort(t))
	db, err := Open(dsn, Options{Prefix: "wp_", QueryTimeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("Open does not wait for the database, yet failed: %v", err)
	}
	defer db.Close()
	ctx := context.Background()
	tests := []struct {
		name string
		run  func() error
	}{
		{"Ping", func() error { return db.Ping(ctx) }},
		{"View", func() error {
			return db.View(ctx, func(ctx context.Context, tx *Tx) error {
				t.Error("View ran fn without a database")
				return nil
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if err == nil {
				t.Fatal("no error from a closed port")
			}
			if !IsUnavailable(err) {
				t.Errorf("IsUnavailable(%v) = false for a refused connection", err)
			}
		})
	}
}

// A read that cannot begin (the database away) is observed as an errored
// statement, as catalogd_db_query_duration_seconds{outcome="error"}
// counts them: with the binary-log feed, whole reads are an hour apart
// and nothing else would show the outage.
func TestFailedBeginIsObserved(t *testing.T) {
	t.Parallel()
	var errs atomic.Int64
	dsn := fmt.Sprintf("root@tcp(127.0.0.1:%d)/wp?timeout=1s", closedPort(t))
	db, err := Open(dsn, Options{Prefix: "wp_", Observe: func(_ time.Duration, err error) {
		if err != nil {
			errs.Add(1)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for range 3 {
		if err := db.View(context.Background(), func(context.Context, *Tx) error { return nil }); err == nil {
			t.Fatal("a read began without a database")
		}
	}
	if n := errs.Load(); n != 3 {
		t.Errorf("%d errored statements observed for 3 reads that could not begin, want 3", n)
	}
}

func TestIsUnavailableFalseForBadQueries(t *testing.T) {
	t.Parallel()
	db, _ := openShop(t, wpdbtest.NewShop("wp_"))
	tests := []struct {
		name   string
		stmt   string
		number uint16
	}{
		{"syntax error", `SELEC 1`, 1064},
		{"missing table", `SELECT COUNT(*) FROM {no_such_table}`, 1146},
		{"missing column", `SELECT no_such_column FROM {options} LIMIT 1`, 1054},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := db.View(context.Background(), func(ctx context.Context, tx *Tx) error {
				var n int
				return tx.Get(ctx, &n, tt.stmt)
			})
			if err == nil {
				t.Fatalf("%s: no error", tt.stmt)
			}
			if n := mysqlErrNumber(err); n != tt.number {
				t.Errorf("%s: error %v (number %d), want %d", tt.stmt, err, n, tt.number)
			}
			if IsUnavailable(err) {
				t.Errorf("IsUnavailable(%v) = true for a wrong query", err)
			}
		})
	}
}

func TestIsUnavailableClassifies(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"deadline", context.DeadlineExceeded, true},
		{"wrapped deadline", fmt.Errorf("wpdb: read terms: %w", context.DeadlineExceeded), true},
		{"invalid connection", mysql.ErrInvalidConn, true},
		{"connection done", sql.ErrConnDone, true},
		{"EOF", io.EOF, true},
		{"unexpected EOF", io.ErrUnexpectedEOF, true},
		{"net error", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, true},
		{"too many connections", &mysql.MySQLError{Number: 1040}, true},
		{"access denied", &mysql.MySQLError{Number: 1045}, true},
		{"access denied by the account's plugin", &mysql.MySQLError{Number: 1698}, true},
		{"database denied", &mysql.MySQLError{Number: 1044}, true},
		{"unknown database", &mysql.MySQLError{Number: 1049}, true},
		{"table denied", fmt.Errorf("wpdb: x: %w", &mysql.MySQLError{Number: 1142}), true},
		{"column denied", &mysql.MySQLError{Number: 1143}, true},
		{"server shutdown", &mysql.MySQLError{Number: 1053}, true},
		{"connection killed", &mysql.MySQLError{Number: 1927}, true},
		{"syntax error", &mysql.MySQLError{Number: 1064}, false},
		{"missing table", fmt.Errorf("wpdb: x: %w", &mysql.MySQLError{Number: 1146}), false},
		{"read-only transaction", &mysql.MySQLError{Number: 1792}, false},
		{"no rows", sql.ErrNoRows, false},
		{"plain error", errors.New("boom"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsUnavailable(tt.err); got != tt.want {
				t.Errorf("IsUnavailable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestConfigurablePrefix(t *testing.T) {
	t.Parallel()
	shop := wpdbtest.NewShop("shop2_")
	cat := shop.Category("Vehicles", "vehicles", "", 0)
	id := shop.Add(wpfixture.Product{Title: "Police Car", RegularPrice: "9", Categories: []string{"vehicles"}})
	dsn, _ := testdb.Load(t, shop)

	db, err := Open(dsn, Options{Prefix: "shop2_"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	view(t, db, func(ctx context.Context, tx *Tx) error {
		opts, err := tx.Options(ctx, []string{"blogname"})
		if err != nil {
			return err
		}
		if opts["blogname"] != "Script Shop" {
			t.Errorf("blogname = %q, want %q", opts["blogname"], "Script Shop")
		}
		return nil
	})
	rows, err := db.LoadShop(context.Background(), catalog.ShopReads)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows.Products.Posts) != 1 || rows.Products.Posts[0].ID != id || !slices.Contains(rows.Products.Terms[id], cat.TTID) {
		t.Errorf("LoadShop under shop2_: products %+v, terms %v; want police-car (%d) in vehicles", rows.Products.Posts, rows.Products.Terms, id)
	}

	// The default prefix does not find the shop2_ tables: a wrong query,
	// not an unavailable database.
	wrong, err := Open(dsn, Options{Prefix: "wp_"})
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	err = wrong.View(context.Background(), func(ctx context.Context, tx *Tx) error {
		_, err := tx.Options(ctx, []string{"blogname"})
		return err
	})
	if n := mysqlErrNumber(err); n != 1146 {
		t.Errorf("reading with prefix wp_: error %v (number %d), want 1146", err, n)
	}
	if IsUnavailable(err) {
		t.Errorf("IsUnavailable(%v) = true for a missing table", err)
	}
}

// TestBlackHoleDoesNotWedgeThePool: a database that accepts TCP but never
// answers (a firewall that swallows packets, a frozen server) must not
// hold the pool's slots for ever. database/sql opens a connection for a
// waiting read with a context that never ends; each such opening still
// gives up at the DSN's timeout, so that a later read tries the database
// again and catalogd recovers as soon as it answers.
func TestBlackHoleDoesNotWedgeThePool(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	accepted := make(chan net.Conn, 64)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never answered
		}
	}()
	t.Cleanup(func() {
		for {
			select {
			case c := <-accepted:
				c.Close()
			default:
				return
			}
		}
	})
	db, err := Open(fmt.Sprintf("u:p@tcp(%s)/wp?timeout=300ms", l.Addr()), Options{Prefix: "wp_", MaxOpen: 1,
		QueryTimeout: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	// The first read takes the one slot; the second waits in the queue,
	// and gets the connection database/sql opens for it in the background
	// when the first gives up.
	done := make(chan error, 2)
	go func() { done <- db.Ready(context.Background()) }()
	held := <-accepted // the first read is in, waiting for the handshake
	defer held.Close()
	go func() { done <- db.Ready(context.Background()) }()
	for range 2 {
		if err := <-done; err == nil {
			t.Fatal("Ready through a black hole succeeded")
		}
	}
	drain := func() int {
		n := 0
		for {
			select {
			case c := <-accepted:
				c.Close()
				n++
			default:
				return n
			}
		}
	}
	select {
	case c := <-accepted: // the connection opened in the background
		defer c.Close()
	case <-time.After(5 * time.Second):
		t.Fatal("no connection opened for the waiting read")
	}
	drain()
	// Each read gives up at its deadline; within a few, one must have
	// reached for the database again.
	for try := 1; drain() == 0; try++ {
		if try > 5 {
			t.Fatal("5 reads after the black hole's first ones did not even try the database: the pool is wedged")
		}
		if err := db.Ready(context.Background()); err == nil {
			t.Fatal("Ready through a black hole succeeded")
		}
	}
}
