package purge

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// A CDN limits purge requests per account, and every replica of catalogd
// purges; the account's limit is known to none of them. So each worker
// learns its pace, the least time between two of its requests, from the
// target's answers, as TCP learns a window: a 429 doubles it (slowDown;
// the next waits for it or past Retry-After, afterRetry), an answer that
// says the quota is spent adds an eighth (drained), and while no 429
// comes it halves every paceHalving, down to the target's interval
// (creep). The creep goes by the clock, not by the requests acknowledged:
// every request meets the same chance of a 429, so the faster replicas
// slow down until all go at about one pace, where a creep per request
// would let the winner keep winning. The long story and the fleet test's
// figures: docs/edge-purge.md#staying-within-the-cdns-rate-limits.

// afterRetry is the wait after a target's Retry-After d (capped): never
// less than d, as the target said not before, and up to a quarter of d
// more, drawn by Jitter. Replicas sharing an account are told the same
// Retry-After at about the same time: waiting it exactly, they would all
// come back at the instant the bucket refills, and all but one be refused
// again. More spread than that leaves the replica that met the 429 behind
// the others for long (TestFleetConvergesOnTheAccountsLimit's fair share).
func (w *worker) afterRetry(d time.Duration) time.Duration {
	d = min(d, maxRetryAfter)
	return max(d, d*3/4+w.o.Jitter(d/2))
}

// paceHalving is how long the pace takes to halve while no 429 comes: a
// replica left alone by a scale-down, or an account moved to a higher
// plan, is back at twice the rate after it.
const paceHalving = 10 * time.Minute

// maxPace caps the pace: past it, edits would wait longer than any
// plan's limit asks.
const maxPace = maxRetryAfter

// slowDown doubles the pace after a 429.
func (w *worker) slowDown(now time.Time) {
	w.setPace(min(maxPace, max(w.pace, w.lim.Interval, time.Millisecond)*2), now)
}

// drained slows the pace a little after an acknowledged request that
// took the quota's last request: the next would be a 429.
func (w *worker) drained(now time.Time) {
	w.setPace(min(maxPace, max(w.pace, w.lim.Interval)*9/8), now)
}

// creep moves the pace back towards the target's own interval after an
// acknowledged request, by the time since the pace was last set.
func (w *worker) creep(now time.Time) {
	if !w.slowed() {
		w.pacedAt = now
		return
	}
	f := math.Exp2(-float64(now.Sub(w.pacedAt)) / float64(paceHalving))
	w.setPace(max(w.lim.Interval, time.Duration(float64(w.pace)*f)), now)
}

// setPace sets the pace at now, and what Status shows of it.
func (w *worker) setPace(d time.Duration, now time.Time) {
	w.pace, w.pacedAt = d, now
	w.m.paceSet(d)
	w.mu.Lock()
	w.shownPace = d
	w.mu.Unlock()
}

// slowed says whether the target pushed back: the pace is over its own
// interval, and a round's requests are spaced by it too.
func (w *worker) slowed() bool { return w.pace > w.lim.Interval }

// slowedTo is the pace when the target pushed back, for Status; w.mu is
// held.
func (w *worker) slowedTo() time.Duration {
	if w.shownPace > w.lim.Interval {
		return w.shownPace
	}
	return 0
}

// quota is what a target's answer said of its rate limit: spent says no
// request is left in the window, which ends after reset.
type quota struct {
	spent bool
	reset time.Duration
}

type quotaKey struct{}

// withQuota makes send report the answer's rate-limit headers into q.
func withQuota(ctx context.Context, q *quota) context.Context {
	return context.WithValue(ctx, quotaKey{}, q)
}

// noteQuota reads the answer's rate-limit headers into the quota ctx
// carries, if any, and returns what they said.
func noteQuota(ctx context.Context, h http.Header, now time.Time) quota {
	q := readQuota(h, now)
	if p, ok := ctx.Value(quotaKey{}).(*quota); ok {
		*p = q
	}
	return q
}

// readQuota reads the rate-limit headers the CDNs document:
//
//   - Cloudflare: `Ratelimit: "default";r=50;t=30`, a list of limits, each
//     with the requests remaining (r) and the seconds until the window
//     resets (t); the tightest counts;
//   - the IETF draft's older RateLimit-Remaining and RateLimit-Reset
//     (seconds);
//   - Fastly: Fastly-RateLimit-Remaining, and Fastly-RateLimit-Reset in
//     UTC epoch seconds.
func readQuota(h http.Header, now time.Time) quota {
	for _, item := range strings.Split(h.Get("Ratelimit"), ",") {
		r, t := -1, -1
		for _, p := range strings.Split(item, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				continue
			}
			switch k {
			case "r":
				r = n
			case "t":
				t = n
			}
		}
		if r == 0 && t >= 0 {
			return quota{spent: true, reset: time.Duration(t) * time.Second}
		}
	}
	if h.Get("RateLimit-Remaining") == "0" {
		if n, err := strconv.Atoi(h.Get("RateLimit-Reset")); err == nil && n >= 0 {
			return quota{spent: true, reset: time.Duration(n) * time.Second}
		}
	}
	if h.Get("Fastly-RateLimit-Remaining") == "0" {
		if n, err := strconv.ParseInt(h.Get("Fastly-RateLimit-Reset"), 10, 64); err == nil {
			if d := time.Unix(n, 0).Sub(now); d > 0 {
				return quota{spent: true, reset: d}
			}
		}
	}
	return quota{}
}
