// Package mysql holds the SQL that creates catalogd's read-only database
// user; its test creates one and runs every operation with it.
package mysql_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"catalogd/api"

	"github.com/go-sql-driver/mysql"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
	"catalogd/wpdb/binlog"
)

func TestReadOnlyUser(t *testing.T) {
	s := wpfixture.New("shop_", "https://shop.example")
	s.Category("Jobs", "jobs", "", 0)
	s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5", Categories: []string{"jobs"}, Image: "2026/11/r.jpg"})
	s.Add(wpfixture.Product{Title: "Garage", Type: "variable", Variations: []wpfixture.Variation{{Framework: "esx", RegularPrice: "3"}}})
	dsn, admin := testdb.Load(t, s)
	cfg, _ := mysql.ParseDSN(dsn)
	ctx := context.Background()
	ro := runScript(t, admin, cfg, false)
	db, err := wpdb.Open(ro.FormatDSN(), wpdb.Options{Prefix: "shop_"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ready(ctx); err != nil {
		t.Fatalf("not ready with SELECT alone: %v", err)
	}
	cat := catalog.New(db, catalog.Config{})
	if _, err := cat.Index(ctx); err != nil {
		t.Errorf("index: %v", err)
	}
	if _, err := cat.Categories(ctx); err != nil {
		t.Errorf("categories: %v", err)
	}
	if l, err := cat.Products(ctx, api.ListQuery{Category: "jobs"}); err != nil || l.Total != 1 {
		t.Errorf("products: %+v, %v", l, err)
	}
	if p, err := cat.Product(ctx, "garage"); err != nil || p.Price == nil {
		t.Errorf("product: %+v, %v", p, err)
	}
	if w, err := db.WritePrivileges(ctx); err != nil || len(w) != 0 {
		t.Errorf("the read-only user has write grants %v (%v)", w, err)
	}

	// It cannot write, and the admin can: the check tells them apart.
	rodb := testdb.Open(t, ro.FormatDSN())
	if _, err := rodb.Exec("UPDATE shop_options SET option_value = 'x' WHERE option_name = 'blogname'"); err == nil {
		t.Error("the read-only user could update a table")
	}
	if _, err := rodb.Exec("SELECT 1 FROM mysql.user LIMIT 1"); err == nil {
		t.Error("the read-only user can read tables it does not need")
	}
	adminDB, err := wpdb.Open(dsn, wpdb.Options{Prefix: "shop_"})
	if err != nil {
		t.Fatal(err)
	}
	defer adminDB.Close()
	if w, err := adminDB.WritePrivileges(ctx); err != nil || len(w) == 0 {
		t.Errorf("root's write grants not seen: %v, %v", w, err)
	}
}

// runScript runs readonly-user.sql as the README shows, for a new user of
// cfg's database, with its optional replication grant uncommented when
// replication is set, and returns the user's DSN.
func runScript(t *testing.T, admin *sql.DB, cfg *mysql.Config, replication bool) mysql.Config {
	t.Helper()
	var b [4]byte
	_, _ = rand.Read(b[:])
	user, password := "catalogd_ro_"+hex.EncodeToString(b[:]), "pw-"+hex.EncodeToString(b[:])
	ctx := context.Background()
	conn, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Cleanup(func() { admin.Exec("DROP USER IF EXISTS '" + user + "'@'%'") })
	if _, err := conn.ExecContext(ctx, "SET @db = ?, @prefix = 'shop_', @user = ?, @host = '%', @password = ?",
		cfg.DBName, user, password); err != nil {
		t.Fatal(err)
	}
	const optional = "-- SET @sql = CONCAT('GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO '"
	uncomment := ""
	if replication {
		uncomment = optional
	}
	source(t, conn, "readonly-user.sql", optional, uncomment)
	ro := *cfg
	ro.User, ro.Passwd = user, password
	return ro
}

// source runs the statements of the SQL file name on conn, as the mysql
// client's SOURCE would: its comment lines left out, but those that
// start with uncomment, which run without their "-- ". The file must
// hold the line want.
func source(t *testing.T, conn *sql.Conn, name, want, uncomment string) {
	t.Helper()
	script, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), want) {
		t.Fatalf("%s has no line %q", name, want)
	}
	var lines []string
	for _, l := range strings.Split(string(script), "\n") {
		if uncomment != "" && strings.HasPrefix(l, uncomment) {
			l = strings.TrimPrefix(l, "-- ")
		}
		if !strings.HasPrefix(l, "--") {
			lines = append(lines, l)
		}
	}
	for _, stmt := range strings.Split(strings.Join(lines, "\n"), ";") {
		if stmt = strings.TrimSpace(stmt); stmt != "" {
			if _, err := conn.ExecContext(context.Background(), stmt); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, stmt)
			}
		}
	}
}

// The optional grant lets the user follow the binary log, and still write
// nothing; without it, catalogd is told why it must poll.
func TestReadOnlyUserReplication(t *testing.T) {
	server := testdb.BinlogServer(t)
	s := wpfixture.New("shop_", "https://shop.example")
	s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5"})
	dsn, admin := testdb.LoadOn(t, server, s)
	cfg, _ := mysql.ParseDSN(dsn)
	ctx := context.Background()
	for _, replication := range []bool{false, true} {
		ro := runScript(t, admin, cfg, replication)
		db, err := wpdb.Open(ro.FormatDSN(), wpdb.Options{Prefix: "shop_"})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ok, why := binlog.Status(ctx, db, ro.FormatDSN())
		t.Logf("with the replication grant %v: %v, %s", replication, ok, why)
		if ok != replication {
			t.Errorf("with the replication grant %v: BinlogStatus = %v, %s", replication, ok, why)
		}
		if w, err := db.WritePrivileges(ctx); err != nil || len(w) != 0 {
			t.Errorf("with the replication grant %v: write grants %v (%v)", replication, w, err)
		}
	}
}

func TestMain(m *testing.M) {
	code := testdb.Run(m)
	testdb.StopServers()
	os.Exit(code)
}
