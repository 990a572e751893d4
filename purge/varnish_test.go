package purge

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func contextWithCancel() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

// A local server stands in for Varnish here (the end-to-end test with a
// real Varnish and the shipped VCL lives with deploy/varnish): each purge is
// PURGE / with the tags space-separated in an xkey header, every tag sent
// once, and no header past the 8 KB Varnish accepts by default.
func TestVarnishPurgeShape(t *testing.T) {
	varnish := newStandIn(t, func(_ int, _ recorded, w http.ResponseWriter) {
		fmt.Fprintln(w, "Purged 3")
	})
	target, err := NewVarnish(varnish.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	p, _ := run(t, clock, Options{}, target)

	var tags []string
	for i := range 1000 {
		tags = append(tags, fmt.Sprintf("shop-product-%d", 100000+i)) // six-digit IDs: 20 bytes
	}
	p.Add(tags, clock.Now())
	step(t, clock, VarnishInterval)
	eventually(t, "the purge acknowledged", func() bool { return p.Status()[0].LastOK.Equal(clock.Now()) })

	var got []string
	for _, r := range varnish.requests() {
		if r.Method != "PURGE" || r.Path != "/" {
			t.Errorf("request %s %s, want PURGE /", r.Method, r.Path)
		}
		xkey := r.Header.Get("xkey")
		if len(xkey) > VarnishMaxBytes || len(xkey) > 8000 {
			t.Errorf("xkey header of %d bytes, want at most %d", len(xkey), VarnishMaxBytes)
		}
		keys := strings.Split(xkey, " ")
		if len(keys) > VarnishMaxTags {
			t.Errorf("%d tags in one purge, want at most %d", len(keys), VarnishMaxTags)
		}
		got = append(got, keys...)
	}
	if !slices.Equal(got, tags) {
		t.Errorf("tags purged: %d, want the %d sent, each once, in order", len(got), len(tags))
	}
	if s := p.Status()[0]; s.Target != "varnish "+strings.TrimPrefix(varnish.URL, "http://") || s.LastErr != "" {
		t.Errorf("status %+v", s)
	}
}

// Several Varnish servers are each a target: each gets every purge.
func TestVarnishSeveral(t *testing.T) {
	clock := newFakeClock()
	var targets []Target
	var servers []*standIn
	for range 3 {
		s := newStandIn(t, func(int, recorded, http.ResponseWriter) {})
		servers = append(servers, s)
		v, err := NewVarnish(s.URL+"/ignored/path?x=1", nil)
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, v)
	}
	p, _ := run(t, clock, Options{}, targets...)
	p.Add([]string{"shop-product-7", "shop-list"}, clock.Now())
	eventually(t, "three waits", func() bool { return clock.Waiting() == 3 })
	clock.Advance(VarnishInterval)
	for i, s := range servers {
		eventually(t, "a purge at each", func() bool { return s.count() == 1 })
		if r := s.requests()[0]; r.Path != "/" || r.Header.Get("xkey") != "shop-product-7 shop-list" {
			t.Errorf("varnish %d: %s %s xkey %q", i, r.Method, r.Path, r.Header.Get("xkey"))
		}
	}
}

func TestNewVarnishRejects(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:6081", "ftp://x", "http://"} {
		if _, err := NewVarnish(u, nil); err == nil {
			t.Errorf("NewVarnish(%q): no error", u)
		}
	}
}

// A Varnish that refuses (its ACL: 403) is reported, not hammered.
func TestVarnishRefusalReported(t *testing.T) {
	varnish := newStandIn(t, func(_ int, _ recorded, w http.ResponseWriter) {
		http.Error(w, "Forbidden", http.StatusForbidden)
	})
	target, _ := NewVarnish(varnish.URL, nil)
	clock := newFakeClock()
	p, _ := run(t, clock, Options{}, target)
	p.Add([]string{"shop-product-7"}, clock.Now())
	step(t, clock, VarnishInterval)
	eventually(t, "the refusal reported", func() bool { return p.Status()[0].LastErr != "" })
	if s := p.Status()[0]; !strings.Contains(s.LastErr, "403") {
		t.Errorf("last error %q, want the 403", s.LastErr)
	}
	if r := p.Report(clock.Now()); !strings.Contains(r, "failing") || !strings.Contains(r, "403 Forbidden") {
		t.Errorf("report %q", r)
	}
	// No second request before the pause for a refusal (a minute).
	eventually(t, "the pause", func() bool { return clock.Waiting() == 1 })
	if d := clock.LastAsked(); d != time.Minute {
		t.Errorf("waits %v after a refusal, want a minute", d)
	}
	clock.Advance(59 * time.Second)
	// A worker the move woke (wrongly) would send, be refused, and wait
	// again: the count is read once it waits, not at once.
	eventually(t, "the purger waits", func() bool { return clock.Waiting() == 1 })
	if n := varnish.count(); n != 1 {
		t.Errorf("%d requests within the pause, want 1", n)
	}
}

// The secret the shipped VCL asks for goes with every purge, in
// Purge-Secret; a rotated secret file is sent from the next purge on, and
// a Varnish that refuses the old one (reloaded first) gets the new one at
// once. Without a secret, no header.
func TestVarnishSendsTheSecret(t *testing.T) {
	file := filepath.Join(t.TempDir(), "varnish-purge-secret")
	if err := os.WriteFile(file, []byte("first-secret-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := "first-secret-0123456789"
	var mu sync.Mutex
	varnish := newStandIn(t, func(_ int, r recorded, w http.ResponseWriter) {
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get(VarnishSecretHeader) != want {
			http.Error(w, "Forbidden: Purge-Secret is missing or wrong", http.StatusForbidden)
		}
	})
	secret, err := TokenFile(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	target, err := NewVarnish(varnish.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	target.WithSecret(secret)
	ctx := context.Background()
	if err := target.Purge(ctx, []string{"shop-index"}); err != nil {
		t.Fatalf("with the secret: %v", err)
	}
	// Rotated: the file first, then Varnish reloaded (want), unseen by the
	// file's stat (same size, same modification time).
	fi, _ := os.Stat(file)
	if err := os.WriteFile(file, []byte("other-secret-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(file, fi.ModTime(), fi.ModTime())
	mu.Lock()
	want = "other-secret-0123456789"
	mu.Unlock()
	if err := target.Purge(ctx, []string{"shop-index"}); err != nil {
		t.Fatalf("after the rotation: %v", err)
	}
	reqs := varnish.requests()
	if got := reqs[len(reqs)-1].Header.Get(VarnishSecretHeader); got != want {
		t.Errorf("the last purge sent %q, want the rotated secret", got)
	}

	plain, _ := NewVarnish(varnish.URL, nil)
	err = plain.Purge(ctx, []string{"shop-index"})
	reqs = varnish.requests()
	if _, sent := reqs[len(reqs)-1].Header[VarnishSecretHeader]; sent || err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("without a secret: header sent %v, error %v; want none sent and the 403", sent, err)
	}
}
