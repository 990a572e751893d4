package wpdb

import (
	"context"
	"errors"
	"time"

	"github.com/go-sql-driver/mysql"
)

// What the change feeds (wpdb/binlog, wpdb/poll) read through: they run
// their own statements on the DB, in a View (Select, Get, Each) or, for
// the server's settings and status, on the pool itself (Pool), counted
// and redacted as the reads' are.

// Prefix is the table prefix.
func (db *DB) Prefix() string { return db.prefix }

// QueryTimeout is the deadline of one statement (Options.QueryTimeout).
func (db *DB) QueryTimeout() time.Duration { return db.timeout }

// CountStatement counts a statement sent on the pool (Pool) outside a
// View, as Queries reports them.
func (db *DB) CountStatement() { db.queries.Add(1) }

// ViewLong is View under the load deadline (Options.LoadTimeout) rather
// than the query deadline: one consistent read of a whole table in
// slices, each statement still under the query deadline (the poll feed's
// scan).
func (db *DB) ViewLong(ctx context.Context, fn func(ctx context.Context, tx *Tx) error) error {
	return db.view(ctx, db.load, fn)
}

// Table is the prefixed name of the table name, for a statement that
// names it as a value (information_schema's TABLE_NAME).
func (tx *Tx) Table(name string) string { return tx.prefix + name }

// IsUnknownVariable reports whether err is the server's "unknown system
// variable" (1193).
func IsUnknownVariable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1193
}
