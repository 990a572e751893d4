package varnish_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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

// startDecided waits until a replica has made its start-up decision and
// sent what it decided: a purge acknowledged, or its log saying the edge
// needed none; it says whether it purged.
func startDecided(t *testing.T, cd *proctest.Catalogd) bool {
	t.Helper()
	purged := false
	poll(t, "the start-up purge decided and sent", 30*time.Second, func() bool {
		m, err := cd.Metrics()
		if err != nil || m["catalogd_edge_purge_pending_tags"] > 0 {
			return false
		}
		purged = m["catalogd_edge_purge_requests_total"] > m["catalogd_edge_purge_failures_total"]
		return purged || strings.Contains(cd.Stderr.String(), "nothing to purge")
	})
	return purged
}

// visit is a visitor's GET through Varnish, for the site's host.
func (v *varnish) visit(t *testing.T, path string) answer {
	t.Helper()
	return v.getFor(t, "shop.example", path)
}

// fleetEdge is one Varnish with the shipped VCL in front of the pool of a
// fleet's replicas, which purge it with its secret.
type fleetEdge struct {
	pool                             *pool
	lb                               string // the pool's address, Varnish's backend
	listen, purge, secret, secretEnv string
}

func newFleetEdge(t *testing.T) *fleetEdge {
	t.Helper()
	e := &fleetEdge{pool: &pool{}, listen: proctest.FreeAddr(t), purge: proctest.FreeAddr(t)}
	lb := httptest.NewServer(e.pool)
	t.Cleanup(lb.Close)
	e.lb = lb.Listener.Addr().String()
	e.secret, e.secretEnv = purgeSecret(t)
	return e
}

// replica starts a catalogd of the fleet on dsn, purging the edge, with
// more settings, and waits until it is ready; its log is its Stderr.
func (e *fleetEdge) replica(t *testing.T, dsn string, env ...string) *proctest.Catalogd {
	t.Helper()
	cd := proctest.MustStart(t, catalogdBin, proctest.Options{DSN: dsn, Env: append([]string{
		"CATALOG_PURGE_VARNISH=http://" + e.purge, e.secretEnv, "CATALOG_ACCESS_LOG=false",
		"CATALOG_SITE_URL=https://shop.example", "CATALOG_RATE_LIMIT=1000000"}, env...)})
	if _, _, err := cd.WaitReadyz(http.StatusOK, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("catalogd %s's log:\n%s", cd.Public, cd.Stderr.String())
		}
	})
	return cd
}

