package purge

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// value reads a counter.
func value(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// series counts the series of a metric family in reg.
func series(t *testing.T, reg *prometheus.Registry, name string) int {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return len(f.GetMetric())
		}
	}
	return 0
}

func TestBatches(t *testing.T) {
	tags := []string{"aaaa", "bbbb", "cccc", "dddd", "eeee"} // 5 bytes each with a separator
	for _, tt := range []struct {
		name string
		lim  Limits
		want []int
	}{
		{"by count", Limits{MaxTags: 2}, []int{2, 2, 1}},
		{"all in one", Limits{MaxTags: 10}, []int{5}},
		{"by bytes", Limits{MaxTags: 10, MaxBytes: 11}, []int{2, 2, 1}},
		{"one over the bytes alone", Limits{MaxTags: 10, MaxBytes: 3}, []int{1, 1, 1, 1, 1}},
		{"count before bytes", Limits{MaxTags: 3, MaxBytes: 100}, []int{3, 2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var sizes []int
			var all []string
			for _, b := range batches(tags, tt.lim) {
				sizes = append(sizes, len(b))
				all = append(all, b...)
			}
			if !slices.Equal(sizes, tt.want) || !slices.Equal(all, tags) {
				t.Errorf("batches %v (%v), want sizes %v of every tag in order", sizes, all, tt.want)
			}
		})
	}
}

// A burst of 500 changes in one second — saves to 50 products, each
// change naming its product and, one in ten, the lists — becomes a few
// requests per target, never one per change, and every tag is purged.
func TestBurstCoalesced(t *testing.T) {
	ok := func(int) (int, http.Header, string) { return http.StatusOK, nil, "" }
	varnish := newStandIn(t, func(int, recorded, http.ResponseWriter) {})
	fastly, _ := fastlyStandIn(t, ok)
	cloudflare, _ := cloudflareStandIn(t, ok)
	v, _ := NewVarnish(varnish.URL, nil)
	targets := []Target{v, NewFastly(fastly.URL, fastlyService, FixedToken(fastlyToken), false, nil),
		NewCloudflare(cloudflare.URL+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 0, 0, nil)}
	clock := newFakeClock()
	p, _ := run(t, clock, Options{}, targets...)

	want := map[string]bool{}
	const changes, every = 500, 2 * time.Millisecond
	for i := range changes {
		tags := []string{fmt.Sprintf("shop-product-%d", 100+i%50)}
		if i%10 == 0 {
			tags = append(tags, "shop-list", "shop-index")
		}
		for _, tag := range tags {
			want[tag] = true
		}
		p.Add(tags, clock.Now())
		// Every worker has tags now, so each waits for its round (or
		// will, once the round it sends is acknowledged): the time
		// moves on only then, as it would while they wait.
		eventually(t, "the workers wait", func() bool { return clock.Waiting() == len(targets) })
		clock.Advance(every) // 500 × 2ms: one second
	}
	// Let every round still waiting go out: the time moves on, a second
	// at each look, until every target purged every tag.
	stands := []*standIn{varnish, fastly, cloudflare}
	purgedAll := func(s *standIn) bool {
		got := map[string]bool{}
		for _, r := range s.requests() {
			for _, tag := range tagsOf(t, r) {
				got[tag] = true
			}
		}
		return len(got) == len(want)
	}
	eventually(t, "every target purged every tag", func() bool {
		clock.Advance(time.Second)
		for _, s := range stands {
			if !purgedAll(s) {
				return false
			}
		}
		return true
	})
	for i, s := range stands {
		name := targets[i].Name()
		// Rounds are at least the target's interval apart: one second of
		// changes is at most 1s/interval rounds and the one after; each
		// round's 52 tags fit one request.
		limit := int(time.Second/targets[i].Limits().Interval) + 1
		if n := s.count(); n > limit {
			t.Errorf("%s: %d requests for %d changes in a second, want at most %d", name, n, changes, limit)
		} else {
			t.Logf("%s: %d requests for %d changes in a second", name, n, changes)
		}
	}
}

func tagsOf(t *testing.T, r recorded) []string {
	t.Helper()
	if x := r.Header.Get("xkey"); x != "" {
		return strings.Fields(x)
	}
	b := decode[map[string][]string](t, r.Body)
	return append(b["surrogate_keys"], b["tags"]...)
}

