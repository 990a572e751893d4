// Package purge sends the purge tags a change of the shop invalidated to the
// caches in front of catalogd — Varnish (xkey), Fastly (surrogate keys),
// Cloudflare (Cache-Tag) — so that an edit shows at the edge within about
// a second instead of when the edge's copy runs out (s-maxage).
//
// One worker per target collects the tags it is given for a short interval
// (coalescing: a burst of saves is a few requests, not one per save),
// removes duplicates, splits them into requests the target accepts (its
// documented limits), and sends them, trying again with exponential
// backoff and jitter on a network error, a 5xx or a 429 (honouring
// Retry-After). Add never blocks: what waits for a target is bounded, and
// when it would overflow it collapses to the kind tags, which purge every
// response catalogd serves; nothing is dropped silently. When catalogd
// cannot know what changed (it just started, the change feed lost its
// place, a purge was refused) the kind tags are sent too.
//
// The package knows tags as strings only: which tags a response carries,
// and which a change names, is package httpapi's business.
package purge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Target is one cache catalogd purges.
type Target interface {
	// Name names the target in logs, metrics and /readyz ("varnish
	// 127.0.0.1:6081", "fastly", "cloudflare"); it never holds a secret.
	Name() string
	// Limits are what one request may carry and how often rounds go out.
	Limits() Limits
	// Purge sends one request purging the tags, which fit the limits. Its
	// error is a *StatusError when the target answered, and never holds a
	// secret.
	Purge(ctx context.Context, tags []string) error
}

// Limits bound what a target is sent.
type Limits struct {
	// MaxTags is the most tags one request carries.
	MaxTags int
	// MaxBytes, when set, bounds the tags' bytes in one request, a
	// separator each included (a header's length).
	MaxBytes int
	// Interval is the least time between two rounds of requests: the tags
	// arriving meanwhile are collected, and sent together.
	Interval time.Duration
}

// StatusError is a target's answer other than success.
type StatusError struct {
	Target string
	Status int
	// RetryAfter is the wait the target asked for (Retry-After), zero when
	// it named none.
	RetryAfter time.Duration
	// Message is what the target said, shortened, secrets taken out.
	Message string
}

func (e *StatusError) Error() string {
	s := e.Target + ": " + strconv.Itoa(e.Status) + " " + http.StatusText(e.Status)
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// retryable says whether trying the same request again soon may succeed:
// the network failed, the target is overloaded or failing (5xx), or it
// asked to slow down (429, 408). Any other answer (a bad token, a refused
// ACL, a malformed request) will not change by itself soon.
func retryable(err error) bool {
	var se *StatusError
	if !errors.As(err, &se) {
		return true // no answer: the network, a timeout
	}
	return se.Status >= 500 || se.Status == http.StatusTooManyRequests || se.Status == http.StatusRequestTimeout
}

// Clock is the time the purger uses; tests move it by hand.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Options configure a Purger.
type Options struct {
	// Kinds are the kind tags: one per kind of response, together they
	// purge every response catalogd serves.
	Kinds []string
	// MaxPending bounds the tags waiting for one target; past it they
	// collapse to Kinds. Zero is DefaultMaxPending.
	MaxPending int
	Logger     *slog.Logger
	Metrics    *Metrics // nil: not counted
	Clock      Clock    // nil: the real time
	// Backoff is the first wait after a failed request, doubled at each
	// failure up to MaxBackoff; zero: 500ms and 30s.
	Backoff, MaxBackoff time.Duration
	// Refused is the first wait after a refusal that will not go away by
	// itself (401, 403, 400…), doubled up to an hour; zero: a minute.
	Refused time.Duration
	// Jitter draws a wait in [d/2, d]; nil: at random. Tests fix it.
	Jitter func(d time.Duration) time.Duration
}

// DefaultMaxPending bounds what waits for one target: 10 000 product tags
// are about 200 KB, and more than any edit burst a few seconds hold.
const DefaultMaxPending = 10_000

// maxRetryAfter caps a target's Retry-After: a wait longer than this is
// the target's mistake, and the pending tags would go stale meanwhile.
const maxRetryAfter = 10 * time.Minute

// maxRefused caps the wait after a refusal.
const maxRefused = time.Hour

// Purger sends tags to its targets; one worker each.
type Purger struct {
	workers []*worker
	kinds   []string
}

// New makes a purger for the targets; Run starts it.
func New(targets []Target, o Options) *Purger {
	if o.MaxPending <= 0 {
		o.MaxPending = DefaultMaxPending
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	if o.Backoff <= 0 {
		o.Backoff = 500 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	if o.Refused <= 0 {
		o.Refused = time.Minute
	}
	if o.Jitter == nil {
		o.Jitter = func(d time.Duration) time.Duration {
			if d <= 1 {
				return d
			}
			return d/2 + rand.N(d/2+1)
		}
	}
	p := &Purger{kinds: slices.Clone(o.Kinds)}
	for _, t := range targets {
		w := &worker{t: t, lim: t.Limits(), o: o, kinds: p.kinds, wake: make(chan struct{}, 1),
			pending: map[string]bool{}}
		if w.lim.MaxTags <= 0 {
			w.lim.MaxTags = 100
		}
		if o.Metrics != nil {
			w.m = o.Metrics.target(t.Name())
		}
		p.workers = append(p.workers, w)
	}
	return p
}

// Run sends purges until ctx ends. What is still pending then is dropped:
// the next start purges by kind.
func (p *Purger) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, w := range p.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(ctx)
		}()
	}
	wg.Wait()
}

