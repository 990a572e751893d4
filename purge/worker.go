package purge

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"
)

// worker sends one target's purges.
type worker struct {
	t    Target
	lim  Limits
	o    Options // o.Kinds: the kind tags
	m    *targetMetrics
	wake chan struct{}

	mu sync.Mutex
	// pending are the tags waiting, collapsed when they are Kinds after an
	// overflow (more tags need not be kept then); since is when the oldest
	// of them was applied, for the lag.
	pending   map[string]bool
	order     []string
	collapsed bool
	since     time.Time
	// owed: a purge was lost (refused); the kinds go with the next round.
	owed    bool
	lastOK  time.Time
	lastErr error
	errAt   time.Time
	// shownPace is pace, for Status.
	shownPace time.Duration

	// The rounds' state, kept by run and then by flush, never at once:
	// next is the earliest time of the next round (the pace after the
	// last, or the pause after a failure); failures and refusals count the
	// consecutive ones, for the backoff and the pause; pace is the least
	// time between two requests, learnt from the target's rate limit
	// (pace.go), at least the target's interval.
	next               time.Time
	failures, refusals int
	pace               time.Duration
	pacedAt            time.Time // when pace was last set
}

// add merges tags into the pending set and wakes the worker.
func (w *worker) add(tags []string, applied time.Time, why string) {
	w.mu.Lock()
	if w.since.IsZero() || applied.Before(w.since) {
		w.since = applied
	}
	switch {
	case why != "":
		w.m.kindPurge(why)
		w.merge(tags)
	case w.collapsed:
		// The kinds pending purge every response already.
	case len(w.pending)+len(tags) > w.o.MaxPending:
		w.collapse(whyOverflow)
	default:
		w.merge(tags)
	}
	w.m.pendingSet(len(w.pending))
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// merge adds tags not pending yet; w.mu is held.
func (w *worker) merge(tags []string) {
	for _, t := range tags {
		if !w.pending[t] {
			w.pending[t] = true
			w.order = append(w.order, t)
		}
	}
}

// whyOverflow is why the pending tags collapsed to the kinds: more waited
// than MaxPending (the metrics' why label; the caller's PurgeKinds names
// its own).
const whyOverflow = "overflow"

// collapse replaces what is pending with the kind tags; w.mu is held.
func (w *worker) collapse(why string) {
	w.o.Logger.Warn("edge purge: too many tags waiting; purging every response by kind instead",
		"target", w.t.Name(), "why", why, "waiting", len(w.pending))
	w.m.kindPurge(why)
	w.pending = map[string]bool{}
	w.order = w.order[:0]
	w.merge(w.o.Kinds)
	w.collapsed = true
}

// take empties the pending set, and says whether it had collapsed to the
// kinds; w.mu is held.
func (w *worker) take() ([]string, time.Time, bool) {
	tags, since, collapsed := w.order, w.since, w.collapsed
	if w.owed {
		seen := w.pending
		for _, k := range w.o.Kinds {
			if !seen[k] {
				tags = append(tags, k)
			}
		}
		w.owed = false
	}
	w.pending = map[string]bool{}
	w.order = nil
	w.since = time.Time{}
	w.collapsed = false
	w.m.pendingSet(0)
	return tags, since, collapsed
}

// putBack returns unsent tags to the pending set, keeping the oldest time;
// collapsed says they were the kinds an overflow left, which stay the
// pending set (they cover whatever arrived since).
func (w *worker) putBack(tags []string, since time.Time, collapsed bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.since.IsZero() || since.Before(w.since) {
		w.since = since
	}
	switch {
	case w.collapsed:
		// The kinds pending cover these.
	case collapsed:
		w.pending, w.order = map[string]bool{}, nil
		w.merge(w.o.Kinds)
		w.collapsed = true
	case len(w.pending)+len(tags) > w.o.MaxPending:
		w.collapse(whyOverflow)
	default:
		// The unsent first: they are the older.
		old := w.order
		w.pending, w.order = map[string]bool{}, nil
		w.merge(tags)
		w.merge(old)
	}
	w.m.pendingSet(len(w.pending))
}

func (w *worker) run(ctx context.Context) {
	clock := w.o.Clock
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		}
		// Collect for the interval, counted from the previous round: a
		// burst is coalesced, and rounds are at least Interval apart.
		wait := w.lim.Interval
		if !w.next.IsZero() {
			wait = max(wait, w.next.Sub(clock.Now()))
		}
		if wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-clock.After(wait):
			}
		}
		if !w.attempt(ctx) {
			return
		}
	}
}

// flush sends what is pending at once, without collecting for the
// interval, in rounds as run sends them: after a failure, tried again
// after the backoff or the pause the target asked for, while ctx lasts. It
// returns how many tags are left.
func (w *worker) flush(ctx context.Context) int {
	clock := w.o.Clock
	for {
		left := w.pendingCount()
		if left == 0 {
			return 0
		}
		if wait := w.next.Sub(clock.Now()); wait > 0 {
			if end, ok := ctx.Deadline(); ok && time.Until(end) < wait {
				return left // the target's pause outlasts the time there is
			}
			select {
			case <-ctx.Done():
				return left
			case <-clock.After(wait):
			}
		}
		if !w.attempt(ctx) {
			return w.pendingCount()
		}
	}
}

