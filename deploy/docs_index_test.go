package deploy

import (
	"context"
	"strings"
	"testing"
	"time"

	"catalogd/internal/testdb"
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
			dsn, cfg := rootShop(t)
			admin := testdb.Open(t, dsn)
			if n := strings.Count(c.text, "@db='wordpress'"); n != 1 {
				t.Fatalf("%s: expected @db='wordpress' once in the shown text, found it %d times", c.where, n)
			}
			text := strings.Replace(c.text, "@db='wordpress'", "@db='"+cfg.DBName+"'", 1)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			for range 2 {
				runMySQLCommand(t, ctx, c, text, cfg)
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
