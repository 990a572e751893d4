package deploy

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
)

// postModifiedIndexCmd is the command docs/operations.md prints to add
// the index for polling a large shop.
const postModifiedIndexCmd = "mysql -u root -p -e \"SET @db='wordpress', @prefix='wp_';\nSOURCE deploy/mysql/post-modified-index.sql\""

// runPostModifiedIndex runs the command as printed, on a throwaway shop
// (the database's name the only change), twice: the posts table has the
// index after it, once.
func runPostModifiedIndex(t *testing.T, cmds []shown) {
	for _, c := range cmds {
		t.Run(c.where, func(t *testing.T) {
			s := wpfixture.New("wp_", "https://shop.example")
			s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5"})
			dsn, admin := testdb.Load(t, s)
			cfg, err := mysql.ParseDSN(dsn)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.User != "root" {
				testdb.Lacking(t, "the command logs in as root; CATALOG_TEST_DSN names %s", cfg.User)
			}
			if n := strings.Count(c.text, "@db='wordpress'"); n != 1 {
				t.Fatalf("%s: expected @db='wordpress' once in the shown text, found it %d times", c.where, n)
			}
			text := strings.Replace(c.text, "@db='wordpress'", "@db='"+cfg.DBName+"'", 1)
			host, port, err := net.SplitHostPort(cfg.Addr)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			for range 2 {
				cmd := shell(ctx, repoRoot(t), text, proctest.Environ("MYSQL_HOST="+host, "MYSQL_TCP_PORT="+port))
				cmd.Stdin = strings.NewReader(cfg.Passwd + "\n") // what -p asks for
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: `%s`: %v\n%s", c.where, c.text, err, out)
				}
			}
			var cols []string
			rows, err := admin.QueryContext(ctx, `SELECT COLUMN_NAME FROM information_schema.STATISTICS
				WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'wp_posts' AND INDEX_NAME = 'catalogd_post_modified_gmt'`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var col string
				if err := rows.Scan(&col); err != nil {
					t.Fatal(err)
				}
				cols = append(cols, col)
			}
			if strings.Join(cols, ",") != "post_modified_gmt" {
				t.Errorf("after the command, twice: index columns %v, want post_modified_gmt once", cols)
			}
		})
	}
}
