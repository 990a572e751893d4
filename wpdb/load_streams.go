package wpdb

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/jmoiron/sqlx"
	"golang.org/x/sync/errgroup"

	"catalogd/catalog"
)

// A whole load read in parallel streams, at one instant; the long story is
// docs/performance.md#parallel-streams-at-one-instant.
//
// One connection runs the load's scans one after the other on one of the
// server's cores; streams run them at once, each task (a meta_id range of
// the post meta, the products, their variations, their terms, the
// settings) taken by the next free stream. Separate transactions are
// separate snapshots, so every stream's transaction is opened first, back
// to back, WITH CONSISTENT SNAPSHOT. Where MariaDB tells each its binary
// log position, unequal ones mean a commit fell between the openings: they
// open again (snapshotTries), then read in one transaction. Where none is
// told, such a commit came after the feed's Start and is reported again.

// defaultLoadStreams is the number of streams when Options.LoadStreams is
// 0: the quickest start-up make bench found on two cores
// (docs/performance.md#the-hit-path-and-first-requests).
const defaultLoadStreams = 4

// streamsReserve is the connections of the pool a load leaves to others:
// one for the change feed's reads, one for a patch read.
const streamsReserve = 2

// snapshotTries is how often the streams are opened before the load gives
// up on them and reads in one transaction.
const snapshotTries = 3

// errMoved means that a commit fell between the openings of the streams'
// transactions; errNoInstant, that one did at every try;
// errNoSnapshots, that the server does not know the statement
// that opens them (an embedded or MySQL-compatible server that is
// neither MySQL nor MariaDB, such as the demo's in-memory one).
var (
	errMoved       = errors.New("wpdb: a commit fell between the load's transactions")
	errNoInstant   = errors.New("wpdb: no instant found for the load's transactions")
	errNoSnapshots = errors.New("wpdb: the server cannot open a transaction WITH CONSISTENT SNAPSHOT")
)

// loadStreamed reads the whole shop on n streams, trying again while
// commits fall between their openings; errNoInstant when they did at
// every try.
func (db *DB) loadStreamed(ctx context.Context, r catalog.Reads, n int) (*catalog.ShopRows, error) {
	for range snapshotTries {
		// A feed's baseline, when one asks: asked before each try's
		// openings (baseline.go).
		br, err := db.beginBaseline(ctx)
		if err != nil {
			return nil, err
		}
		txs, pos, release, err := db.openSnapshots(ctx, n)
		if err != nil {
			return nil, err
		}
		if err := oneInstant(pos); err != nil {
			release()
			slog.DebugContext(ctx, "wpdb: opening the load's streams again", "err", err)
			continue
		}
		rows, err := db.loadStreams(ctx, r, txs, br)
		release()
		if err != nil {
			return nil, err
		}
		br.deliver()
		return rows, nil
	}
	return nil, errNoInstant
}

// oneInstant returns errMoved unless the snapshots' binary log positions
// are all the same ("" where the server tells none: nothing to compare).
func oneInstant(pos []string) error {
	for _, p := range pos[1:] {
		if p != pos[0] {
			return fmt.Errorf("%w (binary log at %s, then %s)", errMoved, pos[0], p)
		}
	}
	return nil
}

