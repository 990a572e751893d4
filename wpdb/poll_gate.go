package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/catalog"
)

// The poll feed's gate: wp_posts' UPDATE_TIME, read at every cheap round
// and at the gate's ticks between them, says whether the products changed
// since the last scan, so that the scan runs when they did (scanDue) and
// not on a period. What it cannot see, and how the poller waits for it:
// poll_settle.go; what the scan may spend: poll_budget.go.

// gateOnce reads the gate alone, between cheap rounds, and runs the scan
// when it opened and the bucket pays for it: an edit of an existing
// product is scanned within a fraction of an interval on a quiet shop.
func (p *Poller) gateOnce(ctx context.Context) []catalog.Change {
	if !p.started || !p.gateWorks {
		return nil
	}
	var updated string
	var ok bool
	start := time.Now()
	err := p.db.View(ctx, func(ctx context.Context, tx *Tx) error {
		var err error
		updated, _, ok, err = tx.postsUpdated(ctx)
		return err
	})
	cost := time.Since(start)
	if err != nil {
		p.failed(ctx, PollStats{Gate: true, DBTime: cost}, err)
		return nil
	}
	// The gate's reads count with the cheap rounds (roundCost), whose
	// share the scan's budget leaves them: never more than half of it,
	// so that a database slow to answer them (6 ms each was seen, the
	// whole budget at four a round) cannot starve the scan. Paid from
	// the scan's bucket, they did: no scan ran for minutes.
	p.gateSpent += cost
	p.o.OnPoll(PollStats{Gate: true, DBTime: cost, Period: p.period})
	if !ok {
		return nil
	}
	p.roundUpdated = updated
	var changes []catalog.Change
	if p.scanBaselined(ctx) && p.detectDue() {
		if ids, err := p.detect(ctx); err == nil && len(ids) > 0 {
			changes = append(changes, catalog.Change{Products: ids, Kind: catalog.KindProduct})
		}
	}
	return append(changes, p.recheck(p.o.Now())...)
}

// scanDue says whether the product scan runs now. Where the server keeps
// wp_posts' UPDATE_TIME (InnoDB does, for a SELECT-only user too; it is
// read at every round for microseconds), the scan runs only when the
// table changed since the last one (the gate), at once if the bucket holds
// its cost: the budget a quiet shop leaves unspent is banked (up to
// bucketCap) and spent when an edit comes, so an edit shows within a
// round at any size, and the average stays within the budget. Every
// MaxScan it runs anyway. Without the gate, it runs on its period, its
// cost over the budget.
func (p *Poller) scanDue() bool {
	now := p.o.Now()
	if !p.gateWorks {
		return !now.Before(p.nextScan)
	}
	if now.Sub(p.lastScan) >= p.o.MaxScan {
		return true
	}
	p.accrue(now)
	if p.roundUpdated != p.scanUpdated || p.scanUnsure {
		return p.tokens >= p.scanCost.Seconds()
	}
	// Nothing written to wp_posts since the last scan, but what a
	// transaction open since then may commit with its UPDATE_TIME
	// (settleDue): scanned while the bucket keeps a scan for an edit.
	return p.settleDue(now) && p.tokens >= 2*p.scanCost.Seconds()
}

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
