package testdb

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"

	"catalogd/internal/wpfixture"
)

// With CATALOG_TEST_SQL_MODE the code under test reads in that session
// mode, and the shop still loads, zero dates included, as WordPress stores
// a draft; without it, the reading session has the server's mode.
func TestLoadSQLMode(t *testing.T) {
	tests := []struct {
		name string
		mode *string // nil: unset
		want string  // "": the server's
	}{
		{"unset", nil, ""},
		{"MySQL 8's default, by name", ptr("mysql8"), MySQL8SQLMode},
		{"a list", ptr("STRICT_ALL_TABLES,NO_ZERO_DATE"), "STRICT_ALL_TABLES,NO_ZERO_DATE"},
		{"empty: none at all", ptr(""), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.mode == nil {
				t.Setenv("CATALOG_TEST_SQL_MODE", "") // the outer value comes back after the test
				os.Unsetenv("CATALOG_TEST_SQL_MODE")
			} else {
				t.Setenv("CATALOG_TEST_SQL_MODE", *tt.mode)
			}
			shop := wpfixture.New("wp_", "http://shop.test")
			draft := shop.Add(wpfixture.Product{Title: "Unfinished", Status: "draft", RegularPrice: "1"})
			dsn, raw := Load(t, shop)

			ctx := context.Background()
			var global string
			if err := raw.QueryRowContext(ctx, "SELECT @@GLOBAL.sql_mode").Scan(&global); err != nil {
				t.Fatal(err)
			}
			db, err := sql.Open("mysql", dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var session, gmt string
			if err := db.QueryRowContext(ctx, "SELECT @@SESSION.sql_mode, CAST(post_date_gmt AS CHAR) FROM wp_posts WHERE ID = ?",
				draft).Scan(&session, &gmt); err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if tt.mode == nil {
				want = global
			}
			if session != want {
				t.Errorf("the reading session's sql_mode %q, want %q", session, want)
			}
			if gmt != "0000-00-00 00:00:00" {
				t.Errorf("a draft's post_date_gmt %q, want WordPress's zero date", gmt)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// A typo in CATALOG_TEST_SQL_MODE is not sent to the server.
func TestSQLModeMustLookLikeOne(t *testing.T) {
	for _, mode := range []string{"STRICT_ALL_TABLES'; DROP DATABASE x; --", "A,,B", "ANSI QUOTES"} {
		t.Setenv("CATALOG_TEST_SQL_MODE", mode)
		ft := &fatalRecorder{TB: t}
		func() {
			defer func() { recover() }()
			readDSN(ft, DefaultDSN)
		}()
		if !strings.Contains(ft.msg, "CATALOG_TEST_SQL_MODE") {
			t.Errorf("%q accepted", mode)
		}
	}
}

// fatalRecorder records a Fatalf instead of ending the test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Helper() {}
func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = format
	panic("fatal")
}

// Tests that skip for lack of something are counted by cause for the
// banner Run prints, which names the package and the tests.
func TestLackingIsCounted(t *testing.T) {
	t.Setenv("CI", "")
	for range 2 {
		t.Run("no tool", func(t *testing.T) { Lacking(t, "the %s client is not installed", "frob") })
	}
	t.Run("no server", func(t *testing.T) { Lacking(t, "no server") })
	got := banner()
	// The skips are this test's own: the package's banner must not count them.
	lacking.Lock()
	lacking.counts, lacking.order, lacking.first, lacking.names = nil, nil, nil, nil
	lacking.Unlock()
	for _, want := range []string{
		"SKIPPED: catalogd/internal/testdb: 2 tests need what this machine lacks: the frob client is not installed\n",
		"SKIPPED: catalogd/internal/testdb: 1 test needs what this machine lacks: no server\n",
		// Named without -v, where go test shows no skip at all.
		"TestLackingIsCounted/no_tool, TestLackingIsCounted/no_tool#01\n",
		"TestLackingIsCounted/no_server\n",
		"Under CI=true they fail",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("banner:\n%s\nwant it to hold %q", got, want)
		}
	}
}
