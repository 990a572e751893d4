package binlog_test

import (
	"database/sql"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
	"catalogd/wpdb/binlog"
	"catalogd/wpdb/internal/feedops"
)

// Binlog mode, on the private server with a binary log: every operation
// shows, polled for with a deadline of 5 s, ample on a busy machine (make
// bench measures the lag itself: about a second at most). The feed has each change read again a moment later
// (binlog.Options.Confirm), as MariaDB streams a transaction before its
// commit is visible to other sessions.
func TestFeedOpsBinlog(t *testing.T) {
	srv := testdb.BinlogServer(t)
	feedops.RunOn(t, func(t testing.TB, s *wpfixture.Shop) (string, *sql.DB) { return testdb.LoadOn(t, srv, s) },
		func(t *testing.T, db *wpdb.DB, dsn string) catalog.Feed {
			b, err := binlog.New(db, dsn, catalog.ShopReads, binlog.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, func(feedops.Op) time.Duration { return 5 * time.Second })
}
