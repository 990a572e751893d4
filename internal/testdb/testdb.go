// Package testdb gives each test a throwaway MariaDB/MySQL database: created
// on the server named by CATALOG_TEST_DSN (default root@tcp(127.0.0.1:3306)/),
// dropped when the test ends. Without a server a test skips, loudly, except
// under CI=true, where it fails: CI never passes by skipping.
package testdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/wpfixture"
)

// DefaultDSN is the server tests use when CATALOG_TEST_DSN is not set.
const DefaultDSN = "root@tcp(127.0.0.1:3306)/"

// serverConfig returns the configuration of the test server.
func serverConfig(t testing.TB) *mysql.Config {
	t.Helper()
	dsn := os.Getenv("CATALOG_TEST_DSN")
	if dsn == "" {
		dsn = DefaultDSN
	}
	return configOf(t, dsn)
}

// configOf parses a server DSN.
func configOf(t testing.TB, server string) *mysql.Config {
	t.Helper()
	cfg, err := mysql.ParseDSN(server)
	if err != nil {
		t.Fatalf("test server DSN: %v", err)
	}
	cfg.MultiStatements = false
	return cfg
}

// unavailable fails the test under CI and skips it elsewhere.
func unavailable(t testing.TB, err error) {
	t.Helper()
	Lacking(t, "no test database (start MariaDB or set CATALOG_TEST_DSN): %v", err)
}

// Lacking stops a test that cannot run on this machine: it fails under
// CI=true, where .ci/run provides everything and nothing may pass by
// skipping, and skips loudly elsewhere: Run ends the package's output with
// a banner that counts the skips (see announce).
func Lacking(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("under CI=true: "+format, args...)
	}
	msg := fmt.Sprintf(format, args...)
	lacking.Lock()
	if lacking.counts == nil {
		lacking.counts = map[string]int{}
	}
	if lacking.counts[format] == 0 {
		lacking.order = append(lacking.order, format)
		lacking.first = append(lacking.first, msg)
	}
	lacking.counts[format]++
	if lacking.names == nil {
		lacking.names = map[string][]string{}
	}
	lacking.names[format] = append(lacking.names[format], t.Name())
	inMain := lacking.inMain
	lacking.Unlock()
	if !inMain {
		// A package without testdb.Run in its TestMain still says so, at
		// its first skip.
		lackingOnce.Do(func() {
			loud("SKIPPED: " + testedPackage() + ": tests skip: " + msg + "\n" +
				"         (every test that skips for this is listed by go test -v; CI=true makes it a failure)\n")
		})
	}
	t.Skipf("SKIP: %s", msg)
}

// lacking counts the tests Lacking skipped, by cause.
var lacking struct {
	sync.Mutex
	inMain bool
	counts map[string]int      // by Lacking's format
	names  map[string][]string // the tests skipped, by Lacking's format
	order  []string            // the formats, first seen first
	first  []string            // the first message of each
}

var lackingOnce sync.Once

// Run runs the package's tests, for its TestMain, and then says how many
// skipped for lack of a database or a tool, loudly, whatever the flags:
//
//	SKIPPED: 12 tests need what this machine lacks: no test database (...)
//
// The caller cleans up and exits with the code it returns.
func Run(m *testing.M) int {
	lacking.Lock()
	lacking.inMain = true
	lacking.Unlock()
	code := m.Run()
	announce()
	return code
}

// announce writes the banner of the skips, if any.
func announce() {
	if b := banner(); b != "" {
		loud(b)
	}
}

// banner is one line per cause of the skips so far, counted; empty if none.
func banner() string {
	lacking.Lock()
	defer lacking.Unlock()
	if len(lacking.order) == 0 {
		return ""
	}
	var b strings.Builder
	for i, f := range lacking.order {
		n := lacking.counts[f]
		fmt.Fprintf(&b, "SKIPPED: %s: %d %s this machine lacks: %s\n         %s\n", testedPackage(), n,
			map[bool]string{true: "test needs what", false: "tests need what"}[n == 1], lacking.first[i],
			skippedNames(lacking.names[f]))
	}
	b.WriteString("         Under CI=true they fail.\n")
	return b.String()
}

// skippedNames lists the tests skipped for one cause, the first few by
// name: without -v, go test shows no skip at all.
func skippedNames(names []string) string {
	const shown = 6
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more (go test -v lists them)", strings.Join(names[:shown], ", "), len(names)-shown)
}

// testedPackage is the import path of the package under test.
func testedPackage() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" {
		return strings.TrimSuffix(bi.Path, ".test")
	}
	return filepath.Base(os.Args[0])
}

