package purge

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// bucket is a CDN account's purge rate limit as Cloudflare documents it: a
// token bucket, a request taking one, refilled at a steady rate.
type bucket struct {
	mu     sync.Mutex
	clock  *fakeClock
	size   int
	every  time.Duration // one token back per every
	tokens int
	at     time.Time // when the tokens were counted
}

// take takes a token if there is one; it says how many are left and how
// long until the next comes back.
func (b *bucket) take() (ok bool, left int, next time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	if b.at.IsZero() {
		b.tokens, b.at = b.size, now
	}
	if n := int(now.Sub(b.at) / b.every); n > 0 {
		b.tokens = min(b.size, b.tokens+n)
		b.at = b.at.Add(time.Duration(n) * b.every)
	}
	if b.tokens == b.size {
		b.at = now // a full bucket gains nothing while it waits
	}
	next = b.every - now.Sub(b.at)
	if b.tokens == 0 {
		return false, 0, next
	}
	b.tokens--
	return true, b.tokens, next
}

// seconds rounds up, as Retry-After and Ratelimit's t do.
func seconds(d time.Duration) string { return fmt.Sprint(int((d + time.Second - 1) / time.Second)) }

// seededJitter is replica i's jitter: at random in [d/2, d] as the
// default draws it, from a seed of its own, so that a test's draws are
// the same at every run.
func seededJitter(i int) func(time.Duration) time.Duration {
	rng := rand.New(rand.NewPCG(1, uint64(i)))
	return func(d time.Duration) time.Duration { return d/2 + time.Duration(rng.Int64N(int64(d/2)+1)) }
}

