package poll

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"catalogd/internal/nametable"
	"catalogd/wpdb"
)

// The poll feed's full scan: every product and variation post's status and
// post_modified_gmt, read in slices of the primary key and compared row by
// row with the last scan's. It sees what the cheap round (round.go)
// cannot: an edit of an existing product, a trash, a permanent delete.
// When it runs: gate.go; its first baseline: baseline.go.

// scanSlice is how many post IDs one statement of the scan covers: a large
// shop's scan is several statements, none near the query deadline.
const scanSlice = 100_000

// scanState is what the scan remembers of a post. It holds no pointer:
// the scan keeps one for every product and variation, and a map of
// pointer-free entries is one the collector does not scan at its every
// cycle, each of which slows the requests it overlaps.
type scanState struct {
	parent    int64
	modified  int64      // post_modified_gmt's digits, YYYYMMDDhhmmss
	status    statusCode // compared only: a change of status is a change
	variation bool
}

// stateOf is a post's scanState from its columns as stored.
func stateOf(parent int64, modified, status, typ string) scanState {
	code, _ := statuses.Code(status) // the limit is never reached (statuses)
	return scanState{parent: parent, modified: packTime(modified), status: code,
		variation: typ == "product_variation"}
}

// statusCode stands for a post_status value: equal codes, equal statuses.
type statusCode uint32

// statuses numbers the post_status values seen, for the life of the
// process: a shop has a handful (WordPress's eight and a plugin's few),
// so the table stays small, and a code never changes meaning. Its limit
// is never reached: a status column is 20 characters.
var statuses = nametable.New[statusCode](1 << 30)

// reported appends to ids what a change of post id shows on: the post,
// and a variation's product.
func (s scanState) reported(ids []int64, id int64) []int64 {
	ids = append(ids, id)
	if s.variation && s.parent > 0 {
		ids = append(ids, s.parent)
	}
	return ids
}

// scan reads every product and variation post, compares each with the last
// scan, and returns the products to read again (sorted). On the first scan
// it only records them. It sets the next scan's time from its cost.
func (p *Poller) scan(ctx context.Context) ([]int64, error) {
	at := p.o.Now()
	rows := make(map[int64]scanState, len(p.rows)+len(p.rows)/16)
	var dbNow, updated, localNow, index string
	var gate bool
	var read time.Time // on Now's clock, once the gate's value was read (noteStamp)
	start := time.Now()
	// The whole scan is one consistent read, under the load deadline; each
	// of its statements reads a slice of the primary key.
	err := p.db.ViewLong(ctx, func(ctx context.Context, tx *wpdb.Tx) error {
		// The gate's value first: a change committed after it moves it
		// (or falls in the second it was read in: scanUnsure).
		var err error
		if updated, localNow, gate, err = tx.PostsUpdated(ctx); err != nil {
			return err
		}
		read = p.o.Now()
		maxID, err := tx.MaxPostID(ctx, &dbNow)
		if err != nil {
			return err
		}
		if index, err = modifiedIndex(ctx, tx); err != nil {
			return err
		}
		clear(rows)
		for lo := int64(0); lo < maxID; lo += scanSlice {
			err := scanProducts(ctx, tx, lo, lo+scanSlice, func(r productRow) {
				rows[r.ID] = stateOf(r.Parent, r.Modified, r.Status, r.Type)
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	cost := time.Since(start)
	if err != nil {
		if p.index != "" {
			p.lastFull = at // behind the delta: tried again a period on, the deltas go on
		}
		p.failed(ctx, Stats{Scan: true, DBTime: cost}, err)
		return nil, err
	}
	if index != "" {
		// Behind the delta the full scan runs on its own period, from its
		// own share of the budget: the bucket stays the delta's. A delta
		// starting now costs what it will; the bucket owes nothing for the
		// scans before it.
		if p.index == "" {
			p.scanCost, p.tokens = 0, max(p.tokens, 0)
		}
		p.noteGate(read, updated, localNow, gate)
		p.lastScan = at
	}
	p.lastFull, p.fullCost, p.deltaFrom = at, cost, dbNow
	p.noteIndex(ctx, index)
	if index == "" {
		p.charge(at, read, cost, updated, localNow, gate)
	}
	period := p.period
	if p.index != "" {
		period = p.fullPeriod()
	}
	var ids, changed []int64
	if p.rows != nil {
		for id, s := range rows {
			if old, ok := p.rows[id]; !ok || old != s {
				changed = append(changed, id)
				ids = s.reported(ids, id)
			}
		}
		for id, old := range p.rows {
			if _, ok := rows[id]; !ok {
				ids = old.reported(ids, id)
			}
		}
		// A save may leave a row as the last scans read it (see
		// settle.go): those saved lately are read again.
		ids = p.pendingAgain(ids, rows, at)
		p.addPending(rows, changed, false, dbNow, p.o.Now())
	}
	p.rows = rows
	slices.Sort(ids)
	ids = slices.Compact(ids)
	reported := 0
	if len(ids) > 0 {
		reported = 1 // one change naming them all
	}
	p.o.OnPoll(Stats{Scan: true, DBTime: cost, Period: period, Changes: reported})
	return ids, nil
}

// noteGate records the gate's reading a scan or a delta took (read: when,
// on Now's clock), for scanDue and settleDue.
func (p *Poller) noteGate(read time.Time, updated, localNow string, gate bool) {
	p.noteStamp(updated, localNow, read)
	p.gateWorks, p.scanUpdated, p.roundUpdated = gate, updated, updated
	p.scanUnsure = unsureUpdate(updated, localNow)
}

// charge records a detection that began at at and cost cost: the gate's
// reading, the period, and the bucket it is paid from.
func (p *Poller) charge(at, read time.Time, cost time.Duration, updated, localNow string, gate bool) {
	p.period = scanPeriod(cost, p.detectBudget(), p.o.Interval, p.o.MaxScan)
	p.nextScan = at.Add(p.period)
	p.noteGate(read, updated, localNow, gate)
	p.accrue(at)
	if !p.measured {
		p.tokens = p.bucketCap(cost) // a quiet start has its scan banked
		p.measured = true
	}
	p.tokens = max(p.tokens-cost.Seconds(), -p.bucketCap(cost))
	p.scanCost, p.lastScan = cost, at
}

// scanProducts reads every product and variation post's ID, parent, type,
// status and modified time with lo < ID <= hi, by primary key range (the
// scan reads the table in slices: scanSlice), handing each row to fn.
//
// A save always moves post_modified_gmt: WooCommerce's data store
// (WC_Product_Data_Store_CPT::update(), the variation's too) writes it
// through wp_update_post when a post field changed and alone otherwise
// ("to record this save event": a price edit), and
// wc_update_product_stock() (an order, a refund) ends in that same save.
// Only wp_publish_post (a scheduled post going live) changes the status
// alone, which the comparison sees too, and the cheap round sooner.
func scanProducts(ctx context.Context, tx *wpdb.Tx, lo, hi int64, fn func(productRow)) error {
	err := eachProductRow(ctx, tx, `
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
func eachProductRow(ctx context.Context, tx *wpdb.Tx, stmt string, args []any, fn func(productRow)) error {
	return tx.Each(ctx, stmt, args, func(rows *sqlx.Rows) error {
		var r productRow
		if err := rows.Scan(&r.ID, &r.Parent, &r.Type, &r.Status, &r.Modified); err != nil {
			return err
		}
		fn(r)
		return nil
	})
}
