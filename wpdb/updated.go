package wpdb

import (
	"context"
	"database/sql"
	"fmt"
)

// What the posts table says of itself now, which the change feeds compare
// (wpdb/poll) and a whole load reads for a feed's baseline (baseline.go):
// its highest ID with the database's clock, and its UPDATE_TIME.

// MaxPostID reads the highest post ID of any type (the primary key's last
// entry: no row is read). 0 on an empty table. When utcNow is not nil the
// same statement reads the database's clock (UTC_TIMESTAMP()) into it: the
// scan needs both, and one statement costs one round trip.
func (tx *Tx) MaxPostID(ctx context.Context, utcNow *string) (int64, error) {
	var row struct {
		ID  int64  `db:"id"`
		Now string `db:"db_now"`
	}
	stmt := `SELECT COALESCE(MAX(ID), 0) AS id, '' AS db_now FROM {posts}`
	if utcNow != nil {
		stmt = `SELECT COALESCE(MAX(ID), 0) AS id, CAST(UTC_TIMESTAMP() AS CHAR) AS db_now FROM {posts}`
	}
	if err := tx.Get(ctx, &row, stmt); err != nil {
		return 0, fmt.Errorf("wpdb: read highest post ID: %w", err)
	}
	if utcNow != nil {
		*utcNow = row.Now
	}
	return row.ID, nil
}

// PostsUpdated reads the posts table's UPDATE_TIME (the last commit that
// changed it, to the second, in the server's time zone; "" while InnoDB
// has none since a restart) and the server's clock in that zone. ok is
// false when information_schema does not show the table to the user (it
// shows a user the tables it has any privilege on): the poller then scans
// on a period.
//
// MySQL 8 caches the statistics for information_schema_stats_expiry
// seconds (a day): the read asks for the session's value in the same
// statement and sets it to 0 when it is not, once per connection. MariaDB
// has no such variable: the first read's 1193 is an answer, remembered
// for the DB, and the statement goes without it from then on.
func (tx *Tx) PostsUpdated(ctx context.Context) (updated, now string, ok bool, err error) {
	type row struct {
		Updated sql.NullString `db:"updated"`
		Now     string         `db:"db_now"`
		Expiry  sql.NullInt64  `db:"expiry"`
	}
	read := func(withExpiry bool) ([]row, error) {
		var rows []row
		if !withExpiry {
			return rows, tx.Select(ctx, &rows, postsUpdatedSQL, tx.Table("posts"))
		}
		return rows, tx.runAnswering(ctx, postsUpdatedExpirySQL, []any{tx.Table("posts")}, IsUnknownVariable,
			func(ctx context.Context, q string, args []any) error {
				return tx.tx.SelectContext(ctx, &rows, q, args...)
			})
	}
	withExpiry := !tx.db.noStatsExpiry.Load()
	rows, err := read(withExpiry)
	switch {
	case withExpiry && IsUnknownVariable(err):
		tx.db.noStatsExpiry.Store(true) // MariaDB, or MySQL before 8
		rows, err = read(false)
	case err == nil && len(rows) > 0 && rows[0].Expiry.Valid && rows[0].Expiry.Int64 != 0:
		// A connection new to this: its UPDATE_TIME was the cached one.
		err = tx.run(ctx, `SET SESSION information_schema_stats_expiry = 0`, nil,
			func(ctx context.Context, q string, _ []any) error {
				_, err := tx.tx.ExecContext(ctx, q)
				return err
			})
		if err == nil {
			rows, err = read(true)
		}
	}
	if err != nil {
		return "", "", false, fmt.Errorf("wpdb: read the posts table's update time: %w", err)
	}
	if len(rows) == 0 {
		return "", "", false, nil
	}
	return rows[0].Updated.String, rows[0].Now, true, nil
}

const (
	postsUpdatedSQL = `SELECT CAST(UPDATE_TIME AS CHAR) AS updated, CAST(NOW() AS CHAR) AS db_now
		FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`
	postsUpdatedExpirySQL = `SELECT CAST(UPDATE_TIME AS CHAR) AS updated, CAST(NOW() AS CHAR) AS db_now,
		@@SESSION.information_schema_stats_expiry AS expiry
		FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`
)