// loud writes msg where a person running go test sees it. go test, given
// packages to test, prints a passing package's output only with -v: a skip
// banner written to the test binary's stderr would be dropped with the
// rest, leaving a bare "ok". So when the binary's parent is the go command
// (Linux) and its stderr is a terminal or a pipe, the banner goes there,
// to the terminal or CI log go test itself writes to; otherwise (a test
// binary run by hand, go test's output redirected to a file) to the
// binary's stderr, which -v shows.
func loud(msg string) {
	if w := goCommandStderr(); w != nil {
		defer w.Close()
		if _, err := io.WriteString(w, msg); err == nil {
			return
		}
	}
	fmt.Fprint(os.Stderr, msg)
}

// goCommandStderr opens the parent's standard error when the parent is the
// go command; nil otherwise.
func goCommandStderr() *os.File {
	ppid := os.Getppid()
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", ppid))
	if err != nil || strings.TrimSpace(string(comm)) != "go" {
		return nil
	}
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/2", ppid), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil
	}
	// A terminal or a pipe is shared with the go command; a regular file
	// opened again is not: the go command's next write, at its own offset,
	// would overwrite the banner.
	if st, err := f.Stat(); err != nil || st.Mode().IsRegular() {
		f.Close()
		return nil
	}
	return f
}

// New creates an empty database and returns its DSN; it is dropped when
// the test and its subtests end.
func New(t testing.TB) string {
	t.Helper()
	return newOn(t, serverConfig(t))
}

// NewOn is New on the server the DSN names (one of BinlogServer's).
func NewOn(t testing.TB, server string) string {
	t.Helper()
	return newOn(t, configOf(t, server))
}

func newOn(t testing.TB, cfg *mysql.Config) string {
	t.Helper()
	cfg.DBName = ""
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatalf("open test server: %v", err)
	}
	t.Cleanup(func() { admin.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		unavailable(t, err)
	}
	name := "catalogd_test_" + randomHex(6)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci"); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	cfg.DBName = name
	return cfg.FormatDSN()
}