// start starts Varnish, once the pool has a replica (its probe would
// find none), each edit given applied to the VCL's text first.
func (e *fleetEdge) start(t *testing.T, edits ...string) *varnish {
	t.Helper()
	return startVarnish(t, proctest.VarnishOptions{Listen: e.listen, PurgeListen: e.purge, Backend: e.lb,
		PurgeSecretFile: e.secret, Edits: edits})
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
	e := newFleetEdge(t)
	replica := func(t *testing.T) *proctest.Catalogd { return e.replica(t, dsn, "CATALOG_CHANGES=poll") }
	service := e.pool

	a := replica(t)
	service.set(a.Public)
	v := e.start(t)
	startDecided(t, a) // Varnish was not up: A purged once it was

	page := api + "/products/radar"
	warm := []string{api, page, api + "/products"}
	for _, p := range warm {
		v.visit(t, p)
		if h := v.visit(t, p); h.header.Get("X-Cache") != "HIT" {
			t.Fatalf("%s: %s on the second visit, want HIT", p, h.header.Get("X-Cache"))
		}
	}

	t.Run("a second replica starts: the edge keeps its copies", func(t *testing.T) {
		b := replica(t)
		service.set(a.Public, b.Public)
		if startDecided(t, b) {
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
		c := replica(t)
		service.set(c.Public)
		if !startDecided(t, c) {
			t.Errorf("the replica that started after the change purged nothing")
		}
		took := poll(t, "the new price through Varnish", 10*time.Second, func() bool {
			return strings.Contains(v.visit(t, page).body, `"price":"9.00"`)
		})
		t.Logf("replica started to the new price from Varnish: %v after its purge", took.Round(time.Millisecond))
	})
}

// TestFleet runs a fleet as docs/operations.md's "Running a fleet" lays it
// out, everything real but the Kubernetes Service (pool stands in for it,
// dropping a replica before it is stopped, as the endpoints controller
// does for a terminating pod).

// fleetShop is 40 products in 5 categories, each with a managed stock.
func fleetShop() *wpfixture.Shop {
	s := wpfixture.New("wp_", "https://shop.example")
	for i := range 5 {
		s.Category(fmt.Sprintf("Kind %d", i), fmt.Sprintf("kind-%d", i), "", i)
	}
	for i := range 40 {
		stock := 1 + i%3
		s.Add(wpfixture.Product{Title: fmt.Sprintf("Server script %05d", i), RegularPrice: fmt.Sprintf("%d.99", 5+i),
			Categories: []string{fmt.Sprintf("kind-%d", i%5)}, Frameworks: []string{"esx"}, Stock: &stock})
	}
	return s
}

// TestFleet: three catalogd replicas (one reading the primary's binary
// log, one the database replica's, one polling the database replica)
// behind one Varnish, scaled 1 → 3 → 1 while the shop is edited. Every
// edit is fresh at Varnish soon after it reaches the database; a
// scale-up keeps what Varnish holds; after replicas leave, a shop-wide
// change still reaches every answer they filled; no answer is a 5xx. The
// figures are logged with the prefix "fleet:", for make bench.
func TestFleet(t *testing.T) {
	primary := testdb.NewServer(t)
	dsn, raw := testdb.LoadOn(t, primary.DSN(), fleetShop())
	replica := testdb.NewReplica(t, primary, 2, "--log-slave-updates")
	replica.CaughtUp(t, primary)
	ops := &wpfixture.Ops{DB: raw, Prefix: "wp_"}

	e := newFleetEdge(t)
	svc := e.pool
	member := func(dsn string, env ...string) *proctest.Catalogd { return e.replica(t, dsn, env...) }
	a := member(dsn, "CATALOG_CHANGES=binlog")
	svc.set(a.Public)
	v := e.start(t)
	purgesSettled(t, a)

	every := []string{api, api + "/categories", api + "/products?per_page=20&page=1",
		api + "/products?per_page=20&page=2", api + "/products/no-such-script"}
	for i := range 40 {
		every = append(every, productPath(i))
	}
	var fivexx atomic.Int64
	get := func(p string) answer {
		a := v.get(t, p)
		if a.status >= 500 {
			fivexx.Add(1)
			t.Errorf("%s: %d %.200s", p, a.status, a.body)
		}
		return a
	}
	warm := func() {
		for _, p := range every {
			get(p)
		}
	}
	hits := func() int {
		n := 0
		for _, p := range every {
			if get(p).header.Get("X-Cache") == "HIT" {
				n++
			}
		}
		return n
	}

	// Scale up, on a busy shop: a price changed a moment ago (which no
	// list count shows), and two replicas reading the database replica
	// join.
	warm()
	if err := ops.EditPrice(context.Background(), productID(t, raw, 10), "66", ""); err != nil {
		t.Fatal(err)
	}
	poll(t, "the price edit before the scale-up fresh at Varnish", 20*time.Second, func() bool {
		return strings.Contains(get(productPath(10)).body, `"price":"66.00"`)
	})
	purgesSettled(t, a)
	// The edit purged the index too (it names the snapshot); no visitor
	// asks for it again here: catalogd's refill after its purge does.
	for _, p := range every[1:] {
		get(p)
	}
	replica.CaughtUp(t, primary)
	b := member(replica.On(t, dsn), "CATALOG_CHANGES=binlog")
	c := member(replica.On(t, dsn), "CATALOG_CHANGES=poll", "CATALOG_POLL_INTERVAL=250ms")
	for _, cd := range []*proctest.Catalogd{b, c} {
		if startDecided(t, cd) {
			t.Errorf("%s purged the edge at start, though it holds what the running replica answers", cd.Public)
		}
	}
	svc.set(a.Public, b.Public, c.Public)
	ratio := float64(hits()) / float64(len(every))
	t.Logf("fleet: hit ratio across the scale-up 1 → 3: %.3f (%d answers)", ratio, len(every))
	if ratio < 0.9 {
		t.Errorf("hit ratio across the scale-up %.3f, want at least 0.9: starting replicas purged what was still right", ratio)
	}

	// A stream of edits while three replicas serve: each is fresh at
	// Varnish, and stays so once every replica applied it.
	warm()
	ctx := context.Background()
	edits := []struct {
		name, path, fresh string
		do                func() error
	}{
		{"price", productPath(3), `"price":"77.00"`, func() error { return ops.EditPrice(ctx, productID(t, raw, 3), "77", "") }},
		{"stock", productPath(6), `"in_stock":false`, func() error { return ops.OrderReducesStock(ctx, productID(t, raw, 6), 1) }},
		{"category rename", api + "/categories", "Renamed kind", func() error { return ops.RenameCategory(ctx, "kind-2", "Renamed kind") }},
		{"shop name", api, `"name":"Fleet Shop"`, func() error { return ops.UpdateOption(ctx, "blogname", "Fleet Shop") }},
	}
	var took []time.Duration
	for _, e := range edits {
		if err := e.do(); err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		d := poll(t, e.name+" fresh at Varnish", 20*time.Second, func() bool { return strings.Contains(get(e.path).body, e.fresh) })
		took = append(took, d)
		t.Logf("fleet: %s: commit on the primary to a fresh answer at Varnish: %v", e.name, d.Round(time.Millisecond))
	}
	slices.Sort(took)
	t.Logf("fleet: edits fresh at Varnish: median %v, max %v", took[len(took)/2].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond))
	// Every replica applied every edit (a fetch Varnish sent to one that
	// had not yet is purged by that one's own apply), and purged it.
	for _, cd := range []*proctest.Catalogd{a, b, c} {
		for _, e := range edits {
			poll(t, e.name+" applied by "+cd.Public, 20*time.Second, func() bool {
				_, body, err := cd.Get("http://" + cd.Public + e.path)
				return err == nil && strings.Contains(body, e.fresh)
			})
		}
		purgesSettled(t, cd)
	}
	for _, e := range edits {
		if body := get(e.path).body; !strings.Contains(body, e.fresh) {
			t.Errorf("%s: stale at Varnish once every replica applied it: %.200s", e.name, body)
		}
	}

	// Scale down: b and c fill answers, then leave; a shop-wide change
	// made after must reach what they filled.
	warm()
	svc.set(a.Public)
	for _, cd := range []*proctest.Catalogd{b, c} {
		cd.Stop(20 * time.Second)
	}
	if err := ops.SaveSettings(ctx, [2]string{"woocommerce_currency", "EUR"}); err != nil {
		t.Fatal(err)
	}
	poll(t, "the new currency at Varnish", 20*time.Second, func() bool { return strings.Contains(get(api).body, `"currency":"EUR"`) })
	purgesSettled(t, a)
	var stale []string
	for _, p := range every {
		if strings.Contains(get(p).body, `"currency":"USD"`) {
			stale = append(stale, p)
		}
	}
	t.Logf("fleet: answers stale after replicas left and the currency changed: %d of %d", len(stale), len(every))
	if len(stale) > 0 {
		t.Errorf("still in the old currency at Varnish: %v", stale)
	}
	t.Logf("fleet: 5xx answers: %d", fivexx.Load())
}