// Add queues the tags a change applied at the given time invalidated, for
// every target. It never blocks on a target.
func (p *Purger) Add(tags []string, applied time.Time) {
	if len(tags) == 0 {
		return
	}
	for _, w := range p.workers {
		w.add(tags, applied, "")
	}
}

// PurgeKinds queues the kind tags for every target: catalogd cannot know
// what changed (why says how so, for the log and the metrics: "start",
// "resync").
func (p *Purger) PurgeKinds(why string, applied time.Time) {
	for _, w := range p.workers {
		w.add(p.kinds, applied, why)
	}
}

// Status is one target's state, for /readyz.
type Status struct {
	Target  string
	LastOK  time.Time // the last request acknowledged
	LastErr string    // the last failure, "" when the last request succeeded
	ErrAt   time.Time
	Pending int // tags waiting
}

// Status reports every target's state.
func (p *Purger) Status() []Status {
	out := make([]Status, 0, len(p.workers))
	for _, w := range p.workers {
		w.mu.Lock()
		s := Status{Target: w.t.Name(), LastOK: w.lastOK, ErrAt: w.errAt, Pending: len(w.pending)}
		if w.lastErr != nil {
			s.LastErr = w.lastErr.Error()
		}
		w.mu.Unlock()
		out = append(out, s)
	}
	return out
}

// Report is /readyz's lines: one per target, its state and last error. A
// failing target never makes catalogd unready: the edge then keeps its
// copies for their lifetime (s-maxage), and catalogd itself serves fresh.
func (p *Purger) Report(now time.Time) string {
	if len(p.workers) == 0 {
		return "purge: no target configured (the edge keeps responses for s-maxage; see docs/edge-purge.md)"
	}
	var b strings.Builder
	for i, s := range p.Status() {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "purge %s: ", s.Target)
		switch {
		case s.LastErr != "":
			fmt.Fprintf(&b, "failing (%s ago): %s", now.Sub(s.ErrAt).Round(time.Second), s.LastErr)
		case s.LastOK.IsZero():
			b.WriteString("ok, nothing purged yet")
		default:
			fmt.Fprintf(&b, "ok, last purge %s ago", now.Sub(s.LastOK).Round(time.Second))
		}
		if s.Pending > 0 {
			fmt.Fprintf(&b, " (%d tags waiting)", s.Pending)
		}
	}
	return b.String()
}

