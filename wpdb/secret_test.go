package wpdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"catalogd/internal/testdb"
)

const secret = "s3cr3t-Pa55"

// noSecret fails the test when text holds the secret.
func noSecret(t *testing.T, what, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(strings.ToLower(text), strings.ToLower(s)) {
			t.Errorf("secret %q found in %s: %s", s, what, text)
		}
	}
}

func TestOpenRejectsADSNWithoutEchoingThePassword(t *testing.T) {
	tests := []struct {
		name string
		dsn  string
		want string // the problem the message names
	}{
		// The driver would take "user:secret" for the network and dial it,
		// printing it in every error.
		{"no @tcp before the address", "catalog:" + secret + "(127.0.0.1:3306)/wordpress", "@tcp"},
		{"@ inside the password, no @tcp", "catalog:x@" + secret + "(127.0.0.1:3306)/wordpress", "@tcp"},
		{"no @ at all", "catalog:" + secret + "/wordpress", "@tcp"},
		{"host without tcp()", "catalog:x@" + secret + ":3306/wordpress", "@tcp"},
		{"no /database", "catalog:" + secret + "@tcp(127.0.0.1:3306)", "/database"},
		{"address not closed", "catalog:" + secret + "@tcp(127.0.0.1:3306/wordpress", "closing brace"},
		{"password as a parameter value", "catalog@tcp(127.0.0.1:3306)/wordpress?timeout=" + secret, `"timeout"`},
		{"bad escape in the database name", "catalog:x@tcp(127.0.0.1:3306)/" + secret + "%zz", "database name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(tt.dsn, Options{Prefix: "wp_"})
			if err == nil {
				db.Close()
				t.Fatalf("Open(%q) accepted it", tt.dsn)
			}
			noSecret(t, "the error", err.Error(), secret)
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %q", err, tt.want)
			}
		})
	}
	for _, dsn := range []string{"catalog:" + secret + "@tcp(db:3306)/wordpress", "catalog:" + secret + "@/wordpress",
		"catalog:p@ss(w)rd@tcp(db)/wordpress", "catalog@unix(/run/mysqld/mysqld.sock)/wordpress?timeout=2s"} {
		if db, err := Open(dsn, Options{Prefix: "wp_"}); err != nil {
			t.Errorf("Open(%q): %v", dsn, err)
		} else {
			db.Close()
		}
	}
}

// Every error the DB's methods return is redacted, whichever driver
// message carries the password: here the dial error of a socket path that
// holds it.
func TestErrorsNeverCarryThePassword(t *testing.T) {
	t.Parallel()
	db, err := Open("catalog:"+secret+"@unix(/nonexistent/"+secret+".sock)/wordpress?timeout=1s",
		Options{Prefix: "wp_", QueryTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		run  func() error
	}{
		{"Ping", func() error { return db.Ping(ctx) }},
		{"View", func() error {
			return db.View(ctx, func(context.Context, *Tx) error { return nil })
		}},
		{"Ready", func() error { return db.Ready(ctx) }},
		{"WritePrivileges", func() error { _, err := db.WritePrivileges(ctx); return err }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if err == nil {
				t.Fatal("no error without a database")
			}
			noSecret(t, "the error", err.Error(), secret)
			if !IsUnavailable(err) {
				t.Errorf("IsUnavailable(%v) = false: redaction hid the cause", err)
			}
		})
	}
}

// A user that can write is reported by its grants; MariaDB prints the
// password hash in the same line, which must not reach the warning.
func TestWritePrivilegesHideThePasswordHash(t *testing.T) {
	t.Parallel()
	dsn := testdb.New(t)
	u := testdb.NewUser(t, dsn, "INSERT ON *.*")
	db, err := Open(u.DSN, Options{Prefix: "wp_"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	writes, err := db.WritePrivileges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(writes) != 1 || !strings.Contains(writes[0], "GRANT INSERT ON *.*") {
		t.Fatalf("write grants = %q, want the INSERT grant", writes)
	}
	noSecret(t, "the grants", strings.Join(writes, "\n"), u.Password, u.Hash)
}

// logFunc is a driver logger that calls a function.
type logFunc func(v ...any)

func (f logFunc) Print(v ...any) { f(v...) }

func TestDriverLogIsRedacted(t *testing.T) {
	var got string
	l := redactLogger{next: logFunc(func(v ...any) { got = fmt.Sprint(v...) }), secrets: newPasswords(secret)}
	l.Print("closing bad idle connection: ", errors.New("dial unix /x/"+secret+".sock: refused"))
	if want := "closing bad idle connection: dial unix /x/[redacted].sock: refused"; got != want {
		t.Errorf("logged %q, want %q", got, want)
	}
}

func TestRedactText(t *testing.T) {
	const hash = "*0E3F627084AC4D30F4C5CE29E94187DCD60A7F21"
	tests := []struct{ in, want string }{
		{"GRANT INSERT ON *.* TO `u`@`%` IDENTIFIED BY PASSWORD '" + hash + "'",
			"GRANT INSERT ON *.* TO `u`@`%` IDENTIFIED BY PASSWORD '[redacted]'"},
		{"GRANT ALL PRIVILEGES ON *.* TO `u`@`%` IDENTIFIED VIA ed25519 USING 'ZIgUREUg5PVgQ6LskhXmO+eZLS0nC8be6HPjYWR4YJY' OR unix_socket WITH GRANT OPTION",
			"GRANT ALL PRIVILEGES ON *.* TO `u`@`%` IDENTIFIED VIA ed25519 USING '[redacted]' OR unix_socket WITH GRANT OPTION"},
		{"GRANT USAGE ON *.* TO 'u'@'%' IDENTIFIED WITH 'caching_sha2_password' AS '$A$005$x''y\\'z'",
			"GRANT USAGE ON *.* TO 'u'@'%' IDENTIFIED WITH '[redacted]' AS '[redacted]'"},
		{"a hash " + hash + " outside a grant", "a hash [redacted] outside a grant"},
		{"dial unix /x/" + secret + ".sock: no such file", "dial unix /x/[redacted].sock: no such file"},
		{"GRANT SELECT ON `wp`.* TO `u`@`%`", "GRANT SELECT ON `wp`.* TO `u`@`%`"},
	}
	for _, tt := range tests {
		if got := RedactText(tt.in, secret); got != tt.want {
			t.Errorf("RedactText(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}
