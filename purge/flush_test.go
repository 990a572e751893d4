package purge

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/internal/proctest"
)

// flushing is a purger whose Run the test stops, to Flush it after, as
// catalogd does when it is told to stop.
type flushing struct {
	*Purger
	logs *proctest.SyncBuffer
	stop func() // ends Run and waits for it
}

func newFlushing(t *testing.T, clock *fakeClock, targets ...Target) *flushing {
	t.Helper()
	logs := &proctest.SyncBuffer{}
	p := New(targets, Options{Clock: clock, Kinds: []string{"shop-index", "shop-list"}, Backoff: time.Second,
		Jitter: func(d time.Duration) time.Duration { return d }, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		p.Run(ctx)
		close(done)
	}()
	stop := func() {
		cancel()
		<-done
	}
	t.Cleanup(stop)
	return &flushing{Purger: p, logs: logs, stop: stop}
}

// flush is Flush within d.
func (f *flushing) flush(d time.Duration) int {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return f.Flush(ctx)
}

// The tags waiting for the coalescing interval when catalogd is told to
// stop are sent at once, to every target, rather than lost with the
// process.
func TestFlushSendsWhatWaits(t *testing.T) {
	varnish := newStandIn(t, func(int, recorded, http.ResponseWriter) {})
	cloudflare, _ := cloudflareStandIn(t, nil)
	v, err := NewVarnish(varnish.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	f := newFlushing(t, clock, v, NewCloudflare(cloudflare.URL+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 0, 0, nil))
	f.Add([]string{"shop-product-1", "shop-product-2"}, clock.Now())
	eventually(t, "the purger collects", func() bool { return clock.Waiting() == 2 })
	f.stop()
	if varnish.count() != 0 || cloudflare.count() != 0 {
		t.Fatalf("sent before the interval passed")
	}
	if left := f.flush(10 * time.Second); left != 0 {
		t.Errorf("Flush left %d tags", left)
	}
	if got := varnish.requests(); len(got) != 1 || got[0].Header.Get("xkey") != "shop-product-1 shop-product-2" {
		t.Errorf("Varnish received %+v, want one purge of both tags", got)
	}
	if got := cloudflare.requests(); len(got) != 1 ||
		!slices.Equal(decode[map[string][]string](t, got[0].Body)["tags"], []string{"shop-product-1", "shop-product-2"}) {
		t.Errorf("Cloudflare received %+v, want one purge of both tags", got)
	}
	if !strings.Contains(f.logs.String(), "sending the tags waiting before exit") {
		t.Errorf("the log does not say the tags are sent before exit:\n%s", f.logs.String())
	}
}

// A round cut by the stop keeps its tags: the flush sends them again
// (purging twice costs the edge nothing; not at all would leave it stale).
// A 5xx during the flush is retried after the backoff.
func TestFlushResendsACutRoundAndRetries(t *testing.T) {
	arrived := make(chan struct{})
	api := newStandIn(t, func(n int, r recorded, w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		switch n {
		case 0: // in flight when catalogd stops: never answered
			close(arrived)
			<-r.ctx.Done()
		case 1:
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"success":false,"errors":[{"code":10000,"message":"try later"}]}`)
		default:
			fmt.Fprint(w, `{"success":true,"errors":[]}`)
		}
	})
	clock := newFakeClock()
	f := newFlushing(t, clock, NewCloudflare(api.URL+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 0, 0, nil))
	f.Add([]string{"shop-product-1"}, clock.Now())
	step(t, clock, CloudflareInterval)
	<-arrived
	f.Add([]string{"shop-product-2"}, clock.Now())
	f.stop()
	if n := f.Status()[0].Pending; n != 2 {
		t.Fatalf("%d tags pending after the cut round, want 2", n)
	}
	done := make(chan int)
	go func() { done <- f.flush(10 * time.Second) }()
	eventually(t, "the 503 and the backoff", func() bool { return api.count() == 2 && clock.Waiting() == 1 })
	if d := clock.LastAsked(); d != time.Second {
		t.Errorf("the flush tried again after %v, want the backoff's 1s", d)
	}
	clock.Advance(time.Second)
	if left := <-done; left != 0 {
		t.Errorf("Flush left %d tags", left)
	}
	reqs := api.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want the cut one, the 503 and the success", len(reqs))
	}
	if tags := decode[map[string][]string](t, reqs[2].Body)["tags"]; !slices.Equal(tags, []string{"shop-product-1", "shop-product-2"}) {
		t.Errorf("the flush purged %v, want the cut round's tag and the one that waited", tags)
	}
}

// The flush is bounded: a target that keeps failing, or asks to wait past
// the time there is, is given up at once with what is left counted and
// logged, rather than holding up the exit.
func TestFlushBounded(t *testing.T) {
	api, _ := cloudflareStandIn(t, func(int) (int, http.Header, string) {
		return http.StatusTooManyRequests, http.Header{"Retry-After": {"600"}}, "Rate limited"
	})
	clock := newFakeClock()
	f := newFlushing(t, clock, NewCloudflare(api.URL+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 0, 0, nil))
	f.stop()
	f.Add([]string{"shop-product-1"}, clock.Now())
	done := make(chan int)
	go func() { done <- f.flush(time.Minute) }()
	var left int
	eventually(t, "the flush gives up", func() bool {
		select {
		case left = <-done:
			return true
		default:
			return false
		}
	})
	if left != 1 || api.count() != 1 {
		t.Errorf("Flush left %d tags after %d requests, want 1 after 1 (Retry-After 10 minutes, a minute to go)", left, api.count())
	}
	if !strings.Contains(f.logs.String(), "tags left unsent at exit") {
		t.Errorf("the log does not say tags were left:\n%s", f.logs.String())
	}
}

// After a refusal the kinds are owed (every response the lost purge
// named): a stop sends them too once the target's pause is over, and
// says they are left when it is not, rather than losing them unsaid.
func TestFlushSendsOwedKinds(t *testing.T) {
	api := newStandIn(t, func(n int, r recorded, w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		if n == 0 {
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"success":false,"errors":[{"code":10000,"message":"Authentication error"}]}`)
			return
		}
		fmt.Fprint(w, `{"success":true,"errors":[]}`)
	})
	clock := newFakeClock()
	f := newFlushing(t, clock, NewCloudflare(api.URL+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 0, 0, nil))
	f.Add([]string{"shop-product-1"}, clock.Now())
	step(t, clock, CloudflareInterval)
	eventually(t, "the refusal", func() bool { return api.count() == 1 && clock.Waiting() > 0 })
	f.stop()
	// Within the refusal's pause (a minute): left, and said.
	if left := f.flush(10 * time.Second); left != 2 || api.count() != 1 {
		t.Errorf("Flush within the pause left %d tags after %d requests, want the 2 kinds after 1", left, api.count())
	}
	if !strings.Contains(f.logs.String(), "tags left unsent at exit") {
		t.Errorf("the log does not say the owed kinds were left:\n%s", f.logs.String())
	}
	// Past it: sent.
	clock.Advance(time.Minute)
	if left := f.flush(10 * time.Second); left != 0 {
		t.Errorf("Flush past the pause left %d tags", left)
	}
	reqs := api.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the refused one and the flush", len(reqs))
	}
	if tags := decode[map[string][]string](t, reqs[1].Body)["tags"]; !slices.Equal(tags, []string{"shop-index", "shop-list"}) {
		t.Errorf("the flush purged %v, want the owed kinds", tags)
	}
}
