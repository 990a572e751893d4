package purge

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"catalogd/internal/fakeclock"
	"catalogd/internal/proctest"
)

// fakeClock is moved by the test: a wait ends when Advance passes it, so
// no test depends on how fast the machine is.
type fakeClock = fakeclock.Clock

func newFakeClock() *fakeClock {
	return fakeclock.New(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
}

// eventually polls cond until it holds, failing the test after a deadline
// generous enough for a loaded machine: under make test's -race, beside
// the other packages' compiles and servers on two cores, a worker went
// unscheduled for over 10 s once. The deadline only bounds a failure.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	const within = time.Minute
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(time.Millisecond)
	}
}

// recorded is one request a stand-in received.
type recorded struct {
	Method, Path string
	Header       http.Header
	Body         []byte
	ctx          context.Context // the request's: done when the client gave up
}

// standIn is a local HTTP server in place of a cache or a CDN's API: it
// records every request and answers with what answer returns for it.
type standIn struct {
	*httptest.Server
	mu     sync.Mutex
	reqs   []recorded
	answer func(n int, r recorded, w http.ResponseWriter) // n: the request's index
}

func newStandIn(t *testing.T, answer func(n int, r recorded, w http.ResponseWriter)) *standIn {
	t.Helper()
	s := &standIn{answer: answer}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec := recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, ctx: r.Context()}
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, rec)
		s.mu.Unlock()
		s.answer(n, rec, w)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *standIn) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.reqs...)
}

func (s *standIn) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// run starts a purger for the targets on a fake clock, with the jitter off
// unless o.Jitter is set (each wait is the full backoff), and a log kept
// in a buffer.
func run(t *testing.T, clock *fakeClock, o Options, targets ...Target) (*Purger, *proctest.SyncBuffer) {
	t.Helper()
	logs := &proctest.SyncBuffer{}
	o.Clock = clock
	o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if o.Jitter == nil {
		o.Jitter = func(d time.Duration) time.Duration { return d }
	}
	if o.Kinds == nil {
		o.Kinds = []string{"shop-index", "shop-categories", "shop-list", "shop-product", "shop-docs"}
	}
	p := New(targets, o)
	done := make(chan struct{})
	ctx, cancel := contextWithCancel()
	go func() {
		p.Run(ctx)
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return p, logs
}

// step lets the purger's next wait end: it waits until the worker waits,
// then moves the clock by d.
func step(t *testing.T, clock *fakeClock, d time.Duration) {
	t.Helper()
	eventually(t, "the purger waits", func() bool { return clock.Waiting() > 0 })
	clock.Advance(d)
}

func decode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("body %q: %v", b, err)
	}
	return v
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// problems are what a stand-in found wrong in the requests it received.
type problems struct {
	mu sync.Mutex
	l  []string
}

func (p *problems) add(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.l = append(p.l, s)
}

func (p *problems) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.l...)
}

func (p *problems) any() bool { return len(p.list()) > 0 }
