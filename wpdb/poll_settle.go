package wpdb

import (
	"maps"
	"slices"
	"time"

	"catalogd/catalog"
)

// What one scan cannot see, and how the poller waits for it. Two things
// count seconds and hide a commit that lands in a second already read:
//
//   - wp_posts' UPDATE_TIME. MariaDB stamps it, at commit, with the start
//     of the transaction that commits (trx_t::commit_tables: start_time),
//     not with the commit's time, and sets it rather than keeping the
//     latest. A transaction begun in the second the last scan read as
//     UPDATE_TIME (another that began in that second committed before the
//     scan) leaves it as it was when it commits, however much later: the
//     gate would take the table for unchanged. (MySQL stamps the commit's
//     own time; the wait below costs it a few scans that find nothing.)
//   - post_modified_gmt, which PHP's clock writes (current_time('mysql',
//     1)) and which may stand minutes off the database's. A second save
//     of a product in the same second of its writer's clock, with the same
//     status, writes the posts row as it was: neither the row nor
//     UPDATE_TIME moves, and the change is in its meta alone.
//
// So after a scan the poller keeps waiting, within bounds:
//
//   - The scan that read an UPDATE_TIME less than maxOpenTxn old is
//     followed by more (settleDue), each when the time since that second
//     has doubled since the last (2, 4, 8, 16, 32 and 64 s after it on a
//     period of one interval; a longer period spaces them further), no
//     sooner than the scan period and only while the bucket still holds a
//     scan for the next edit: a transaction begun in that second and open
//     for d shows within about d more. One open longer than maxOpenTxn
//     shows at the next scan another commit or MaxScan brings.
//   - The products a scan saw saved (their post_modified_gmt within
//     maxClockSkew of the database's clock: a save made now, by a clock
//     within that skew) stay pending for maxOpenTxn: every scan in that
//     time reports them again, and settleStep after the scan that saw
//     them the poller reports them once more without a scan (recheck).
//     On one web server's clock, a save in the same second as the first
//     comes less than a second after it, so before the recheck; a later
//     one (a save in a transaction that commits later, a web server whose
//     clock lags further) at the next scan within maxOpenTxn. At most
//     pendingMax are kept (an import: the oldest go first).
//   - A scan that read the gate within the second it was read in, or the
//     one before, keeps it open for one more scan at once (scanUnsure).

const (
	// maxOpenTxn is how long the poller waits for a transaction begun in
	// the second of the last scan's UPDATE_TIME, and keeps a saved
	// product pending. A minute: longer than PHP's default
	// max_execution_time (30 s), within which a web request's
	// transaction ends, and than InnoDB's default lock wait (50 s), the
	// longest one statement of a save waits for another's; a WooCommerce
	// save itself takes well under a second.
	maxOpenTxn = time.Minute
	// settleStep is the first wait after a reading of the database's
	// clock or of UPDATE_TIME, both counted in seconds: the second it
	// was taken in, and the next, are over.
	settleStep = 2 * time.Second
	// maxClockSkew bounds how far the web server's clock, which writes
	// post_modified_gmt, is taken to stand from the database's.
	maxClockSkew = 10 * time.Minute
	// pendingMax bounds the products kept pending.
	pendingMax = 1000
)

// pendingRow is a product or variation post a scan saw saved.
type pendingRow struct {
	seen      time.Time // on the poller's clock, once that scan's read was over
	rechecked bool      // reported again settleStep after seen
	// next is when a delta reports it again at the soonest: deltas run
	// at every move of the gate, up to four times an interval, where a
	// scan ran about once a period; each reports a pending post again
	// when the time since seen has doubled since its last report.
	next time.Time
}

// noteStamp records, for settleDue, when on the poller's clock the second
// of the UPDATE_TIME a scan (or a load) read began: at, less how old the
// database's clock (localNow, in UPDATE_TIME's zone) said it was. A stamp
// read again keeps the time of its first reading. at is a time after the
// read (a scan's once its gate read returned, a load's when its baseline is
// adopted), never the scan's start: a read that waited (for a connection,
// a lock, a busy server) would place the second that much too early, and
// end the wait that much too soon. So placed, the second is late by up to
// the read's duration and one second (localNow counts whole seconds): the
// wait errs long.
func (p *Poller) noteStamp(updated, localNow string, at time.Time) {
	if updated != "" && updated == p.scanUpdated && !p.stampAt.IsZero() {
		return
	}
	stamp, now := unpackTime(packTime(updated)), unpackTime(packTime(localNow))
	if stamp.IsZero() || now.IsZero() {
		p.stampAt = time.Time{}
		return
	}
	p.stampAt = at.Add(-max(0, now.Sub(stamp)))
}

