package poll

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"

	"catalogd/wpdb"
)

// The poll feed's delta (docs/change-feed.md#polling-a-large-shop): where
// the shop's owner gave wp_posts an index that leads with
// post_modified_gmt (deploy/mysql/post-modified-index.sql), an edit is
// found by reading the posts saved lately through it, at a cost that
// follows the edits, not the shop. On stock indexes no read says which
// rows changed without touching every product row, so the full scan
// (scan.go) stays the detection there; catalogd never adds the index.
// The delta sees what moves post_modified_gmt, which every save does
// (scanProducts); a scheduled product gone live is the cheap round's, and
// a permanent delete, a raw SQL status or a clock lagging past deltaWindow
// the full scan's, which keeps running every fullPeriod.

// deltaWindow is how far back from the database clock of the last read
// that took the shop's rows (a delta, a scan, the load's baseline) a delta
// reads again every product saved, and reports those that differ from
// what the poller knows: post_modified_gmt is the web server's clock
// (maxClockSkew off at most, as settle.go takes it), and the save's
// transaction may commit up to maxOpenTxn later.
const deltaWindow = maxClockSkew + maxOpenTxn

// fullShare is the share of the scan's budget the full scan keeps where a
// delta finds the edits: it only catches what the delta cannot see, so
// the deltas, which show the edits, are never left waiting for it.
const fullShare = 0.5

// detect finds the products changed since the last read and returns them
// (sorted): by the delta when the index allows it and the full scan is
// not due, else by the full scan.
func (p *Poller) detect(ctx context.Context) ([]int64, error) {
	if p.index == "" || p.deltaFrom == "" || p.fullDue(p.o.Now()) {
		return p.scan(ctx)
	}
	return p.delta(ctx)
}

// detectDue says whether a detection runs now: the gate and the bucket say
// a delta (or, without the index, a scan) is due, or the full scan's
// period behind the delta is over.
func (p *Poller) detectDue() bool {
	return p.scanDue() || p.fullDue(p.o.Now())
}

// fullDue says whether the full scan behind the delta is due: once every
// fullPeriod. Without the index the scan is the detection, and scanDue
// says when.
func (p *Poller) fullDue(now time.Time) bool {
	return p.index != "" && now.Sub(p.lastFull) >= p.fullPeriod()
}

// fullPeriod is how often the full scan runs behind the delta: every
// MaxScan, or less often when its cost over its share of the budget is
// longer (a very large shop).
func (p *Poller) fullPeriod() time.Duration {
	share := p.scanBudget() * fullShare
	return max(p.o.MaxScan, time.Duration(float64(p.fullCost)/share))
}

// delta reads the product and variation posts saved within its window
// through the index, compares each with what the poller knows, and
// returns the products to read again. It keeps the bookkeeping the scan
// keeps: the gate's reading, the bucket, the pending saves (which
// recheck, not the delta, reports again: settle.go).
func (p *Poller) delta(ctx context.Context) ([]int64, error) {
	at := p.o.Now()
	since := addSeconds(p.deltaFrom, -int(deltaWindow/time.Second))
	var rows []productRow
	var dbNow, updated, localNow string
	var gate bool
	var read time.Time
	start := time.Now()
	err := p.db.View(ctx, func(ctx context.Context, tx *wpdb.Tx) error {
		var err error
		if updated, localNow, gate, err = tx.PostsUpdated(ctx); err != nil {
			return err
		}
		read = p.o.Now()
		if _, err = tx.MaxPostID(ctx, &dbNow); err != nil {
			return err
		}
		rows, err = productsSavedSince(ctx, tx, p.index, since)
		return err
	})
	cost := time.Since(start)
	if err != nil {
		if noSuchKey(err) {
			// The index is gone (dropped, renamed, made invisible): the
			// full scan is the detection until one finds it again. Any
			// other failure is tried again at the next tick.
			slog.InfoContext(ctx, "poll: the index on post_modified_gmt is gone; full scans find the edits until one finds an index again",
				"index", p.index)
			p.index = ""
		}
		p.failed(ctx, Stats{Scan: true, Delta: true, DBTime: cost}, err)
		return nil, err
	}
	p.charge(at, read, cost, updated, localNow, gate)
	p.deltaFrom = dbNow
	var ids, changed []int64
	for _, r := range rows {
		s := stateOf(r.Parent, r.Modified, r.Status, r.Type)
		if old, ok := p.rows[r.ID]; ok && old == s {
			continue
		}
		p.rows[r.ID] = s
		changed = append(changed, r.ID)
		ids = s.reported(ids, r.ID)
	}
	p.addPending(p.rows, changed, false, dbNow, p.o.Now())
	slices.Sort(ids)
	ids = slices.Compact(ids)
	reported := 0
	if len(ids) > 0 {
		reported = 1
	}
	p.o.OnPoll(Stats{Scan: true, Delta: true, DBTime: cost, Period: p.period, Changes: reported})
	return ids, nil
}