// openSnapshots takes n connections from the pool and opens a read-only
// transaction with a consistent snapshot on each, back to back, and reads
// the binary log position of each snapshot ("" where the server tells
// none). release rolls them back and gives the connections back,
// discarding one whose rollback failed (it would go back to the pool
// inside its transaction); it is nil when err is not.
func (db *DB) openSnapshots(ctx context.Context, n int) (txs []*Tx, pos []string, release func(), err error) {
	conns := make([]*sqlx.Conn, 0, n)
	rollback := func() {
		for _, c := range conns {
			// Rolled back even when ctx has ended (a failed stream
			// cancels it): the connection is then broken and discarded.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), db.timeout)
			if _, err := c.ExecContext(rctx, `ROLLBACK`); err != nil {
				_ = c.Raw(func(any) error { return driver.ErrBadConn })
			}
			cancel()
			c.Close()
		}
	}
	defer func() {
		if err != nil {
			rollback()
		}
	}()
	// Every connection first, so that the openings follow each other
	// with no wait for the pool between them.
	for range n {
		c, err := db.db.Connx(ctx)
		if err != nil {
			return nil, nil, nil, db.Redact(fmt.Errorf("wpdb: a connection for the load: %w", err))
		}
		conns = append(conns, c)
	}
	txs = make([]*Tx, n)
	for i, c := range conns {
		txs[i] = &Tx{tx: c, db: db, prefix: db.prefix, stmt: db.load}
	}
	// The isolation level of the next transaction: a snapshot is kept
	// for the transaction's life only at REPEATABLE READ, whatever the
	// server's default.
	for _, tx := range txs {
		if err := tx.exec(ctx, `SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`); err != nil {
			return nil, nil, nil, err
		}
	}
	for i, tx := range txs {
		if i > 0 && db.betweenOpenings != nil {
			db.betweenOpenings(i)
		}
		if err := tx.exec(ctx, `START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY`); err != nil {
			if IsSyntaxError(err) {
				return nil, nil, nil, fmt.Errorf("%w: %w", errNoSnapshots, err)
			}
			return nil, nil, nil, err
		}
	}
	pos = make([]string, n)
	for i, tx := range txs {
		if pos[i], err = tx.snapshotPosition(ctx); err != nil {
			return nil, nil, nil, err
		}
	}
	return txs, pos, rollback, nil
}

// exec runs a statement that returns no rows, through run (counted,
// observed, under the statement deadline) as every read is.
func (tx *Tx) exec(ctx context.Context, stmt string) error {
	err := tx.run(ctx, stmt, nil, func(ctx context.Context, q string, _ []any) error {
		_, err := tx.tx.ExecContext(ctx, q)
		return err
	})
	if err != nil {
		return tx.db.Redact(fmt.Errorf("wpdb: %s: %w", stmt, err))
	}
	return nil
}

// snapshotPosition is the binary log position of the snapshot of the
// transaction ("file:position"), or "" where the server tells none: MySQL
// has no such status, and MariaDB without a binary log shows an empty
// file.
func (tx *Tx) snapshotPosition(ctx context.Context) (string, error) {
	var rows []struct {
		Name  string `db:"Variable_name"`
		Value string `db:"Value"`
	}
	if err := tx.Select(ctx, &rows, `SHOW SESSION STATUS LIKE 'binlog_snapshot_%'`); err != nil {
		return "", tx.db.Redact(fmt.Errorf("wpdb: read the snapshot's binary log position: %w", err))
	}
	var file, pos string
	for _, r := range rows {
		switch r.Name {
		case "Binlog_snapshot_file":
			file = r.Value
		case "Binlog_snapshot_position":
			pos = r.Value
		}
	}
	if file == "" {
		return "", nil
	}
	return file + ":" + pos, nil
}

