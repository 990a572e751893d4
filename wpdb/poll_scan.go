package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/jmoiron/sqlx"
)

// postsUpdated reads the posts table's UPDATE_TIME (the last commit that
// changed it, to the second, in the server's time zone; "" while the
// server has none: InnoDB keeps it in memory from its first change after
// a restart) and the server's clock in that zone. ok is false when the
// server shows no such row (a user information_schema does not show the
// table to): the poller then scans on a period. information_schema shows
// a user the tables it has any privilege on, so a SELECT-only user sees
// it (checked on MariaDB 10.11).
//
// MySQL 8 caches the statistics for information_schema_stats_expiry
// seconds (a day), so UPDATE_TIME needs the session's set to 0. The read
// asks for the session's value in the same statement, and sets it only
// when it is not 0 yet: once per connection, not once per read (a
// session variable outlives the transaction; the pool keeps the
// connection). MariaDB has no such variable: the first read's 1193
// ("unknown system variable") is an answer, remembered for the DB, and the
// statement is sent without it from then on. Every statement goes through
// run: counted, timed, under the statement deadline.
func (tx *Tx) postsUpdated(ctx context.Context) (updated, now string, ok bool, err error) {
	type row struct {
		Updated sql.NullString `db:"updated"`
		Now     string         `db:"db_now"`
		Expiry  sql.NullInt64  `db:"expiry"`
	}
	read := func(withExpiry bool) ([]row, error) {
		var rows []row
		if !withExpiry {
			return rows, tx.selectx(ctx, &rows, postsUpdatedSQL, tx.prefix+"posts")
		}
		return rows, tx.runAnswering(ctx, postsUpdatedExpirySQL, []any{tx.prefix + "posts"}, unknownVariable,
			func(ctx context.Context, q string, args []any) error {
				return tx.tx.SelectContext(ctx, &rows, q, args...)
			})
	}
	withExpiry := !tx.db.noStatsExpiry.Load()
	rows, err := read(withExpiry)
	switch {
	case withExpiry && unknownVariable(err):
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

// unknownVariable reports whether err is the server's "unknown system
// variable" (1193).
func unknownVariable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1193
}

// scanProducts reads every product and variation post's ID, parent, type,
// status and modified time, handing each row to fn: the poller's full scan,
// compared row by row with the last one.
//
// A save always moves post_modified_gmt. WooCommerce's
// WC_Product_Data_Store_CPT::update() (and the variation data store's,
// which follows it) writes the posts row through wp_update_post with
// post_modified_gmt = current_time('mysql', 1) when a post field changed,
// and otherwise, "to record this save event", updates post_modified and
// post_modified_gmt alone; a meta-only change such as a price edit is such
// a save. wc_update_product_stock() (an order reducing stock, a refund
// restoring it) writes the stock through the data store and then calls
// $product->save() on the product that holds the stock (unless $updating,
// when its caller saves it right after): the same update(). WordPress's
// own wp_update_post sets post_modified_gmt to now on every update; only
// wp_publish_post (a scheduled post going live) changes the status alone,
// which the comparison sees too, and the cheap round sooner.
//
// It reads the posts with lo < ID <= hi, by primary key range: the poller
// reads the table in slices, so that no statement outlasts the query
// deadline however large the shop.
func (tx *Tx) scanProducts(ctx context.Context, lo, hi int64, fn func(productRow)) error {
	err := tx.eachProductRow(ctx, `
		SELECT ID, post_parent, post_type, post_status, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt
		FROM {posts} WHERE ID > ? AND ID <= ? AND post_type IN ('product', 'product_variation')`, []any{lo, hi}, fn)
	if err != nil {
		return fmt.Errorf("wpdb: scan products: %w", err)
	}
	return nil
}

// eachProductRow streams the rows of a statement that selects a
// productRow's columns in its order into fn, one at a time (the scan's
// and a load's baseline read every product post: no slice of them all).
func (tx *Tx) eachProductRow(ctx context.Context, stmt string, args []any, fn func(productRow)) error {
	return tx.each(ctx, stmt, args, func(rows *sqlx.Rows) error {
		var r productRow
		if err := rows.Scan(&r.ID, &r.Parent, &r.Type, &r.Status, &r.Modified); err != nil {
			return err
		}
		fn(r)
		return nil
	})
}
