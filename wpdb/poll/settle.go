package poll

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
//   - The products a scan or a delta saw saved (their post_modified_gmt
//     within maxClockSkew of the database's clock: a save made now, by a
//     clock within that skew) stay pending for maxOpenTxn: every scan in
//     that time reports them again, and the poller reports them without
//     a detection (recheck) each time the time since it saw them has
//     doubled (2, 4, 8, 16, 32 and 64 s after). The reports follow the
//     poller's clock, not the detections: a detection's period follows
//     its cost, which a busy database stretches past the minute. A save
//     that leaves the row as it was and commits within that minute (in
//     a transaction that commits later, from a web server whose clock
//     lags further) is reported within about its delay again. At most
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
