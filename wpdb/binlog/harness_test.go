package binlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpdbtest"
	"catalogd/wpdb"
)

// feedHarness runs a binary log feed on a shop of the private server and
// collects what it reports.
type feedHarness struct {
	raw      *sql.DB // the shop's database, as an admin: WordPress's writes
	db       *wpdb.DB
	dsn      string
	feed     *Binlog
	changes  chan catalog.Change
	stop     func()
	reconn   atomic.Int64
	resyncs  atomic.Int64
	runError chan error
	ended    atomic.Bool // a test took Run's end from runError
}

// testLogger writes the feed's log lines to the test's log.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// newFeedShop loads the product shop on the private server with a binary
// log and returns the harness, the feed not yet started.
func newFeedShop(t *testing.T) (*feedHarness, *wpdbtest.Products) {
	t.Helper()
	server := testdb.BinlogServer(t)
	p := wpdbtest.NewProducts()
	p.Shop.AddNoise(p.Radar, "Radar")
	dsn, raw := testdb.LoadOn(t, server, p.Shop)
	db, err := wpdb.Open(dsn, wpdb.Options{Prefix: "wp_"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &feedHarness{raw: raw, db: db, dsn: dsn}, p
}

// run makes a feed with o, starts it and runs it until the test ends (or
// h.stop is called).
func (h *feedHarness) run(t *testing.T, dsn string, o Options, at *binlogPosition) {
	t.Helper()
	o.Logger = testLogger(t)
	o.OnReconnect = func() { h.reconn.Add(1) }
	o.OnResync = func() { h.resyncs.Add(1) }
	f, err := New(h.db, dsn, catalog.ShopReads, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if at != nil {
		err = f.startAt(ctx, *at)
	} else {
		err = f.Start(ctx)
	}
	if err != nil {
		cancel()
		t.Fatalf("start: %v", err)
	}
	h.feed, h.changes, h.runError = f, make(chan catalog.Change, 1000), make(chan error, 1)
	go func() {
		h.runError <- f.Run(ctx, catalog.ChangeFunc(func(c catalog.Change) { h.changes <- c }))
	}()
	var once sync.Once
	h.stop = func() {
		once.Do(func() {
			cancel()
			if h.ended.Load() {
				return
			}
			select {
			case err := <-h.runError:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Run ended with %v, want context.Canceled", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("Run did not end within 10 s of its context")
			}
		})
	}
	t.Cleanup(h.stop)
}

// exec runs WordPress's statements, each committed on its own (WordPress
// runs without transactions), or in one transaction when tx.
func (h *feedHarness) exec(t *testing.T, tx bool, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	if !tx {
		for _, s := range stmts {
			if _, err := h.raw.ExecContext(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		return
	}
	txn, err := h.raw.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := txn.ExecContext(ctx, s); err != nil {
			txn.Rollback()
			t.Fatalf("%s: %v", s, err)
		}
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
}

// next waits for the next change, 10 s at most.
func (h *feedHarness) next(t *testing.T) catalog.Change {
	t.Helper()
	select {
	case c := <-h.changes:
		return c
	case err := <-h.runError:
		t.Fatalf("the feed ended: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no change reported within 10 s")
	}
	return catalog.Change{}
}

// marker is a change the feed reports (the site's tagline edited): the
// change after a write that must report none is the marker's.
func (h *feedHarness) marker(t *testing.T) {
	t.Helper()
	h.exec(t, false, fmt.Sprintf("UPDATE wp_options SET option_value = 'marker %d' WHERE option_name = 'blogdescription'",
		time.Now().UnixNano()))
}

// expect fails unless c is want (Committed aside, which must be set).
func expect(t *testing.T, c, want catalog.Change) {
	t.Helper()
	if c.Committed.IsZero() {
		t.Errorf("change %+v has no commit time", c)
	}
	if time.Since(c.Committed) > time.Minute || time.Until(c.Committed) > 2*time.Second {
		t.Errorf("commit time %v is not now", c.Committed)
	}
	c.Committed = time.Time{}
	if !slices.Equal(c.Posts, want.Posts) || !slices.Equal(c.Products, want.Products) || c.All != want.All || c.Kind != want.Kind {
		t.Errorf("change = %+v\nwant     %+v", c, want)
	}
}

var optionChange = catalog.Change{All: true, Kind: catalog.KindOption}

// ids is a sorted list.
func ids(v ...int64) []int64 {
	slices.Sort(v)
	return slices.Compact(v)
}

func (h *feedHarness) scalar(t *testing.T, q string, args ...any) int64 {
	t.Helper()
	var v int64
	if err := h.raw.QueryRow(q, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

func openTest(t *testing.T, dsn string) *wpdb.DB {
	t.Helper()
	db, err := wpdb.Open(dsn, wpdb.Options{Prefix: "wp_"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