// Add never blocks, even while a target hangs; what waits is bounded, and
// past the bound it collapses to the kind tags, which purge every response
// — nothing is dropped without a purge that covers it.
func TestOverflowCollapsesToKinds(t *testing.T) {
	release := make(chan struct{})
	varnish := newStandIn(t, func(n int, _ recorded, w http.ResponseWriter) {
		if n == 0 {
			<-release // the first purge hangs
		}
	})
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	v, _ := NewVarnish(varnish.URL, nil)
	reg := prometheus.NewRegistry()
	clock := newFakeClock()
	p, logs := run(t, clock, Options{MaxPending: 100, Metrics: NewMetrics(reg)}, v)
	p.Add([]string{"shop-product-1"}, clock.Now())
	step(t, clock, VarnishInterval)
	eventually(t, "the first purge hangs", func() bool { return varnish.count() == 1 })

	start := time.Now()
	for i := range 1000 {
		p.Add([]string{fmt.Sprintf("shop-product-%d", 1000+i)}, clock.Now())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("1000 Adds took %v while the target hangs", took)
	}
	if s := p.Status()[0]; s.Pending != 5 {
		t.Errorf("%d tags waiting after the overflow, want the 5 kinds", s.Pending)
	}
	if got := value(t, p.workers[0].m.m.kinds.WithLabelValues(v.Name(), "overflow")); got != 1 {
		t.Errorf("kind purges for overflow = %v, want 1", got)
	}
	if !strings.Contains(logs.String(), "too many tags waiting") {
		t.Errorf("the collapse is not logged:\n%s", logs.String())
	}
	close(release)
	step(t, clock, VarnishInterval)
	eventually(t, "the kinds purged", func() bool { return varnish.count() == 2 })
	got := strings.Fields(varnish.requests()[1].Header.Get("xkey"))
	if want := []string{"shop-index", "shop-categories", "shop-list", "shop-product", "shop-docs"}; !slices.Equal(got, want) {
		t.Errorf("after the overflow, purged %v, want the kinds %v", got, want)
	}
}

// PurgeKinds (at start, after the feed lost its place) purges every kind at
// every target, counted by why.
func TestPurgeKinds(t *testing.T) {
	reg := prometheus.NewRegistry()
	a := newStandIn(t, func(int, recorded, http.ResponseWriter) {})
	b := newStandIn(t, func(int, recorded, http.ResponseWriter) {})
	va, _ := NewVarnish(a.URL, nil)
	vb, _ := NewVarnish(b.URL, nil)
	clock := newFakeClock()
	p, _ := run(t, clock, Options{Metrics: NewMetrics(reg), Kinds: []string{"acme-index", "acme-list"}}, va, vb)
	p.PurgeKinds("start", clock.Now())
	eventually(t, "both wait", func() bool { return clock.Waiting() == 2 })
	clock.Advance(VarnishInterval)
	for _, s := range []*standIn{a, b} {
		eventually(t, "a purge", func() bool { return s.count() == 1 })
		if x := s.requests()[0].Header.Get("xkey"); x != "acme-index acme-list" {
			t.Errorf("xkey %q, want the kinds", x)
		}
	}
	if got := value(t, p.workers[0].m.m.kinds.WithLabelValues(va.Name(), "start")); got != 1 {
		t.Errorf("kind purges at start = %v", got)
	}
	// Both workers record their request after the stand-in answered it:
	// wait for both acknowledgements, not the stand-ins' counts.
	eventually(t, "acknowledged", func() bool {
		st := p.Status()
		return !st[0].LastOK.IsZero() && !st[1].LastOK.IsZero()
	})
	if n := series(t, reg, "catalogd_edge_purge_lag_seconds"); n != 2 {
		t.Errorf("lag series: %d, want one per target", n)
	}
	if got := value(t, p.workers[0].m.m.requests.WithLabelValues(va.Name())); got != 1 {
		t.Errorf("requests = %v", got)
	}
	if got := value(t, p.workers[0].m.m.tags.WithLabelValues(va.Name())); got != 2 {
		t.Errorf("tags = %v", got)
	}
}