// settleDue says whether a scan is due at now for a transaction that may
// still commit with the last scan's UPDATE_TIME: the last scan read it
// less than maxOpenTxn after its second began, the time since then has
// doubled since that scan (at least settleStep), and the scan period has
// passed since it.
func (p *Poller) settleDue(now time.Time) bool {
	if p.stampAt.IsZero() {
		return false
	}
	open := p.lastScan.Sub(p.stampAt)
	if open >= maxOpenTxn || now.Before(p.lastScan.Add(p.period)) {
		return false
	}
	return now.Sub(p.stampAt) >= max(settleStep, 2*open)
}

// addPending makes pending the posts of rows (read when the database's
// UTC clock said dbNow) whose post_modified_gmt lies within maxClockSkew
// of that clock, as seen at seen: the changed ones, or every one (a load's
// baseline, where nothing tells a save of the last second from an older one).
func (p *Poller) addPending(rows map[int64]scanState, changed []int64, every bool, dbNow string, seen time.Time) {
	now := unpackTime(packTime(dbNow))
	if now.IsZero() {
		return
	}
	if p.pending == nil {
		p.pending = map[int64]pendingRow{}
	}
	lately := func(s scanState) bool {
		t := unpackTime(s.modified)
		return !t.IsZero() && t.Sub(now).Abs() <= maxClockSkew
	}
	if every {
		for id, s := range rows {
			if lately(s) {
				p.pending[id] = pendingRow{seen: seen, next: seen.Add(settleStep)}
			}
		}
	}
	for _, id := range changed {
		if s, ok := rows[id]; ok && lately(s) {
			p.pending[id] = pendingRow{seen: seen, next: seen.Add(settleStep)}
		}
	}
	if over := len(p.pending) - pendingMax; over > 0 {
		ids := slices.SortedFunc(maps.Keys(p.pending), func(a, b int64) int {
			return p.pending[a].seen.Compare(p.pending[b].seen)
		})
		for _, id := range ids[:over] {
			delete(p.pending, id)
		}
	}
}

// pendingAgain appends to ids the pending posts still in rows, read by a
// scan (or, with delta, a delta) that began at at (a post gone was
// reported as such), and drops those pending for maxOpenTxn, after this
// last report. A delta reports a post only once the time since it was seen
// doubled since its last report (pendingRow.next): 2, 4, 8, 16 and 32 s
// after, so that a shop whose gate moves every second re-reads each saved
// product five or six times, not sixty.
func (p *Poller) pendingAgain(ids []int64, rows map[int64]scanState, at time.Time, delta bool) []int64 {
	for id, r := range p.pending {
		s, ok := rows[id]
		again := ok && (!delta || !at.Before(r.next))
		if again {
			ids = s.reported(ids, id)
			r.next = r.seen.Add(max(settleStep, 2*at.Sub(r.seen)))
		}
		switch {
		case !ok || at.Sub(r.seen) >= maxOpenTxn:
			delete(p.pending, id)
			continue
		case again && !at.Before(r.seen.Add(settleStep)):
			r.rechecked = true
		}
		p.pending[id] = r
	}
	return ids
}

// recheck reports, at now, the pending posts no scan reported again since
// settleStep after it saw them: once, without a scan (the catalog reads
// them again). It drops those pending for maxOpenTxn.
func (p *Poller) recheck(now time.Time) []catalog.Change {
	var ids []int64
	for id, r := range p.pending {
		if now.Sub(r.seen) >= maxOpenTxn && r.rechecked {
			delete(p.pending, id)
			continue
		}
		if r.rechecked || now.Before(r.seen.Add(settleStep)) {
			continue
		}
		r.rechecked = true
		p.pending[id] = r
		if s, ok := p.rows[id]; ok {
			ids = s.reported(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	return []catalog.Change{{Products: slices.Compact(ids), Kind: catalog.KindProduct}}
}

// unsureUpdate says whether the gate's reading updated, read when the
// server's clock said localNow, leaves it open for one more scan at once.
// UPDATE_TIME counts seconds: a commit later in the second it was read in
// leaves it as it was, so such a reading (or one the second before, a
// margin for when InnoDB stamps it) keeps the gate open. An older one
// moves with any commit after the read but those settleDue waits for.
func unsureUpdate(updated, localNow string) bool {
	return updated == "" || packTime(updated) >= packTime(addSeconds(localNow, -1))
}
