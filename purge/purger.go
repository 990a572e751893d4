// Package purge sends the purge tags a change of the shop invalidated to the
// caches in front of catalogd — Varnish (xkey), Fastly (surrogate keys),
// Cloudflare (Cache-Tag) — so that an edit shows at the edge within about a
// second instead of when the edge's copy runs out (s-maxage). One worker
// per target collects the tags for a short interval (a burst of saves is a
// few requests), splits them into requests within the target's documented
// limits, and sends them, with backoff and jitter on a network error, a
// 5xx or a 429 (honouring Retry-After). Add never blocks: what waits is
// bounded, and would it overflow it collapses to the kind tags, which purge
// everything; so do the kind tags when catalogd cannot know what changed.
// Which tags a response carries and a change names is package httpapi's
// business: here tags are strings (docs/edge-purge.md).
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
	// Edge is the base URL where the target's cache answers GETs for the
	// site at site: catalogd starting asks it for the API index, and
	// leaves alone an edge that held this replica's snapshot.
	Edge(site string) string
	// Cached says whether an answer the edge gave, its header h, came from
	// the target's own store, by the target's own words alone: a CDN above
	// Varnish passes Varnish's words on, and its miss would read as
	// Varnish's hit.
	Cached(h http.Header) bool
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
	// Message is what the target said, secrets taken out, shortened.
	Message string
	// Garbled says the answer was not the API's (a proxy's page in its
	// place, a cut body): nothing says the purge was refused, and trying
	// again soon may reach the API.
	Garbled bool
}

func (e *StatusError) Error() string {
	s := e.Target + ": " + strconv.Itoa(e.Status) + " " + http.StatusText(e.Status)
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// retryable says whether trying the same request again soon may succeed:
// the network failed, the target is overloaded or failing (5xx), it asked
// to slow down (429, 408), or its answer was garbled. Any other answer (a
// bad token, a refused ACL, a malformed request, a redirect) will not
// change by itself soon.
func retryable(err error) bool {
	var se *StatusError
	if !errors.As(err, &se) {
		return true // no answer: the network, a timeout
	}
	return se.Garbled || se.Status >= 500 || se.Status == http.StatusTooManyRequests || se.Status == http.StatusRequestTimeout
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
	// purge every response catalogd serves. New keeps a copy, which the
	// workers share through their Options.
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
	// Jitter draws a wait in [d/2, d]; nil: at random. It spreads the
	// backoff, the pace after a 429 and the wait past a Retry-After
	// (afterRetry). Tests fix it.
	Jitter func(d time.Duration) time.Duration
	// Acknowledged, when set, is told of every round a target
	// acknowledged that left nothing waiting.
	Acknowledged Acknowledger
}

// Acknowledger hears of the rounds the targets acknowledged: catalogd asks
// the edge for the index again, so that the edge's copy names the latest
// snapshot.
type Acknowledger interface {
	// Acknowledged is told of a round t acknowledged that left nothing
	// waiting, with its tags. It runs on the target's worker and must not
	// block.
	Acknowledged(t Target, tags []string)
}

// DefaultMaxPending bounds what waits for one target: 10 000 product tags,
// a few hundred kilobytes, more than any edit burst of a few seconds holds.
const DefaultMaxPending = 10_000

// maxRetryAfter caps a target's Retry-After: a wait longer than this is
// the target's mistake, and the pending tags would go stale meanwhile.
const maxRetryAfter = 10 * time.Minute

// maxRefused caps the wait after a refusal.
const maxRefused = time.Hour

// Purger sends tags to its targets; one worker each.
type Purger struct {
	workers []*worker
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
	o.Kinds = slices.Clone(o.Kinds)
	p := &Purger{}
	for _, t := range targets {
		w := &worker{t: t, lim: t.Limits(), o: o, wake: make(chan struct{}, 1),
			pending: map[string]bool{}}
		if w.lim.MaxTags <= 0 {
			w.lim.MaxTags = 100
		}
		w.pace = w.lim.Interval
		if o.Metrics != nil {
			w.m = o.Metrics.target(t.Name())
		}
		w.m.paceSet(w.pace)
		p.workers = append(p.workers, w)
	}
	return p
}

// Run sends purges until ctx ends. A round it cuts keeps its unsent tags
// pending, with those that were waiting, for Flush.
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

// Flush sends what is pending to every target at once, instead of after
// the coalescing interval, retried as Run retries, until nothing is
// pending or ctx ends; call it after Run returned. catalogd stopping calls
// it within its grace period, so that a replica stopped for good does not
// take its last changes' purges with it. It returns how many tags it could
// not send.
func (p *Purger) Flush(ctx context.Context) int {
	var wg sync.WaitGroup
	left := make([]int, len(p.workers))
	for i, w := range p.workers {
		n := w.pendingCount()
		if n == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.o.Logger.Info("edge purge: sending the tags waiting before exit", "target", w.t.Name(), "tags", n)
			if left[i] = w.flush(ctx); left[i] > 0 {
				w.o.Logger.Warn("edge purge: tags left unsent at exit: the target failed, or asked to wait, past the time there was",
					"target", w.t.Name(), "tags", left[i])
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, n := range left {
		total += n
	}
	return total
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
		w.add(w.o.Kinds, applied, why)
	}
}

// PurgeKindsOf is PurgeKinds for one target, named by its Name: catalogd
// starting asks each edge whether it holds what catalogd would answer, and
// purges only those that may not.
func (p *Purger) PurgeKindsOf(target, why string, applied time.Time) {
	for _, w := range p.workers {
		if w.t.Name() == target {
			w.add(w.o.Kinds, applied, why)
		}
	}
}

// Targets are the targets purged, in order.
func (p *Purger) Targets() []Target {
	out := make([]Target, len(p.workers))
	for i, w := range p.workers {
		out[i] = w.t
	}
	return out
}

// Status is one target's state, for /readyz.
type Status struct {
	Target  string
	LastOK  time.Time // the last request acknowledged
	LastErr string    // the last failure, "" when the last request succeeded
	ErrAt   time.Time
	Pending int // tags waiting
	// Slowed is the pace the target's rate limit taught, when longer than
	// its interval; zero otherwise.
	Slowed time.Duration
}

// Status reports every target's state.
func (p *Purger) Status() []Status {
	out := make([]Status, 0, len(p.workers))
	for _, w := range p.workers {
		w.mu.Lock()
		s := Status{Target: w.t.Name(), LastOK: w.lastOK, ErrAt: w.errAt, Pending: len(w.pending), Slowed: w.slowedTo()}
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
		if s.Slowed > 0 {
			fmt.Fprintf(&b, " (slowed by its rate limit to a request every %s)", s.Slowed.Round(100*time.Millisecond))
		}
	}
	return b.String()
}
