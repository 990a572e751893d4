package deploy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/catalog"
	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
)

func randomSuffix() string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// runReadOnlyUser runs the command that creates catalogd's database user,
// as an administrator would, then connects with the DSN printed beside it.
// The server is shared by parallel tests, so the three names the reader
// chooses (database, user, password) become names of the test's own; not
// another byte of the command changes.
func runReadOnlyUser(t *testing.T, cmds []shown) {
	for _, c := range cmds {
		t.Run(c.where, func(t *testing.T) {
			dsn, cfg := rootShop(t)
			suffix := randomSuffix()
			user, password := "catalogd_doc_"+suffix, "pw-"+suffix
			admin := testdb.Open(t, dsn)
			t.Cleanup(func() { admin.Exec("DROP USER IF EXISTS '" + user + "'@'%'") })
			fill := func(s string, pairs ...string) string {
				t.Helper()
				for i := 0; i < len(pairs); i += 2 {
					if n := strings.Count(s, pairs[i]); n != 1 {
						t.Fatalf("%s: expected %q once in the shown text, found it %d times:\n%s", c.where, pairs[i], n, s)
					}
				}
				return strings.NewReplacer(pairs...).Replace(s)
			}
			text := fill(c.text, "@db='wordpress'", "@db='"+cfg.DBName+"'",
				"@user='catalogd'", "@user='"+user+"'", "@password='change-me'", "@password='"+password+"'")

			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			runMySQLCommand(t, ctx, c, text, cfg)

			// The DSN printed beside it, with the same three names.
			m := regexp.MustCompile(`# DSN: (\S+)`).FindStringSubmatch(c.block)
			if m == nil {
				t.Fatalf("%s: no `# DSN:` line beside the command", c.where)
			}
			roDSN := fill(m[1], "catalogd:change-me@", user+":"+password+"@", "db-host:3306", cfg.Addr, "/wordpress", "/"+cfg.DBName)
			db, err := wpdb.Open(roDSN, wpdb.Options{Prefix: "wp_"})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Ready(ctx); err != nil {
				t.Fatalf("the printed DSN does not connect: %v", err)
			}
			if idx, err := catalog.New(db, catalog.Config{}).Index(ctx); err != nil || idx.ProductCount != 1 {
				t.Errorf("the new user cannot read the catalog: %+v, %v", idx, err)
			}
			if w, err := db.WritePrivileges(ctx); err != nil || len(w) != 0 {
				t.Errorf("the new user can write: %v (%v)", w, err)
			}
		})
	}
}

// rootShop loads a throwaway shop of one product for a command that logs
// in to the test server as root with the mysql client, or says what is
// lacking: its DSN, parsed too.
func rootShop(t *testing.T) (string, *mysql.Config) {
	t.Helper()
	s := wpfixture.New("wp_", "https://shop.example")
	s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5"})
	dsn, _ := testdb.Load(t, s)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("mysql"); err != nil {
		testdb.Lacking(t, "the mysql client is not installed (.ci/run installs MariaDB)")
	}
	if cfg.User != "root" {
		testdb.Lacking(t, "the command logs in as root; CATALOG_TEST_DSN names %s", cfg.User)
	}
	return dsn, cfg
}

// runMySQLCommand runs text, the shown command c with the reader's names
// made throwaway ones, from the repository's root, the mysql client
// pointed at the test server (cfg) and given its password where -p asks.
func runMySQLCommand(t *testing.T, ctx context.Context, c shown, text string, cfg *mysql.Config) {
	t.Helper()
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	cmd := shell(ctx, repoRoot(t), text, proctest.Environ("MYSQL_HOST="+host, "MYSQL_TCP_PORT="+port))
	cmd.Stdin = strings.NewReader(cfg.Passwd + "\n") // what -p asks for
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: `%s`: %v\n%s", c.where, c.text, err, out)
	}
}