// No target: the report says so, and nothing runs.
func TestNoTarget(t *testing.T) {
	p := New(nil, Options{})
	p.Add([]string{"x"}, time.Now())
	p.PurgeKinds("start", time.Now())
	if r := p.Report(time.Now()); !strings.Contains(r, "no target configured") {
		t.Errorf("report %q", r)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"": 0, "7": 7 * time.Second, " 120 ": 2 * time.Minute, "-1": 0, "soon": 0,
		"Wed, 25 Nov 2026 12:00:30 GMT": 30 * time.Second, "Wed, 25 Nov 2026 11:00:00 GMT": 0,
	} {
		if got := retryAfter(in, now); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

// Through an outage the pending set stays collapsed: one collapse, one
// warning, however many rounds fail and tags arrive.
func TestOverflowStaysCollapsedThroughAnOutage(t *testing.T) {
	varnish := newStandIn(t, func(_ int, _ recorded, w http.ResponseWriter) {
		http.Error(w, "backend fetch failed", http.StatusServiceUnavailable)
	})
	v, _ := NewVarnish(varnish.URL, nil)
	reg := prometheus.NewRegistry()
	clock := newFakeClock()
	p, logs := run(t, clock, Options{MaxPending: 100, Metrics: NewMetrics(reg), Backoff: time.Second}, v)
	for round := range 3 {
		for i := range 150 {
			p.Add([]string{fmt.Sprintf("shop-product-%d", round*1000+i)}, clock.Now())
		}
		eventually(t, "the purger waits", func() bool { return clock.Waiting() > 0 })
		clock.Advance(clock.LastAsked()) // the interval, then the backoffs
		eventually(t, "a failed round", func() bool { return varnish.count() == round+1 })
		eventually(t, "the failure put back", func() bool { return p.Status()[0].Pending == 5 })
	}
	if got := value(t, p.workers[0].m.m.kinds.WithLabelValues(v.Name(), "overflow")); got != 1 {
		t.Errorf("kind purges for overflow = %v through one outage, want 1", got)
	}
	if n := strings.Count(logs.String(), "too many tags waiting"); n != 1 {
		t.Errorf("the collapse logged %d times, want once:\n%s", n, logs.String())
	}
	for _, r := range varnish.requests()[1:] {
		if x := r.Header.Get("xkey"); x != "shop-index shop-categories shop-list shop-product shop-docs" {
			t.Errorf("a round during the outage sent %q, want the kinds", x)
		}
	}
}

// acknowledgedFunc is a func as an Acknowledger.
type acknowledgedFunc func(t Target, tags []string)

func (f acknowledgedFunc) Acknowledged(t Target, tags []string) { f(t, tags) }

// Acknowledged hears of each round a target acknowledged, with its tags,
// and of no round that failed: catalogd has the edge fetch the API index
// again only once a purge of it reached the edge.
func TestAcknowledgedRounds(t *testing.T) {
	varnish := newStandIn(t, func(n int, _ recorded, w http.ResponseWriter) {
		if n == 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	v, _ := NewVarnish(varnish.URL, nil)
	var mu sync.Mutex
	var heard [][]string
	clock := newFakeClock()
	p, _ := run(t, clock, Options{Acknowledged: acknowledgedFunc(func(got Target, tags []string) {
		if got != Target(v) {
			t.Errorf("Acknowledged told of target %s", got.Name())
		}
		mu.Lock()
		heard = append(heard, slices.Clone(tags))
		mu.Unlock()
	})}, v)
	told := func() [][]string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(heard)
	}
	p.Add([]string{"shop-product-7", "shop-index"}, clock.Now())
	step(t, clock, 100*time.Millisecond) // the Varnish interval: the first round, refused with a 503
	eventually(t, "the first round sent", func() bool { return varnish.count() == 1 })
	eventually(t, "the purger waits out its backoff", func() bool { return clock.Waiting() > 0 })
	if got := told(); len(got) != 0 {
		t.Errorf("Acknowledged heard of a refused round: %v", got)
	}
	step(t, clock, 500*time.Millisecond) // the backoff: sent again, acknowledged
	eventually(t, "the round acknowledged", func() bool { return len(told()) == 1 })
	if got := told(); varnish.count() != 2 || len(got) != 1 || !slices.Equal(sortedCopy(got[0]), []string{"shop-index", "shop-product-7"}) {
		t.Errorf("after a failed and an acknowledged round (%d requests), Acknowledged heard %v; want once, both tags", varnish.count(), got)
	}
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
