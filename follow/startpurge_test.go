package follow

import (
	"io"
	"log/slog"
	"net/http"
	"slices"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/internal/edgetest"
	"catalogd/internal/fakeclock"
	"catalogd/purge"
)

// A replica that starts with the edge listening, whatever the edge says of
// the API index, purges it by kind one Varnish interval after the first
// snapshot: the worker waits the interval, coalescing, and nothing else
// (no backoff, no pause). Only an edge not listening yet delays it: the
// refused purge waits the backoff (docs/edge-purge.md, "Starting without
// emptying the edge").
func TestStartPurgeWaitsOnlyTheInterval(t *testing.T) {
	o := Options{SiteURL: "https://shop.example", Namespace: "shop"}
	shape := func(site string) httpapi.Shape { return httpapi.Shape{Namespace: o.Namespace, SiteURL: site} }
	snap := &catalog.Snapshot{Version: 1}
	answer := func(status int, h ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			for i := 0; i+1 < len(h); i += 2 {
				w.Header().Set(h[i], h[i+1])
			}
			w.WriteHeader(status)
		}
	}
	tests := []struct {
		name  string
		index http.HandlerFunc
	}{
		{"the edge holds another snapshot's index", answer(http.StatusOK, "X-Cache", "HIT", httpapi.SnapshotHeader, "another")},
		{"the edge fetched the index for the question", answer(http.StatusOK, "X-Cache", "MISS")},
		{"the edge holds no index", nil},
		{"the edge's backend is loading", answer(http.StatusServiceUnavailable, "Retry-After", "1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edge := edgetest.NewVarnish(t)
			if tt.index != nil {
				edge.AnswerIndex(tt.index)
			}
			target, err := purge.NewVarnish(edge.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			clock := fakeclock.New(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			purger := runPurger(t, purge.New([]purge.Target{target},
				purge.Options{Kinds: httpapi.NewTags(o.Namespace).Kinds(), Logger: log, Clock: clock}))
			f := &Follower{o: o, log: log, purger: purger,
				edge: &edgeIndex{siteURL: o.SiteURL, ns: o.Namespace, log: log, shape: shape}}

			f.startPurge(snap, clock.Now())
			within(t, "the worker waits for the start purge", func() bool { return clock.Waiting() == 1 })
			if asked := clock.Asked(); !slices.Equal(asked, []time.Duration{purge.VarnishInterval}) {
				t.Fatalf("the start purge waits %v, want the interval alone (%v)", asked, purge.VarnishInterval)
			}
			clock.Advance(purge.VarnishInterval)
			within(t, "the start purge sent", func() bool { return edge.Purged(httpapi.NewTags(o.Namespace).Kinds()...) })
			if asked := clock.Asked(); len(asked) != 1 {
				t.Errorf("waits asked for around the start purge: %v, want the interval alone", asked)
			}
		})
	}
}

// within polls cond until it holds, failing the test after a deadline
// that only bounds a failure.
func within(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within a minute: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