// pendingCount is how many tags the next round sends: those pending, and
// the kinds owed after a refusal.
func (w *worker) pendingCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(w.pending)
	if w.owed {
		for _, k := range w.o.Kinds {
			if !w.pending[k] {
				n++
			}
		}
	}
	return n
}

// attempt sends one round of what is pending and deals with its outcome.
// It returns false when ctx ended during the round: the tags not
// acknowledged are pending again (a flush sends them).
func (w *worker) attempt(ctx context.Context) bool {
	clock := w.o.Clock
	w.mu.Lock()
	tags, since, collapsed := w.take()
	w.mu.Unlock()
	if len(tags) == 0 {
		return true
	}
	sent, q, err := w.round(ctx, tags)
	if err != nil && ctx.Err() != nil {
		w.putBack(tags[sent:], since, collapsed)
		return false
	}
	now := clock.Now()
	w.next = now.Add(w.pace)
	if err == nil {
		w.failures, w.refusals = 0, 0
		if q.spent {
			w.drained(now)
		} else {
			w.creep(now)
		}
		w.m.lagObserve(now.Sub(since))
		w.mu.Lock()
		if w.lastErr != nil {
			w.o.Logger.Info("edge purge works again", "target", w.t.Name())
		}
		w.lastOK, w.lastErr = now, nil
		w.mu.Unlock()
		w.m.roundDone(false)
		// Told only once nothing waits: the edge's index is then filled
		// after the last change this replica applied was purged, not
		// between a change and its purge.
		if w.o.Acknowledged != nil && w.pendingCount() == 0 {
			w.o.Acknowledged.Acknowledged(w.t, tags)
		}
		return true
	}
	w.mu.Lock()
	first := w.lastErr == nil
	w.lastErr, w.errAt = err, now
	w.mu.Unlock()
	w.m.roundDone(true)
	var pause time.Duration
	if retryable(err) {
		// Unsent tags wait, with what arrives meanwhile, for the next
		// round after the backoff.
		w.putBack(tags[sent:], since, collapsed)
		var se *StatusError
		if errors.As(err, &se) && se.Status == http.StatusTooManyRequests {
			// The account's rate limit, which the fleet shares: slow down
			// for good, not just for this request (pace.go).
			w.slowDown(now)
			pause = w.o.Jitter(w.pace)
		} else {
			pause = w.o.Jitter(min(w.o.MaxBackoff, w.o.Backoff<<min(w.failures, 20)))
			w.failures++
		}
		if se != nil && se.RetryAfter > 0 {
			pause = max(pause, w.afterRetry(se.RetryAfter))
		}
		if first {
			w.o.Logger.Warn("edge purge failed; trying again with backoff", "target", w.t.Name(), "err", err,
				"retry_in", pause.Round(time.Millisecond))
		} else {
			w.o.Logger.Debug("edge purge failed again", "target", w.t.Name(), "err", err)
		}
	} else {
		// Refused (a bad token, a missing permission, a purge the ACL
		// forbids, a redirect): sending the same again soon would be
		// refused again. The tags are lost, so the kinds go with the next
		// round, tried after a pause that grows to an hour: a permission
		// fixed at the CDN takes effect without a restart.
		w.mu.Lock()
		w.owed = true
		w.mu.Unlock()
		pause = min(maxRefused, w.o.Refused<<min(w.refusals, 10))
		w.refusals++
		w.o.Logger.Error("edge purge refused; its tags are dropped and every response will be purged by kind once it works",
			"target", w.t.Name(), "err", err, "retry_in", pause)
	}
	w.next = now.Add(pause)
	// Wake at once: the pause is waited for in the loop, and tags were
	// put back or are owed.
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return true
}

// round sends tags in batches the target accepts: at once while the
// target never pushed back, else spaced by the pace, and after a spent
// quota by its reset. It returns how many tags were acknowledged before an
// error, and what the last answer said of the quota.
func (w *worker) round(ctx context.Context, tags []string) (int, quota, error) {
	sent := 0
	var q quota
	for i, b := range batches(tags, w.lim) {
		if wait := w.spacing(q); i > 0 && wait > 0 {
			select {
			case <-ctx.Done():
				return sent, q, ctx.Err()
			case <-w.o.Clock.After(wait):
			}
		}
		q = quota{}
		err := w.t.Purge(withQuota(ctx, &q), b)
		if err != nil && ctx.Err() != nil {
			return sent, q, err // cut by the stop, not the target's failure
		}
		w.m.request(len(b), err)
		if err != nil {
			return sent, q, err
		}
		sent += len(b)
	}
	return sent, q, nil
}

// spacing is the wait between two requests of a round, after the answer
// that said q.
func (w *worker) spacing(q quota) time.Duration {
	var d time.Duration
	if w.slowed() {
		d = w.pace
	}
	if q.spent {
		d = max(d, min(q.reset, maxRetryAfter))
	}
	return d
}

// batches splits tags into requests within the limits, in order.
func batches(tags []string, lim Limits) [][]string {
	var out [][]string
	start, bytes := 0, 0
	for i, t := range tags {
		n := len(t) + 1
		if i > start && (i-start >= lim.MaxTags || (lim.MaxBytes > 0 && bytes+n > lim.MaxBytes)) {
			out = append(out, tags[start:i])
			start, bytes = i, 0
		}
		bytes += n
	}
	if start < len(tags) {
		out = append(out, tags[start:])
	}
	return out
}
