package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"syscall"
	"testing"
	"time"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
)

// keepAlive is a client that keeps one connection to catalogd and says
// whether each request went on a connection used before.
type keepAlive struct {
	client *http.Client
}

func newKeepAlive(t *testing.T) *keepAlive {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: 1}
	t.Cleanup(tr.CloseIdleConnections)
	return &keepAlive{client: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
}

// get is a GET of url: its status, whether the answer closed its
// connection, and whether it went on a connection used before.
func (k *keepAlive) get(t *testing.T, url string) (status int, closed, reused bool) {
	t.Helper()
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Close, reused
}

// TestStopDrainsFirst: at the first SIGTERM or Ctrl-C catalogd fails
// /readyz at once and goes on answering, on its public and admin
// listeners, closing each keep-alive connection after its next answer;
// the shop's edits still show. A second signal stops it at once, though
// the drain had minutes to go.
func TestStopDrainsFirst(t *testing.T) {
	dsn, raw := testdb.Load(t, jobsShop())
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			r := startFaulty(t, dsn, "CATALOG_SHUTDOWN_DRAIN=5m", "CATALOG_CHANGES=poll", "CATALOG_POLL_INTERVAL=100ms")
			r.waitBaseline(t)
			product := r.API + "/catalog/products/police-radar"
			k := newKeepAlive(t)
			if status, closed, _ := k.get(t, product); status != http.StatusOK || closed {
				t.Fatalf("before the stop: %d, connection closed %v; want 200 on a kept connection", status, closed)
			}

			if err := r.Cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_, why := r.waitReadyz(t, http.StatusServiceUnavailable, 10*time.Second)
			if !strings.HasPrefix(why, "not ready: shutting down\n") {
				t.Errorf("/readyz while draining: %q, want it to begin with not ready: shutting down", why)
			}
			// The connection kept from before: answered, then closed; the
			// next request comes on a new one, answered as well.
			status, closed, reused := k.get(t, product)
			if status != http.StatusOK || !closed || !reused {
				t.Errorf("draining, on the kept connection: %d, closed %v, reused %v; want 200 on it, then closed", status, closed, reused)
			}
			if status, closed, reused := k.get(t, r.API+"/catalog"); status != http.StatusOK || !closed || reused {
				t.Errorf("draining, the next request: %d, closed %v, reused %v; want 200 on a new connection, closed after", status, closed, reused)
			}
			for _, p := range []string{"/healthz", "/metrics"} {
				if status, _, err := r.Get(r.AdminURL + p); err != nil || status != http.StatusOK {
					t.Errorf("draining, admin %s: %d %v, want 200", p, status, err)
				}
			}
			editPrice(t, raw, "police-radar", "41")
			r.waitPrice(t, "police-radar", "41.00", 20*time.Second)
			editPrice(t, raw, "police-radar", "20")
			r.waitPrice(t, "police-radar", "20.00", 20*time.Second)
			if !strings.Contains(r.Stderr.String(), "draining before the stop") {
				t.Errorf("the log does not say it drains:\n%s", r.Stderr.String())
			}

			if err := r.Cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := r.exitCode(t, 30*time.Second); code != 0 {
				t.Errorf("exit code %d after a second %v, want 0; stderr:\n%s", code, sig, r.Stderr.String())
			}
		})
	}
}

// TestDrainEndsByItself: the drain over, catalogd stops as before the
// drain existed, and exits 0.
func TestDrainEndsByItself(t *testing.T) {
	dsn, _ := testdb.Load(t, jobsShop())
	r := startFaulty(t, dsn, "CATALOG_SHUTDOWN_DRAIN=1s")
	r.waitBaseline(t)
	if err := r.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := r.exitCode(t, 60*time.Second); code != 0 {
		t.Errorf("exit code %d, want 0; stderr:\n%s", code, r.Stderr.String())
	}
	log := r.Stderr.String()
	if d, s := strings.Index(log, "draining before the stop"), strings.Index(log, "shutting down"); d < 0 || s < d {
		t.Errorf("the log does not say it drained, then stopped:\n%s", log)
	}
}

// TestNoDrainBeforeReady: a replica that never became ready (its database
// does not answer) is sent nothing, so it stops at the first signal
// whatever its drain.
func TestNoDrainBeforeReady(t *testing.T) {
	r := start(t, "catalog:pw@tcp("+proctest.FreeAddr(t)+")/wordpress", "CATALOG_SHUTDOWN_DRAIN=5m")
	if err := r.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := r.exitCode(t, 30*time.Second); code != 0 {
		t.Errorf("exit code %d, want 0; stderr:\n%s", code, r.Stderr.String())
	}
	if strings.Contains(r.Stderr.String(), "draining") {
		t.Errorf("drained though never ready:\n%s", r.Stderr.String())
	}
}

// The drain's handler marks answers Connection: close only once it has
// started, and its run ends at the second signal (hurry), not at its end.
func TestDrainHandlerAndHurry(t *testing.T) {
	d := &drain{}
	srv := httptest.NewServer(d.closing(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	defer srv.Close()
	k := newKeepAlive(t)
	if _, closed, _ := k.get(t, srv.URL); closed || d.ready() != nil {
		t.Errorf("before the drain: closed %v, ready %v", closed, d.ready())
	}
	hurry, hurried := context.WithCancel(context.Background())
	hurried()
	d.run(hurry, time.Hour) // returns at once: hurry is done
	if _, closed, _ := k.get(t, srv.URL); !closed || d.ready() != errDraining {
		t.Errorf("draining: closed %v, ready %v; want closed, %v", closed, d.ready(), errDraining)
	}
}