// worker sends one target's purges.
type worker struct {
	t     Target
	lim   Limits
	o     Options
	kinds []string
	m     *targetMetrics
	wake  chan struct{}

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
		w.collapse("overflow")
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

// collapse replaces what is pending with the kind tags; w.mu is held.
func (w *worker) collapse(why string) {
	w.o.Logger.Warn("edge purge: too many tags waiting; purging every response by kind instead",
		"target", w.t.Name(), "why", why, "waiting", len(w.pending))
	w.m.kindPurge(why)
	w.pending = map[string]bool{}
	w.order = w.order[:0]
	w.merge(w.kinds)
	w.collapsed = true
}

// take empties the pending set, and says whether it had collapsed to the
// kinds; w.mu is held.
func (w *worker) take() ([]string, time.Time, bool) {
	tags, since, collapsed := w.order, w.since, w.collapsed
	if w.owed {
		seen := w.pending
		for _, k := range w.kinds {
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
		w.merge(w.kinds)
		w.collapsed = true
	case len(w.pending)+len(tags) > w.o.MaxPending:
		w.collapse("overflow")
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
	failures := 0 // consecutive retryable failures
	refusals := 0 // consecutive refusals
	var next time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		}
		// Collect for the interval, counted from the previous round: a
		// burst is coalesced, and rounds are at least Interval apart.
		wait := w.lim.Interval
		if !next.IsZero() {
			wait = max(wait, next.Sub(clock.Now()))
		}
		if wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-clock.After(wait):
			}
		}
		w.mu.Lock()
		tags, since, collapsed := w.take()
		w.mu.Unlock()
		if len(tags) == 0 {
			continue
		}
		sent, err := w.round(ctx, tags)
		if ctx.Err() != nil {
			return
		}
		now := clock.Now()
		next = now.Add(w.lim.Interval)
		if err == nil {
			failures, refusals = 0, 0
			w.m.lagObserve(now.Sub(since))
			w.mu.Lock()
			if w.lastErr != nil {
				w.o.Logger.Info("edge purge works again", "target", w.t.Name())
			}
			w.lastOK, w.lastErr = now, nil
			w.mu.Unlock()
			continue
		}
		w.mu.Lock()
		first := w.lastErr == nil
		w.lastErr, w.errAt = err, now
		w.mu.Unlock()
		var pause time.Duration
		if retryable(err) {
			// Unsent tags wait, with what arrives meanwhile, for the
			// next round after the backoff.
			w.putBack(tags[sent:], since, collapsed)
			pause = w.o.Jitter(min(w.o.MaxBackoff, w.o.Backoff<<min(failures, 20)))
			failures++
			var se *StatusError
			if errors.As(err, &se) && se.RetryAfter > pause {
				pause = min(se.RetryAfter, maxRetryAfter)
			}
			if first {
				w.o.Logger.Warn("edge purge failed; trying again with backoff", "target", w.t.Name(), "err", err,
					"retry_in", pause.Round(time.Millisecond))
			} else {
				w.o.Logger.Debug("edge purge failed again", "target", w.t.Name(), "err", err)
			}
		} else {
			// Refused (a bad token, a missing permission, a purge the
			// ACL forbids): sending the same again soon would be refused
			// again. The tags are lost, so the kinds go with the next
			// round, tried after a pause that grows to an hour: a
			// permission fixed at the CDN takes effect without a restart.
			w.mu.Lock()
			w.owed = true
			w.mu.Unlock()
			pause = min(maxRefused, w.o.Refused<<min(refusals, 10))
			refusals++
			w.o.Logger.Error("edge purge refused; its tags are dropped and every response will be purged by kind once it works",
				"target", w.t.Name(), "err", err, "retry_in", pause)
		}
		next = now.Add(pause)
		// Wake at once: the pause is waited for in the loop, and tags
		// were put back or are owed.
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// round sends tags in batches the target accepts. It returns how many tags
// were acknowledged before an error.
func (w *worker) round(ctx context.Context, tags []string) (int, error) {
	sent := 0
	for _, b := range batches(tags, w.lim) {
		err := w.t.Purge(ctx, b)
		w.m.request(len(b), err)
		if err != nil {
			return sent, err
		}
		sent += len(b)
	}
	return sent, nil
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