// loadStreams reads the whole shop on the transactions, which see the
// same instant: the tasks (the post meta's ranges first, the longest, then
// the products, their variations and terms, and the settings) are taken by
// the next free stream; the first to fail cancels the others. What
// depends on the products and their meta (children, translation groups)
// is read last, on the first transaction. With br, a feed's baseline is
// read too, on the first transaction (see below).
func (db *DB) loadStreams(ctx context.Context, r catalog.Reads, txs []*Tx, br *baselineRead) (*catalog.ShopRows, error) {
	shop := &catalog.ShopRows{}
	rows := newPublishedRows()
	if err := br.clock(ctx, txs[0]); err != nil {
		return nil, err
	}
	var lo, hi int64
	if err := txs[0].metaBounds(ctx, &lo, &hi); err != nil {
		return nil, err
	}
	ranges := metaRanges(lo, hi, len(txs)*metaRangesPerStream)
	parts := make([]metaList, len(ranges))
	all := func(int64, string) bool { return true }
	var tasks []func(ctx context.Context, tx *Tx) error
	for i, span := range ranges {
		tasks = append(tasks, func(ctx context.Context, tx *Tx) error {
			var err error
			parts[i], err = tx.metaPosts(ctx, r.MetaKeys, span, all)
			return err
		})
	}
	// The products and their variations in one pass over the posts
	// table, with the rest of a requested baseline (load_posts.go).
	posts := func(ctx context.Context, tx *Tx) error { return tx.productPosts(ctx, rows, br) }
	terms := func(ctx context.Context, tx *Tx) (err error) {
		rows.Terms, err = tx.PublishedRelationships(ctx)
		return err
	}
	settings := func(ctx context.Context, tx *Tx) error { return tx.loadSettings(ctx, r, shop) }
	// A feed's baseline is read in the first stream's snapshot, the
	// earliest: where the server tells no binary log position a commit
	// may fall between two openings, and a baseline read in a later
	// snapshot would hold it, so that the scan never reported it while a
	// stream opened before it read the product's meta without it. Read
	// in the first, the scan reports it and it is read again.
	// So the first stream reads the posts (and the rest of the baseline
	// with them) before it takes from the queue; without a baseline they
	// are queued with the rest.
	if br == nil {
		tasks = append(tasks, posts)
	}
	tasks = append(tasks, terms, settings)
	g, gctx := errgroup.WithContext(ctx)
	var next atomic.Int64
	for n, tx := range txs {
		g.Go(func() error {
			if n == 0 && br != nil {
				if err := posts(gctx, tx); err != nil {
					return err
				}
			}
			for {
				i := int(next.Add(1)) - 1
				if i >= len(tasks) {
					return nil
				}
				if err := tasks[i](gctx, tx); err != nil {
					return err
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// Before finishPublished, which adds grouped children to Related.
	br.finish(rows)
	// The ranges are in meta_id order, and so is each range's every
	// post: a post's rows in a later range come after its rows in an
	// earlier one, as one pass would read them. The map is made at once
	// for every post read (not grown through a copy of every smaller
	// table), and a post's rows are moved, not copied, unless they came
	// apart. The rows that metaWanted refuses (of posts neither products
	// nor variations, all but their images' files) are dropped on the way.
	known := knownPosts(rows)
	want := metaWanted(known)
	n := 0
	for _, part := range parts {
		n += part.len()
	}
	meta := make(catalog.Meta, n)
	for i, part := range parts {
		for p := range part.all() {
			rs := p.rows
			if !known[p.id] {
				if rs = kept(p.id, rs, want); len(rs) == 0 {
					continue
				}
			}
			putMeta(meta, p.id, rs)
		}
		parts[i] = nil // its rows can go while the next is merged
	}
	if err := txs[0].finishPublished(ctx, r, shop.Tables, rows, known, meta); err != nil {
		return nil, err
	}
	shop.Products = *rows
	return shop, nil
}

// metaRangesPerStream is how many meta_id ranges each stream reads, so
// that a stream whose ranges went faster takes more of them.
const metaRangesPerStream = 2

// metaBounds reads the lowest and highest meta_id, two lookups at the
// ends of the primary key.
func (tx *Tx) metaBounds(ctx context.Context, lo, hi *int64) error {
	var b struct {
		Lo int64 `db:"lo"`
		Hi int64 `db:"hi"`
	}
	if err := tx.Get(ctx, &b, `SELECT COALESCE(MIN(meta_id), 0) AS lo, COALESCE(MAX(meta_id), 0) AS hi FROM {postmeta}`); err != nil {
		return fmt.Errorf("wpdb: read post meta bounds: %w", err)
	}
	*lo, *hi = b.Lo, b.Hi
	return nil
}

// metaRanges splits the meta_id span [lo, hi] into n ranges of about
// equal width, the first and last open-ended (one open range when the
// span is too narrow to split).
func metaRanges(lo, hi int64, n int) []metaRange {
	if n < 2 || hi-lo < int64(n) {
		return []metaRange{{}}
	}
	out := make([]metaRange, n)
	width := (hi - lo + 1) / int64(n)
	for i := 1; i < n; i++ {
		out[i].from = lo + int64(i)*width
		out[i-1].to = out[i].from
	}
	return out
}

// kept is the rows of post id that want accepts, filtered in place.
func kept(id int64, rows []catalog.MetaRow, want func(int64, string) bool) []catalog.MetaRow {
	out := rows[:0]
	for _, r := range rows {
		if want(id, r.Key) {
			out = append(out, r)
		}
	}
	return out
}
