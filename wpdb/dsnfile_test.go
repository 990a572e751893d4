package wpdb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/testdb"
)

// New connections take the user and password the DSN file holds now; a
// file that names another database, or that is gone, leaves the DSN in use
// as it was. Every password the file brought is redacted.
func TestDSNFileTakesTheCredentials(t *testing.T) {
	u := testdb.NewReader(t, testdb.New(t))
	path := filepath.Join(t.TempDir(), "dsn")
	write := func(dsn string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(dsn+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(u.DSN)
	db, err := Open(u.DSN, Options{Prefix: "wp_", DSNFile: path, MaxOpen: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if err := db.Ping(ctx); err != nil {
		t.Fatal(err)
	}

	now := u.ChangePassword(t) // ends the pool's sessions
	write(now.DSN)
	// The first statement may meet a connection the server ended.
	deadline := time.Now().Add(10 * time.Second)
	for err := db.Ping(ctx); err != nil; err = db.Ping(ctx) {
		if time.Now().After(deadline) {
			t.Fatalf("no new connection with the file's password within 10 s: %v", err)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition, with a deadline
	}
	if db.DSN() != now.DSN {
		t.Error("DSN() is not the file's after it changed")
	}
	if got := db.Redact(errors.New("dial " + now.Password + " and " + u.Password)).Error(); strings.Contains(got, now.Password) ||
		strings.Contains(got, u.Password) {
		t.Errorf("an error keeps a password: %q", got)
	}

	elsewhere, err := mysql.ParseDSN(now.DSN)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere.DBName = "elsewhere"
	for _, change := range []struct {
		what string
		do   func()
	}{
		{"names another database", func() { write(elsewhere.FormatDSN()) }},
		{"is empty", func() { write("") }},
		{"is gone", func() { os.Remove(path) }},
	} {
		change.do()
		if db.DSN() != now.DSN {
			t.Errorf("a DSN file that %s was taken", change.what)
		}
		if err := db.Ping(ctx); err != nil {
			t.Errorf("a DSN file that %s: %v", change.what, err)
		}
	}
}
