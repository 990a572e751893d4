package poll_test

import (
	"database/sql"
	"sync/atomic"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
	"catalogd/wpdb/internal/feedops"
	"catalogd/wpdb/poll"
)

// Poll mode: a cheap round every pollInterval; the full scan only when the
// poller's own clock (poll.Options.Now, which schedules the scans) says its
// period has passed. The test holds that clock still, so a cheap operation
// must show through the cheap rounds alone, and moves it one scan period
// on after each operation the op table says only the scan sees: both
// halves of the split are checked, deterministically, without waiting a
// real scan period.
const (
	pollInterval = 100 * time.Millisecond
	pollScan     = time.Hour       // the scan period (MaxScan, with a budget too small to bring it sooner)
	applySlack   = 5 * time.Second // the deadline for Follow reading and swapping the snapshot, on a busy machine
)

func TestFeedOpsPoll(t *testing.T) {
	var offset atomic.Int64 // how far the poller's clock is ahead of the wall clock
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	feedops.Run(t, func(t *testing.T, db *wpdb.DB, dsn string) catalog.Feed {
		return poll.New(db, catalog.ShopReads, poll.Options{Interval: pollInterval, Budget: 1e-9,
			MaxScan: pollScan, Now: clock})
	}, func(op feedops.Op) time.Duration {
		// Called once the operation is done: the scan period passes for
		// what only the scan sees.
		if !op.Cheap {
			offset.Add(int64(pollScan))
		}
		return pollInterval + applySlack
	})
}

// Poll mode on a shop whose owner gave wp_posts an index on
// post_modified_gmt: the delta finds the edits through it. The poller's
// clock is held still (the full scan behind the delta never comes) but
// for an operation that moves no post_modified_gmt (a permanent delete),
// after which it moves on by the full scan's period (MaxScan, the budget
// being ample): a whole-read-only poller shows none of them within the
// window.
func TestFeedOpsPollIndexed(t *testing.T) {
	var offset atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	load := func(t testing.TB, s *wpfixture.Shop) (string, *sql.DB) {
		s.IndexPostModified()
		return testdb.Load(t, s)
	}
	var deltas, fulls atomic.Int64
	count := func(s poll.Stats) {
		switch {
		case s.Err != nil: // a read that failed (a busy machine's timeout) is tried again
		case s.Delta:
			deltas.Add(1)
		case s.Scan:
			fulls.Add(1)
		}
	}
	feedops.RunOn(t, load, func(t *testing.T, db *wpdb.DB, dsn string) catalog.Feed {
		return poll.New(db, catalog.ShopReads, poll.Options{Interval: pollInterval, MaxScan: pollScan,
			Now: clock, OnPoll: count})
	}, func(op feedops.Op) time.Duration {
		if op.Unmodified {
			offset.Add(int64(pollScan))
		}
		return pollInterval + applySlack
	})
	// One full scan a shop (with and without an object cache): the
	// permanent delete's. Everything else was the deltas'.
	if deltas.Load() == 0 || fulls.Load() > 2 {
		t.Errorf("%d deltas and %d full scans, want deltas and 2 full scans at most", deltas.Load(), fulls.Load())
	}
}
