package varnish_test

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"

	"catalogd/deploy/internal/proxytest"
	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
)

// load is visitors' requests sent without pause through the site, each
// with the status it must get.
type load struct {
	mu     sync.Mutex
	counts map[outcome]int
	bad    []string // the first answers not as expected
	badN   int
	total  int

	stopped  chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
}

// outcome is a kind of request and the status it got (0: no answer).
type outcome struct {
	kind   string
	status int
}

// loadRequests are the kinds of request the load sends, the n-th of each
// with its own URL: what Varnish answers from its copies, what it passes
// to catalogd (a parameter name with a percent escape, which the VCL
// cannot normalise: it stands for every cache-busting query) and what it
// misses (a new unknown product each time, a 404 it has never held).
var loadRequests = []struct {
	kind   string
	status int
	path   func(n int) string
}{
	{"cached", http.StatusOK, func(n int) string { return productPath(n % 40) }},
	{"passed", http.StatusOK, func(n int) string { return fmt.Sprintf("%s/products?per_page=5&page=%d&utm%%5Fid=%d", api, 1+n%8, n) }},
	{"missed", http.StatusNotFound, func(n int) string { return fmt.Sprintf("%s/products/no-such-script-%d", api, n) }},
}

// startLoad sends the load to site from workers goroutines, each pausing
// a little between requests, until stop.
func startLoad(site string, workers int) *load {
	l := &load{counts: map[outcome]int{}, stopped: make(chan struct{})}
	for w := range workers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			c := &http.Client{Timeout: 30 * time.Second}
			for n := w; ; n += workers {
				select {
				case <-l.stopped:
					return
				case <-time.After(10 * time.Millisecond):
				}
				r := loadRequests[n%len(loadRequests)]
				status, body, err := getOnce(c, site+r.path(n))
				l.record(r.kind, r.status, status, body, err)
			}
		}()
	}
	return l
}

func getOnce(c *http.Client, url string) (int, string, error) {
	resp, err := c.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func (l *load) record(kind string, want, status int, body string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total++
	l.counts[outcome{kind, status}]++
	if err == nil && status == want {
		return
	}
	l.badN++
	if len(l.bad) < 10 {
		l.bad = append(l.bad, fmt.Sprintf("%s: %d %v %.150s", kind, status, err, body))
	}
}

// answered is how many answers came back so far.
func (l *load) answered() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// stop ends the load and waits for its last answers.
func (l *load) stop() {
	l.stopOnce.Do(func() { close(l.stopped) })
	l.wg.Wait()
}

// fivexx counts the answers with a 5xx status.
func (l *load) fivexx() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for o, c := range l.counts {
		if o.status >= 500 {
			n += c
		}
	}
	return n
}

// TestRollingRestartUnderLoad: visitors' requests go through the shipped
// nginx and Varnish to two catalogd replicas behind a Service (a stand-in
// for kube-proxy), while the replicas are replaced one at a time as a
// Deployment's rolling update does (maxSurge 1, maxUnavailable 0): the new
// pod starts and becomes ready, then the old one is told to stop, and the
// Service takes it off its endpoints only a moment later, as kube-proxy
// learns of it. Every answer is the one expected; none is a 5xx.
func TestRollingRestartUnderLoad(t *testing.T) {
	nginx := proxytest.Binary(t, "nginx", "/usr/sbin/nginx", "nginx")
	dsn, _ := testdb.Load(t, fleetShop())
	// How late the Service drops a stopping replica, and the replicas'
	// drain: far longer, so that on a busy machine too the drain outlasts
	// what the Service takes.
	const propagation, drain = 2 * time.Second, 6 * time.Second
	svc := newService(t)
	// The fleet's edge, its Varnish in front of svc rather than the pool.
	e := newFleetEdge(t)
	replica := func() *proctest.Catalogd {
		t.Helper()
		return e.replica(t, dsn, "CATALOG_CHANGES=poll", "CATALOG_SHUTDOWN_DRAIN="+drain.String())
	}
	replicas := []*proctest.Catalogd{replica(), replica()}
	for _, cd := range replicas {
		svc.add(cd.Public)
	}
	startVarnish(t, proctest.VarnishOptions{Listen: e.listen, PurgeListen: e.purge, Backend: svc.addr, PurgeSecretFile: e.secret})
	// nginx sends catalogd's paths to Varnish, as docs/cdn-and-proxies.md
	// says; WordPress is never asked (the load asks for the API alone);
	// the load comes from one address, which the edge's rate limit would
	// refuse past 60 a minute.
	site := "http://" + proxytest.StartNginx(t, nginx, "../nginx", []string{
		"server 127.0.0.1:8080;", "server " + e.listen + ";", "server wordpress:80;", "server 127.0.0.1:9;",
		"rate=60r/m", "rate=100000r/s"},
		"catalogd-http.conf", "catalogd-upstream.conf", "catalogd-locations.conf", "catalogd-proxy.conf",
		"wordpress-location.conf", "site.conf")

	l := startLoad(site, 6)
	defer l.stop()
	poll(t, "the load answered", 30*time.Second, func() bool { return l.answered() >= 100 })
	for i, old := range replicas {
		next := replica()
		svc.add(next.Public)
		before := l.answered()
		if err := old.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		time.Sleep(propagation)
		svc.remove(old.Public)
		if code, err := old.Wait(60 * time.Second); err != nil || code != 0 {
			t.Fatalf("replica %d: exit %d, %v", i, code, err)
		}
		if l.answered() == before {
			t.Fatalf("replica %d stopped with no answer to the load meanwhile: the load did not run", i)
		}
		t.Logf("replica %d replaced; %d answers while it stopped", i, l.answered()-before)
	}
	after := l.answered()
	poll(t, "the load answered after the restart", 30*time.Second, func() bool { return l.answered() >= after+100 })
	l.stop()

	t.Logf("rollout: %d answers, %d not as expected, %d 5xx; %d connections refused at the Service; by kind and status: %v",
		l.total, l.badN, l.fivexx(), svc.refusals(), l.counts)
	if l.badN > 0 {
		t.Errorf("%d of %d answers not as expected during the rolling restart (first %d): %q", l.badN, l.total, len(l.bad), l.bad)
	}
	if n := l.fivexx(); n > 0 {
		t.Errorf("%d answers were 5xx", n)
	}
}