// Three replicas purge one Cloudflare account limited to 5 purges a minute
// (the Free plan's rate), each with a change a second to purge and no
// setting telling it about the others or the plan. Each learns its pace
// from the 429s and the Ratelimit headers: together they settle at the
// account's rate with few 429s, and every tag reaches the edge.
func TestFleetConvergesOnTheAccountsLimit(t *testing.T) {
	const replicas, minutes = 3, 30
	clock := newFakeClock()
	limit := &bucket{clock: clock, size: 5, every: 12 * time.Second}
	var mu sync.Mutex
	acked := map[int]bool{} // the requests the stand-in acknowledged, by index
	when := map[int]time.Time{}
	api, problems := cloudflareStandIn(t, func(n int) (int, http.Header, string) {
		ok, left, next := limit.take()
		mu.Lock()
		acked[n], when[n] = ok, clock.Now()
		mu.Unlock()
		h := http.Header{"Ratelimit": {fmt.Sprintf(`"default";r=%d;t=%s`, left, seconds(next))},
			"Ratelimit-Policy": {`"default";q=5;w=60`}}
		if !ok {
			h.Set("Retry-After", seconds(next))
			return http.StatusTooManyRequests, h, "Rate limited. Please wait and consider throttling your request speed"
		}
		return http.StatusOK, h, ""
	})

	ctx, cancel := context.WithCancel(context.Background())
	var purgers []*Purger
	var running sync.WaitGroup
	for i := range replicas {
		p := New([]Target{NewCloudflare(api.URL+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 0, 0, nil)},
			Options{Clock: clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Kinds: []string{"shop-product"},
				Jitter: seededJitter(i)})
		purgers = append(purgers, p)
		running.Go(func() { p.Run(ctx) })
	}
	t.Cleanup(func() {
		cancel()
		running.Wait()
	})

	// A change a second on every replica, each its own product's tag. The
	// time moves on once every replica waits for it: a replica the change
	// woke that had not asked for its wait yet would ask it of the next
	// second, and the test wait for it forever.
	added := map[string]bool{}
	for s := 0; s < minutes*60; s++ {
		for i, p := range purgers {
			tag := fmt.Sprintf("shop-product-%d", i*100_000+s)
			added[tag] = true
			p.Add([]string{tag}, clock.Now())
		}
		eventually(t, "every replica waits", func() bool { return clock.Waiting() == replicas })
		clock.Advance(time.Second)
	}
	// The replicas stop (a scale-down): each sends what waits, as
	// catalogd's stop does, while the account's limit still holds.
	cancel()
	running.Wait()
	clock.Forget() // the stopped workers' waits
	var flushing atomic.Int32
	stopped, stop := context.WithCancel(context.Background())
	t.Cleanup(stop) // before the wait above: a failure ends the flushes
	for _, p := range purgers {
		flushing.Add(1)
		running.Go(func() {
			defer flushing.Add(-1)
			p.Flush(stopped)
		})
	}
	for i := 0; flushing.Load() > 0; i++ {
		if i > 3600 {
			for _, p := range purgers {
				t.Logf("%+v", p.Status())
			}
			t.Fatalf("tags still waiting an hour after the changes stopped")
		}
		eventually(t, "every flush waits or ends", func() bool { return clock.Waiting() == int(flushing.Load()) })
		if flushing.Load() > 0 {
			clock.Advance(time.Second)
		}
	}
	running.Wait()

	// Every tag was acknowledged, and the rate in the last 10 minutes of
	// changes is the account's, with few 429s.
	mu.Lock()
	defer mu.Unlock()
	start := newFakeClock().Now()
	from := start.Add((minutes - 10) * time.Minute)
	to := start.Add(minutes * time.Minute)
	var ok, refused, okAll, refusedAll int
	purged := map[string]bool{}
	each := make([]int, replicas) // acknowledged in the last 10 minutes, by replica
	for n, r := range api.requests() {
		if acked[n] {
			okAll++
			for _, tag := range decode[map[string][]string](t, r.Body)["tags"] {
				purged[tag] = true
			}
		} else {
			refusedAll++
		}
		if w := when[n]; !w.Before(from) && w.Before(to) {
			if acked[n] {
				ok++
				var id int
				fmt.Sscanf(decode[map[string][]string](t, r.Body)["tags"][0], "shop-product-%d", &id)
				each[id/100_000]++
			} else {
				refused++
			}
		}
	}
	missing := 0
	for tag := range added {
		if !purged[tag] {
			missing++
		}
	}
	t.Logf("%d minutes, %d replicas: %d requests acknowledged, %d refused (429); the last 10 minutes: %.1f purges a minute (by replica %v), %d 429s (%.1f%%)",
		minutes, replicas, okAll, refusedAll, float64(ok)/10, each, refused, 100*float64(refused)/float64(max(1, ok+refused)))
	for i, n := range each {
		// The fair share is 50/3 requests in 10 minutes: none starves
		// (the pace evens out by the 429s and drained quotas each meets).
		if n < 5 {
			t.Errorf("replica %d had %d of the last 10 minutes' %d purges: starved by the others", i, n, ok)
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d tags never acknowledged", missing, len(added))
	}
	if rate := float64(ok) / 10; rate < 4 || rate > 5.5 {
		t.Errorf("the last 10 minutes: %.1f purges a minute, want the account's 5", rate)
	}
	if share := float64(refused) / float64(max(1, ok+refused)); share > 0.15 {
		t.Errorf("the last 10 minutes: %d of %d requests refused (429), want few once the pace is learnt", refused, ok+refused)
	}
	if problems.any() {
		t.Errorf("requests Cloudflare's API would refuse: %v", problems.list())
	}
}

// Replicas sharing an account are refused together and told the same
// Retry-After: each comes back no sooner than it says, and not at the
// same instant as the others, which would all meet the bucket as it
// refills and all but one be refused again.
func TestReplicasToldTheSameRetryAfterComeBackSpread(t *testing.T) {
	const replicas, retryAfter = 5, 3 * time.Second
	clock := newFakeClock()
	refuseUntil := clock.Now().Add(CloudflareInterval) // the first round of each
	var mu sync.Mutex
	when := map[int]time.Time{}
	api, problems := cloudflareStandIn(t, func(n int) (int, http.Header, string) {
		mu.Lock()
		when[n] = clock.Now()
		mu.Unlock()
		if !clock.Now().After(refuseUntil) {
			return http.StatusTooManyRequests, http.Header{"Retry-After": {seconds(retryAfter)}}, "Rate limited"
		}
		return http.StatusOK, nil, ""
	})
	var purgers []*Purger
	for i := range replicas {
		p, _ := run(t, clock, Options{Jitter: seededJitter(i)},
			NewCloudflare(api.URL+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 0, 0, nil))
		p.Add([]string{fmt.Sprintf("shop-product-%d", i)}, clock.Now())
		purgers = append(purgers, p)
	}
	acked := func() int {
		n := 0
		for _, p := range purgers {
			if s := p.Status()[0]; !s.LastOK.IsZero() && s.LastErr == "" {
				n++
			}
		}
		return n
	}
	// The clock moves to each wait's end in turn, once every replica waits
	// or is done: each request is seen at the instant its wait ended.
	for acked() < replicas {
		eventually(t, "every replica waits or is done", func() bool { return clock.Waiting()+acked() == replicas })
		if d, ok := clock.UntilNext(); ok {
			clock.Advance(d)
		}
		if clock.Now().Sub(refuseUntil) > time.Minute {
			t.Fatalf("%d of %d replicas acknowledged a minute after the 429s", acked(), replicas)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	back := map[time.Duration]int{} // the replica that came back that long after its 429
	retried := 0
	for n, r := range api.requests() {
		var i int
		fmt.Sscanf(decode[map[string][]string](t, r.Body)["tags"][0], "shop-product-%d", &i)
		if at := when[n]; at.After(refuseUntil) {
			after := at.Sub(refuseUntil)
			if after < retryAfter || after > retryAfter*5/4 {
				t.Errorf("replica %d came back %v after Retry-After: %v, want between it and a quarter of it more", i, after, retryAfter)
			}
			if j, ok := back[after]; ok {
				t.Errorf("replicas %d and %d came back at the same instant, %v after Retry-After: %v", j, i, after, retryAfter)
			}
			back[after] = i
			retried++
		}
	}
	if retried != replicas {
		t.Errorf("%d requests after the 429s, want one from each of the %d replicas", retried, replicas)
	}
	t.Logf("came back after Retry-After: %v: %v", retryAfter, back)
	if problems.any() {
		t.Errorf("requests Cloudflare's API would refuse: %v", problems.list())
	}
}

// Without a Jitter set (as catalogd runs), the wait past a Retry-After is
// drawn at random between it and a quarter of it more: never sooner, and not
// the same for every replica.
func TestRetryAfterSpreadByDefault(t *testing.T) {
	target, err := NewVarnish("http://127.0.0.1:6091", nil) // never sent to
	if err != nil {
		t.Fatal(err)
	}
	w := New([]Target{target}, Options{}).workers[0]
	for _, told := range []time.Duration{time.Second, 3 * time.Second, time.Hour} {
		capped := min(told, maxRetryAfter)
		seen := map[time.Duration]bool{}
		for range 200 {
			d := w.afterRetry(told)
			if d < capped || d > capped*5/4 {
				t.Fatalf("Retry-After: %v: waits %v, want between %v and %v", told, d, capped, capped*5/4)
			}
			seen[d] = true
		}
		if len(seen) < 100 {
			t.Errorf("Retry-After: %v: %d different waits in 200 draws, want them spread", told, len(seen))
		}
	}
}
