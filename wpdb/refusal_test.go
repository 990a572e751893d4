package wpdb

import (
	"context"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
	"catalogd/internal/wpdbtest"
)

// A server that refuses catalogd's connection is said in the words of
// what to fix, by Refusal and in Ready's error (/readyz), against the real
// server: a wrong password, a database the user may not use, a database
// that does not exist. A server that is away is not a refusal. No error
// holds the password.
func TestRefusalSaysWhatToFix(t *testing.T) {
	t.Parallel()
	rootDSN, _ := testdb.Load(t, wpdbtest.NewShop("wp_"))
	cfg, err := mysql.ParseDSN(rootDSN)
	if err != nil {
		t.Fatal(err)
	}
	u := testdb.NewUser(t, rootDSN, "SELECT ON `"+cfg.DBName+"`.*")
	with := func(dsn string, edit func(c *mysql.Config)) string {
		c, err := mysql.ParseDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		edit(c)
		return c.FormatDSN()
	}
	const wrong = "Wr0ng-pa55word"
	for _, tt := range []struct {
		name, dsn, want string
	}{
		{"wrong password", with(u.DSN, func(c *mysql.Config) { c.Passwd = wrong }),
			"access denied: check the user and password in the DSN"},
		{"database the user may not use", with(u.DSN, func(c *mysql.Config) { c.DBName = "mysql" }),
			"access to the database denied: check the database name in the DSN, or grant the user SELECT on it"},
		{"unknown database", with(rootDSN, func(c *mysql.Config) { c.DBName = cfg.DBName + "_none" }),
			"unknown database: check the database name in the DSN"},
		{"server away", with(rootDSN, func(c *mysql.Config) { c.Addr = proctest.FreeAddr(t) }), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(tt.dsn, Options{Prefix: "wp_"})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx := context.Background()
			perr := db.Ping(ctx)
			if perr == nil {
				t.Fatal("Ping: no error")
			}
			if got := Refusal(perr); got != tt.want {
				t.Errorf("Refusal(%v) = %q, want %q", perr, got, tt.want)
			}
			rerr := db.Ready(ctx)
			switch {
			case rerr == nil:
				t.Fatal("Ready: no error")
			case tt.want != "" && !strings.HasPrefix(rerr.Error(), tt.want+": "):
				t.Errorf("Ready: %v, want it to begin %q", rerr, tt.want)
			case tt.want == "" && strings.Contains(rerr.Error(), "denied"):
				t.Errorf("Ready with the server away: %v, said as a refusal", rerr)
			}
			for _, e := range []error{perr, rerr} {
				if strings.Contains(e.Error(), wrong) || strings.Contains(e.Error(), u.Password) {
					t.Errorf("the password in %q", e)
				}
			}
		})
	}
}