// noteIndex records the index a scan or the baseline found, and says so
// in the log when it changed.
func (p *Poller) noteIndex(ctx context.Context, index string) {
	if index == p.index {
		return
	}
	if index != "" {
		slog.InfoContext(ctx, "poll: edits are found through the posts table's index on post_modified_gmt", "index", index)
	} else if p.index != "" {
		slog.WarnContext(ctx, "poll: the posts table's index on post_modified_gmt is gone; every edit costs a full scan", "index", p.index)
	}
	p.index = index
}

// modifiedIndex names an index of the posts table whose first column is
// post_modified_gmt and that the server uses, "" when it has none: not one
// MariaDB was told to ignore (IGNORED, 10.6+) nor one MySQL 8 made
// invisible (IS_VISIBLE), which FORCE INDEX refuses. information_schema
// shows a user the indexes of the tables it may read, a SELECT-only
// user's included. Every column is asked for, as the two servers name
// those two differently.
func modifiedIndex(ctx context.Context, tx *wpdb.Tx) (string, error) {
	var names []string
	err := tx.Each(ctx, `
		SELECT * FROM information_schema.STATISTICS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND SEQ_IN_INDEX = 1 AND COLUMN_NAME = 'post_modified_gmt'
		ORDER BY INDEX_NAME`, []any{tx.Table("posts")}, func(rows *sqlx.Rows) error {
		row := map[string]any{}
		if err := rows.MapScan(row); err != nil {
			return err
		}
		text := func(col string) string {
			switch v := row[col].(type) {
			case []byte:
				return string(v)
			case string:
				return v
			}
			return ""
		}
		if !strings.EqualFold(text("IGNORED"), "YES") && !strings.EqualFold(text("IS_VISIBLE"), "NO") {
			names = append(names, text("INDEX_NAME"))
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("wpdb: read the posts table's indexes: %w", err)
	}
	if len(names) == 0 {
		return "", nil
	}
	return names[0], nil
}

// productsSavedSince reads the product and variation posts whose
// post_modified_gmt is since or later, through the index named: a range
// of it, and a primary key lookup for each post in it (orders and pages
// saved lately among them, which the type leaves out). The index is
// forced: the optimizer, on statistics that lag, could take a full scan.
func productsSavedSince(ctx context.Context, tx *wpdb.Tx, index, since string) ([]productRow, error) {
	var rows []productRow
	if err := tx.Select(ctx, &rows, `
		SELECT ID, post_parent, post_type, post_status, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt
		FROM {posts} FORCE INDEX (`+quoteName(index)+`)
		WHERE post_modified_gmt >= ? AND post_type IN ('product', 'product_variation')`, since); err != nil {
		return nil, fmt.Errorf("wpdb: read the products saved lately: %w", err)
	}
	return rows, nil
}

// noSuchKey reports whether err is the server's answer to FORCE INDEX of
// an index the table does not have (1176).
func noSuchKey(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1176
}

// quoteName quotes an identifier for MySQL.
func quoteName(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}
