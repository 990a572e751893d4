package follow

import (
	"time"

	"catalogd/catalog"
)

// OnApplied is told of each change Follow applied (catalog.AppliedHandler),
// on the follower's goroutine: it hands it to applied, told whether the
// feed lost its place — it reported a resync, or, when restarted, the
// source before it stopped, which this Follow's first whole read stands
// for.
func (f *Follower) OnApplied(a catalog.Applied) {
	lost := a.Change.Kind == catalog.KindResync || f.restarted && a.Change.All
	if a.Change.All {
		f.restarted = false
	}
	f.applied(a, lost)
}

// applied drops what a change touched from the cache, hands the purge tags
// it named to the edge purger, and counts it. lost says the feed lost its
// place before the whole read a carries.
func (f *Follower) applied(a catalog.Applied, lost bool) {
	now := time.Now()
	select {
	case <-f.first:
		tags := f.cache.Apply(a)
		if lost {
			// The whole read just made is diffed against the snapshot
			// served, but the edge may hold what an earlier, failed purge
			// left; purge every response by kind.
			f.purger.PurgeKinds("resync", now)
		} else {
			f.purger.Add(tags, now)
		}
	default:
		// The first snapshot: nothing was served or cached before it, so
		// nothing is dropped and no change is logged. But the edge may
		// hold responses of an earlier run, and what changed since is
		// known to no one: every target purges by kind once catalogd can
		// answer the requests that follow (sooner, the edge would get 503s
		// for the purged responses meanwhile). Unless the edge
		// holds this very snapshot's answers: a start beside running
		// replicas (startpurge.go).
		f.startPurge(a.Snapshot, now)
	}
	if a.Snapshot != nil {
		f.m.version.Set(float64(a.Snapshot.Version))
	}
	if a.Change.All {
		f.m.rebuilds.WithLabelValues(a.Change.Kind).Inc()
	}
	if !a.Change.Committed.IsZero() {
		f.m.lag.Observe(time.Since(a.Change.Committed).Seconds())
	}
	if !a.Nothing() {
		f.log.Debug("shop changed; snapshot updated", "kind", a.Change.Kind, "products", len(a.Products),
			"lists", a.Lists, "everything", a.Everything, "took", a.Took.Round(time.Millisecond))
	}
	if a.Snapshot != nil {
		f.firstOnce.Do(func() { close(f.first) })
	}
}
