package poll

import (
	"maps"
	"slices"
	"time"

	"catalogd/catalog"
)

// What one scan cannot see, and how the poller waits for it; the cases
// and their windows are docs/change-feed.md#when-a-save-can-be-missed.
// Two clocks count seconds and hide a commit in a second already read:
// MariaDB stamps wp_posts' UPDATE_TIME with the start of the committing
// transaction (trx_t::commit_tables), so one begun in the second the last
// scan read leaves it as it was; and PHP writes post_modified_gmt, so a
// second save in one second of its clock leaves the posts row as it was.
// So the poller waits, within bounds: scans follow a recent UPDATE_TIME
// at doubling intervals from settleStep (settleDue); products seen saved
// stay pending for maxOpenTxn and are reported again at doubling
// intervals (recheck); a gate read within its own second is read again at
// once (scanUnsure).

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

// pendingRow is a product or variation post a scan or a delta saw saved.
type pendingRow struct {
	seen time.Time // on the poller's clock, once that read was over
	// next is when recheck reports it again: once the time since seen
	// has doubled since its last report (settleStep after seen first),
	// so that it is read again some six times in its minute, whether the
	// gate moves every second or not at all.
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
// scan that began at at (a post gone was reported as such, and is no
// longer pending). Each report counts as recheck's when it is due.
func (p *Poller) pendingAgain(ids []int64, rows map[int64]scanState, at time.Time) []int64 {
	for id, r := range p.pending {
		s, ok := rows[id]
		if !ok {
			delete(p.pending, id)
			continue
		}
		ids = s.reported(ids, id)
		p.reportedPending(id, r, at)
	}
	return ids
}

// recheck reports, at now, the pending posts whose next report is due,
// without a detection (the catalog reads them again).
func (p *Poller) recheck(now time.Time) []catalog.Change {
	var ids []int64
	for id, r := range p.pending {
		if now.Before(r.next) {
			continue
		}
		s, ok := p.rows[id]
		if !ok {
			delete(p.pending, id)
			continue
		}
		ids = s.reported(ids, id)
		p.reportedPending(id, r, now)
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	return []catalog.Change{{Products: slices.Compact(ids), Kind: catalog.KindProduct}}
}

// reportedPending records that pending post id was reported at at: a
// report maxOpenTxn or more after it was seen is its last; a due one
// sets the next once the time since seen has doubled.
func (p *Poller) reportedPending(id int64, r pendingRow, at time.Time) {
	if at.Sub(r.seen) >= maxOpenTxn {
		delete(p.pending, id)
		return
	}
	if !at.Before(r.next) {
		r.next = r.seen.Add(max(settleStep, 2*at.Sub(r.seen)))
	}
	p.pending[id] = r
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
