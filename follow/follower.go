// Package follow keeps the catalog in step with the shop, and the caches in
// step with the catalog: it chooses the change source (the binary log or
// polling) and fails over between them (source.go), applies each change,
// drops from the response cache what it touched and has the edge purged
// (apply.go), and at start asks each edge what it holds before purging it
// (startpurge.go). Its metrics are metrics.go's. cmd/catalogd wires it.
package follow

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/purge"
	"catalogd/wpdb"
)

// Options are the follower's settings and what it works with.
type Options struct {
	// Changes is the change source asked for: auto, binlog or poll.
	Changes string
	// PollInterval and PollBudget are the poll source's.
	PollInterval time.Duration
	PollBudget   float64
	// SiteURL is the site's configured URL, "" for the shop's home.
	SiteURL string
	// Namespace is the API's namespace word.
	Namespace string
	// WarmEvery is how often each edge is asked for the API index between
	// purges (keepWarm); 0: never.
	WarmEvery time.Duration
	// Shape is what, beside the snapshot, makes the answers served for a
	// site (the API server's settings): the start purge compares the
	// edge's copy of the index with it.
	Shape func(site string) httpapi.Shape

	DB      *wpdb.DB
	Catalog *catalog.Catalog
	Cache   *httpapi.Cache
	// Targets are the edge caches to purge (Targets reads them from the
	// settings).
	Targets    []purge.Target
	Logger     *slog.Logger
	Registerer prometheus.Registerer
}

// Follower keeps the catalog in step with the shop: it picks the change
// source (--changes), starts it, and applies what it reports, dropping
// from the cache what each change touched and purging it at the edge.
type Follower struct {
	o     Options
	db    *wpdb.DB
	cat   *catalog.Catalog
	cache *httpapi.Cache
	log   *slog.Logger
	m     *changeMetrics
	// source is the change source in use, for /readyz.
	source *changeSource
	// first is closed when the first snapshot is in.
	first     chan struct{}
	firstOnce sync.Once
	// purger sends the tags each change named to the edge caches.
	purger *purge.Purger
	// edge asks the edges for the API index at start (startpurge.go);
	// nil: every start purges by kind.
	edge *edgeIndex
	// restarted: the last source stopped, and where it stood is lost;
	// OnApplied reads it, on the follower's goroutine.
	restarted bool
	// recheck is the wait before polling tries the binary log again
	// (nextRecheck); 0 until it first went blind.
	recheck time.Duration
}

// New makes the follower and its edge purger; Run starts them.
func New(o Options) *Follower {
	f := &Follower{o: o, db: o.DB, cat: o.Catalog, cache: o.Cache, log: o.Logger,
		m: newChangeMetrics(o.Registerer), source: &changeSource{configured: o.Changes}, first: make(chan struct{})}
	f.edge = &edgeIndex{siteURL: o.SiteURL, ns: o.Namespace, cat: o.Catalog, log: o.Logger, shape: o.Shape}
	// The edge purger: every change's tags to each configured Varnish,
	// Fastly service and Cloudflare zone. It runs beside the follower and
	// never holds it up.
	f.purger = purge.New(o.Targets, purge.Options{Kinds: httpapi.NewTags(o.Namespace).Kinds(), Logger: o.Logger,
		Metrics: purge.NewMetrics(o.Registerer), Acknowledged: f})
	if len(o.Targets) > 0 {
		o.Logger.Info("purging the edge when the shop changes", "targets", targetNames(o.Targets))
	}
	return f
}

// Run follows the shop and purges the edge until ctx ends, or the
// follower cannot go on; it returns once both have stopped. Its error is
// a *catalog.LanguageError only (the configured language is not the
// shop's: nothing to serve).
func (f *Follower) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { f.edge.keepWarm(ctx, f.purger.Targets(), f.o.WarmEvery) })
	wg.Go(func() { f.purger.Run(ctx) })
	err := f.follow(ctx)
	cancel()
	wg.Wait()
	return err
}

// First is closed when the first snapshot is in.
func (f *Follower) First() <-chan struct{} { return f.first }

// Site is the site's URL, without its trailing slash: the setting's, or
// the shop's home.
func (f *Follower) Site(ctx context.Context) string { return f.edge.site(ctx) }

// Flush sends the purges still waiting, within ctx; call it after Run
// returned (a change the follower was applying adds its tags before it
// returns). A replica stopped for good takes them with it otherwise.
func (f *Follower) Flush(ctx context.Context) { f.purger.Flush(ctx) }

// String is /readyz's lines after ready or not: the change source, then
// each purge target's state. A failing purge target never makes catalogd
// unready — catalogd still answers fresh; only the edge keeps old copies
// until s-maxage — so it is reported here, and in the metrics.
func (f *Follower) String() string {
	return f.source.String() + "\n" + f.purger.Report(time.Now())
}
