package follow

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/internal/edgetest"
	"catalogd/purge"
)

// resyncFeed is a change feed that reports that it lost its place, as the
// binary log does when its position was purged.
type resyncFeed struct{}

func (resyncFeed) Name() string                { return "binlog" }
func (resyncFeed) Start(context.Context) error { return nil }
func (resyncFeed) Run(_ context.Context, h catalog.ChangeHandler) error {
	h.OnChange(catalog.Change{All: true, Kind: catalog.KindResync})
	return nil
}

// What the follower hands the purger for each change applied: the kinds at
// the first snapshot and after the feed lost its place (a resync, or the
// source stopped and another chosen: catalogd cannot know what the edge
// holds then), a change's own tags otherwise, and nothing for the periodic
// whole read that found nothing new.
func TestFollowerPurges(t *testing.T) {
	varnish := edgetest.NewVarnish(t)
	target, err := purge.NewVarnish(varnish.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	purger := runPurger(t, purge.New([]purge.Target{target}, purge.Options{Kinds: httpapi.NewTags("shop").Kinds(), Logger: log}))
	reg := prometheus.NewRegistry()
	cfg := httpapi.DefaultCacheConfig
	cfg.Namespace = "shop" // as main sets it: before the server is made, after the first snapshot
	cache := httpapi.NewCache(cfg)
	f := &Follower{cache: cache, log: log, m: newChangeMetrics(reg), purger: purger, first: make(chan struct{})}
	snap := &catalog.Snapshot{Version: 1}

	// wait returns the tags of the purges after the first n.
	wait := func(what string, n int) []string {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for varnish.Count() <= n {
			if time.Now().After(deadline) {
				t.Fatalf("no purge within 10s: %s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond) // a round more, if the purger split it
		var tags []string
		for _, p := range varnish.Since(n) {
			tags = append(tags, p...)
		}
		return tags
	}
	kinds := httpapi.NewTags("shop").Kinds()
	whole := func(kind string) catalog.Applied {
		return catalog.Applied{Snapshot: snap, Change: catalog.Change{All: true, Kind: kind}}
	}
	product := func(id int64) catalog.Applied {
		return catalog.Applied{Snapshot: snap, Products: []int64{id}, Change: catalog.Change{Products: []int64{id}, Kind: catalog.KindProduct}}
	}
	apply := f.OnApplied

	apply(whole(catalog.KindReread))
	if got := wait("the first snapshot", 0); !slices.Equal(got, kinds) {
		t.Errorf("first snapshot: purged %v, want the kinds %v", got, kinds)
	}

	n := varnish.Count()
	apply(product(7))
	// Its own tag, the overflow tag of the pages whose product tags did
	// not fit their header (any product may be on them), the finding
	// pages' (it may enter, leave or move on any), and the index, which
	// names the snapshot (startpurge.go).
	if got := wait("a product's change", n); !slices.Equal(got, []string{"shop-product-7", "shop-overflow", "shop-query", "shop-index"}) {
		t.Errorf("a product's change: purged %v, want shop-product-7 shop-overflow shop-query shop-index", got)
	}

	// The periodic whole read, nothing changed: no purge.
	n = varnish.Count()
	apply(whole(catalog.KindReread))
	// The feed reports it lost its place; the whole read that follows
	// purges by kind, even though it found nothing that differs.
	apply(whole(catalog.KindResync))
	if got := wait("the resync", n); !slices.Equal(got, kinds) {
		t.Errorf("after the periodic read and the feed's resync: purged %v, want the kinds once", got)
	}

	// The source stopped and another was chosen: the next Follow's first
	// whole read purges by kind, as a resync does; its later ones do not.
	f.restarted = true
	n = varnish.Count()
	apply(whole(catalog.KindReread))
	if got := wait("the first read after the source stopped", n); !slices.Equal(got, kinds) {
		t.Errorf("the first read after the source stopped: purged %v, want the kinds", got)
	}
	n = varnish.Count()
	apply(whole(catalog.KindReread))
	apply(product(8))
	if got := wait("a periodic read and a product's change", n); !slices.Equal(got, []string{"shop-product-8", "shop-overflow", "shop-query", "shop-index"}) {
		t.Errorf("a periodic read and a product's change after the restart: purged %v, want shop-product-8 shop-overflow shop-query shop-index", got)
	}
}

// runPurger runs p until the test ends.
func runPurger(t *testing.T, p *purge.Purger) *purge.Purger {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		p.Run(ctx)
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return p
}