// Open opens a connection pool on dsn, closed when the test ends.
func Open(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatalf("open %s: %v", dsn, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Load creates a database holding the shop and returns the DSN the code
// under test reads it through, and a pool on it, through which a test may
// flush rows it adds later.
//
// Only the returned DSN carries CATALOG_TEST_SQL_MODE, if set: WordPress's
// schema and rows hold zero dates ('0000-00-00 00:00:00' is the column
// default, and a draft's post_date_gmt), which a strict session's
// NO_ZERO_DATE refuses to write, so the loader and the pool write in a lax
// session, as WordPress does (it clears strict modes on connecting), and
// only catalogd's reads run in the strict one.
func Load(t testing.TB, shop *wpfixture.Shop) (string, *sql.DB) {
	t.Helper()
	return load(t, New(t), shop)
}

// LoadOn is Load on the server the DSN names (one of BinlogServer's).
func LoadOn(t testing.TB, server string, shop *wpfixture.Shop) (string, *sql.DB) {
	t.Helper()
	return load(t, NewOn(t, server), shop)
}

func load(t testing.TB, dsn string, shop *wpfixture.Shop) (string, *sql.DB) {
	t.Helper()
	db := Open(t, dsn)
	ctx := context.Background()
	if err := shop.CreateSchema(ctx, db); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	if err := shop.Flush(ctx, db); err != nil {
		t.Fatalf("load shop: %v", err)
	}
	return readDSN(t, dsn), db
}

// MySQL8SQLMode is MySQL 8.0's default sql_mode, which many shops' servers
// run with; MariaDB's default is laxer. `make test` runs the read path once
// more with it: CATALOG_TEST_SQL_MODE=mysql8 names it.
const MySQL8SQLMode = "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE," +
	"ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

// sqlModeRE is what a sql_mode list looks like; anything else in
// CATALOG_TEST_SQL_MODE is a typo, not something to send to the server.
var sqlModeRE = regexp.MustCompile(`^[A-Za-z_]*(,[A-Za-z_]+)*$`)

// readDSN is dsn with the session sql_mode CATALOG_TEST_SQL_MODE names (a
// list of modes, or mysql8 for MySQL8SQLMode), for the session of the code
// under test. The driver sends a parameter that is no driver option as
// `SET name=value` on every new connection, with the value verbatim: the
// quotes make the list one string literal.
func readDSN(t testing.TB, dsn string) string {
	t.Helper()
	mode, ok := os.LookupEnv("CATALOG_TEST_SQL_MODE")
	if !ok {
		return dsn
	}
	if mode == "mysql8" {
		mode = MySQL8SQLMode
	}
	if !sqlModeRE.MatchString(mode) {
		t.Fatalf("CATALOG_TEST_SQL_MODE=%q: want a comma-separated list of sql_mode names", mode)
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("test DSN: %v", err)
	}
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["sql_mode"] = "'" + mode + "'"
	return cfg.FormatDSN()
}

// User is a database account made for one test, with a password only the
// test knows; it is dropped when the test ends.
type User struct {
	DSN      string // dsn's database, as this user
	Password string
	Hash     string // the password's hash as SHOW GRANTS prints it, without the leading *
	name     string
	admin    *sql.DB
}

// NewUser creates a user with a random name and password, grants it each
// privilege spec (like "SELECT ON `db`.*"), and returns it with the DSN of
// dsn's database as that user.
func NewUser(t testing.TB, dsn string, grants ...string) *User {
	t.Helper()
	return newUser(t, serverConfig(t), dsn, grants)
}

// NewReader is NewUser granted SELECT on dsn's database and nothing else,
// as catalogd's user in production.
func NewReader(t testing.TB, dsn string) *User {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("dsn: %v", err)
	}
	return NewUser(t, dsn, "SELECT ON `"+cfg.DBName+"`.*")
}

// NewUserOn is NewUser on the server the DSN names (one of BinlogServer's),
// for dsn, a database on it.
func NewUserOn(t testing.TB, server, dsn string, grants ...string) *User {
	t.Helper()
	return newUser(t, configOf(t, server), dsn, grants)
}

func newUser(t testing.TB, cfg *mysql.Config, dsn string, grants []string) *User {
	t.Helper()
	cfg.DBName = ""
	admin := Open(t, cfg.FormatDSN())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		unavailable(t, err)
	}
	u := &User{name: "catalogd_u_" + randomHex(5), Password: "pw-" + randomHex(12), admin: admin}
	if _, err := admin.ExecContext(ctx, "CREATE USER "+u.account()+" IDENTIFIED BY '"+u.Password+"'"); err != nil {
		t.Fatalf("create test user: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP USER IF EXISTS "+u.account()); err != nil {
			t.Errorf("drop test user %s: %v", u.name, err)
		}
	})
	for _, g := range grants {
		if _, err := admin.ExecContext(ctx, "GRANT "+g+" TO "+u.account()); err != nil {
			t.Fatalf("grant %s: %v", g, err)
		}
	}
	if err := admin.QueryRowContext(ctx, "SELECT SUBSTRING(PASSWORD(?), 2)", u.Password).Scan(&u.Hash); err != nil {
		t.Fatalf("password hash: %v", err)
	}
	ucfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("dsn: %v", err)
	}
	ucfg.User, ucfg.Passwd = u.name, u.Password
	u.DSN = ucfg.FormatDSN()
	return u
}

// ChangePassword gives the user another password and ends its sessions:
// a client still using the old one is refused from then on. It returns
// the user as it is now (its Password, Hash and DSN the new password's);
// u stays as it was, the old password's.
func (u *User) ChangePassword(t testing.TB) *User {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	now := *u
	now.Password = "pw-" + randomHex(12)
	if _, err := u.admin.ExecContext(ctx, "ALTER USER "+u.account()+" IDENTIFIED BY '"+now.Password+"'"); err != nil {
		t.Fatalf("change password: %v", err)
	}
	if err := u.admin.QueryRowContext(ctx, "SELECT SUBSTRING(PASSWORD(?), 2)", now.Password).Scan(&now.Hash); err != nil {
		t.Fatalf("password hash: %v", err)
	}
	ucfg, err := mysql.ParseDSN(u.DSN)
	if err != nil {
		t.Fatalf("dsn: %v", err)
	}
	ucfg.Passwd = now.Password
	now.DSN = ucfg.FormatDSN()
	rows, err := u.admin.QueryContext(ctx, "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ?", u.name)
	if err != nil {
		t.Fatalf("sessions: %v", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatalf("sessions: %v", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	for _, id := range ids {
		// A session may end by itself meanwhile: ignore "unknown thread".
		_, _ = u.admin.ExecContext(ctx, fmt.Sprintf("KILL CONNECTION %d", id))
	}
	return &now
}

// account is the user's quoted name; names and passwords are hex, so they
// are spliced, as account-management statements take no parameters.
func (u *User) account() string { return "'" + u.name + "'@'%'" }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