// productID is the post ID of the fleet shop's i-th product.
func productID(t *testing.T, raw *sql.DB, i int) int64 {
	t.Helper()
	var id int64
	if err := raw.QueryRow("SELECT ID FROM wp_posts WHERE post_name = ?", fmt.Sprintf("server-script-%05d", i)).Scan(&id); err != nil {
		t.Fatalf("product %d: %v", i, err)
	}
	return id
}

// TestQuietShopScaleUp: on a shop where nothing changed for longer than
// the edge keeps an answer (s-maxage), and no visitor asked for the API
// index meanwhile, a replica the autoscaler starts still finds the edge's
// copy of the index, which catalogd keeps fetched, and purges nothing.
func TestQuietShopScaleUp(t *testing.T) {
	s := wpfixture.New("wp_", "https://shop.example")
	s.Add(wpfixture.Product{Title: "Radar", Slug: "radar", RegularPrice: "5"})
	dsn, _ := testdb.Load(t, s)
	e := newFleetEdge(t)
	// keepWarm asks every half of it, 2 s: a refill then has 2 s and the
	// grace to land before the copy expires, on a busy machine too.
	const sMaxAge = 4 * time.Second
	replica := func() *proctest.Catalogd {
		t.Helper()
		return e.replica(t, dsn, "CATALOG_CHANGES=poll", "CATALOG_S_MAXAGE="+sMaxAge.String(),
			"CATALOG_STALE_WHILE_REVALIDATE=1s")
	}
	a := replica()
	e.pool.set(a.Public)
	// The grace the VCL gives a healthy catalogd's answers past their
	// lifetime (60 s, its --stale-while-revalidate) shortened as that
	// setting would be, so that the test need not wait a minute.
	v := e.start(t, "set req.grace = 60s;", "set req.grace = 1s;")
	startDecided(t, a)
	v.visit(t, api)
	// Three lifetimes go by with no change and no visitor of the index.
	idle := time.Now()
	for time.Since(idle) < 3*sMaxAge {
		v.visit(t, api+"/products/radar")
		time.Sleep(100 * time.Millisecond)
	}
	b := replica()
	if startDecided(t, b) {
		t.Errorf("a replica started on a quiet shop purged the edge: the index had expired there\n%s", b.Stderr.String())
	}
}
