package varnish_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
)

// pool stands in for a Kubernetes Service in front of the replicas: each
// request goes to the next replica in it, and none answers 502.
type pool struct {
	mu       sync.Mutex
	replicas []string // host:port
	next     int
}

func (p *pool) set(replicas ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.replicas = replicas
}

func (p *pool) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	if len(p.replicas) == 0 {
		p.mu.Unlock()
		http.Error(w, "no replica", http.StatusBadGateway)
		return
	}
	to := p.replicas[p.next%len(p.replicas)]
	p.next++
	p.mu.Unlock()
	(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(&url.URL{Scheme: "http", Host: to})
		pr.Out.Host = pr.In.Host
	}}).ServeHTTP(w, r)
}

// visit is a visitor's GET through Varnish, for the site's host.
func (v *varnish) visit(t *testing.T, path string) answer {
	t.Helper()
	return v.getFor(t, "shop.example", path)
}

// TestReplicasShareTheEdge: a replica that starts beside a running one
// (a scale-up, a rolling restart) purges nothing, so the pages the edge
// holds stay hits; a replica that starts after the whole fleet was down
// while the shop changed purges, and the edge shows the change.
func TestReplicasShareTheEdge(t *testing.T) {
	s := wpfixture.New("wp_", "https://shop.example")
	s.Add(wpfixture.Product{Title: "Radar", Slug: "radar", RegularPrice: "5"})
	s.Add(wpfixture.Product{Title: "Siren", Slug: "siren", RegularPrice: "7"})
	dsn, raw := testdb.Load(t, s)
	listen, purge := proctest.FreeAddr(t), proctest.FreeAddr(t)
	service := &pool{}
	lb := httptest.NewServer(service)
	t.Cleanup(lb.Close)

	replica := func(t *testing.T) (*proctest.Catalogd, *proctest.SyncBuffer) {
		t.Helper()
		logs := &proctest.SyncBuffer{}
		cd := proctest.MustStart(t, catalogdBin, proctest.Options{DSN: dsn, Stdout: logs, Stderr: logs, Env: []string{
			"CATALOG_CHANGES=poll", "CATALOG_PURGE_VARNISH=http://" + purge, "CATALOG_ACCESS_LOG=false",
			"CATALOG_SITE_URL=https://shop.example", "CATALOG_RATE_LIMIT=1000000"}})
		if _, _, err := cd.WaitReadyz(http.StatusOK, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("catalogd's output:\n%s", logs.String())
			}
		})
		return cd, logs
	}
	// started waits until a replica has made its start-up decision and
	// sent what it decided: a purge acknowledged, or the log saying the
	// edge needed none.
	started := func(t *testing.T, cd *proctest.Catalogd, logs *proctest.SyncBuffer) bool {
		t.Helper()
		purged := false
		poll(t, "the start-up purge decided and sent", 30*time.Second, func() bool {
			m, err := cd.Metrics()
			if err != nil || m["catalogd_edge_purge_pending_tags"] > 0 {
				return false
			}
			purged = m["catalogd_edge_purge_requests_total"] > m["catalogd_edge_purge_failures_total"]
			return purged || strings.Contains(logs.String(), "nothing to purge")
		})
		return purged
	}

	a, logsA := replica(t)
	service.set(a.Public)
	v := startVarnish(t, listen, purge, lb.Listener.Addr().String())
	started(t, a, logsA) // Varnish was not up: A purged once it was

	page := api + "/products/radar"
	warm := []string{api, page, api + "/products"}
	for _, p := range warm {
		v.visit(t, p)
		if h := v.visit(t, p); h.header.Get("X-Cache") != "HIT" {
			t.Fatalf("%s: %s on the second visit, want HIT", p, h.header.Get("X-Cache"))
		}
	}

	t.Run("a second replica starts: the edge keeps its copies", func(t *testing.T) {
		b, logsB := replica(t)
		service.set(a.Public, b.Public)
		if started(t, b, logsB) {
			t.Errorf("the second replica purged the edge at start, though it holds what both answer")
		}
		for _, p := range warm {
			if h := v.visit(t, p); h.header.Get("X-Cache") != "HIT" {
				t.Errorf("%s: %s after a second replica started, want HIT (the edge was flushed)", p, h.header.Get("X-Cache"))
			}
		}
		service.set(a.Public)
		b.Stop(5 * time.Second)
	})

	t.Run("the fleet down while the price changed: the restarted replica purges", func(t *testing.T) {
		service.set()
		a.Stop(5 * time.Second)
		if _, err := raw.Exec(`UPDATE wp_postmeta m JOIN wp_posts p ON p.ID = m.post_id SET m.meta_value = '9'
			WHERE p.post_name = 'radar' AND m.meta_key IN ('_price', '_regular_price')`); err != nil {
			t.Fatal(err)
		}
		if h := v.visit(t, page); !strings.Contains(h.body, `"price":"5.00"`) {
			t.Fatalf("the edge should still hold the old page while no replica runs: %.200s", h.body)
		}
		c, logsC := replica(t)
		service.set(c.Public)
		if !started(t, c, logsC) {
			t.Errorf("the replica that started after the change purged nothing")
		}
		took := poll(t, "the new price through Varnish", 10*time.Second, func() bool {
			return strings.Contains(v.visit(t, page).body, `"price":"9.00"`)
		})
		t.Logf("replica started to the new price from Varnish: %v after its purge", took.Round(time.Millisecond))
	})
}
