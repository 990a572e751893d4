package poll

import (
	"context"
	"time"

	"catalogd/catalog"
	"catalogd/wpdb"
)

// The poll feed's gate: wp_posts' UPDATE_TIME, read at every cheap round
// and at the gate's ticks between them, says whether the products changed
// since the last scan, so that the scan runs when they did (scanDue) and
// not on a period. What it cannot see, and how the poller waits for it:
// settle.go; what the scan may spend: budget.go.

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
	err := p.db.View(ctx, func(ctx context.Context, tx *wpdb.Tx) error {
		var err error
		updated, _, ok, err = tx.PostsUpdated(ctx)
		return err
	})
	cost := time.Since(start)
	if err != nil {
		p.failed(ctx, Stats{Gate: true, DBTime: cost}, err)
		return nil
	}
	// The gate's reads count with the cheap rounds (roundCost), whose
	// share the scan's budget leaves them: never more than half of it,
	// so that a database slow to answer them cannot starve the scan, as
	// they would paid from the scan's bucket (docs/change-feed.md#polling).
	p.gateSpent += cost
	p.o.OnPoll(Stats{Gate: true, DBTime: cost, Period: p.period})
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
// wp_posts' UPDATE_TIME (InnoDB does, for a SELECT-only user too; a cheap
// read at every round), the scan runs only when the table changed since
// the last one (the gate), at once if the bucket holds its cost: the
// budget a quiet shop leaves unspent is banked (up to
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
