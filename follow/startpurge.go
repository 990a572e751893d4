package follow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/purge"
)

// A replica that starts cannot know what changed while it was down: the
// edge may hold answers of a shop that has changed since, with no replica
// running to purge them. But a replica that starts beside running ones (a
// scale-up, a rolling restart) finds the edge holding exactly what it
// would answer, and purging it would only flush the edge under load. So,
// once the first snapshot is in, each target is asked for the API index as
// the edge holds it: a copy the edge had cached (not one fetched for the
// question) that carries this replica's snapshot identity
// (httpapi.Shape.Identity: the content, the answers' settings, the build)
// leaves the target alone; anything else purges it by kind. Why that is
// enough: docs/edge-purge.md#starting-without-emptying-the-edge.

// probeTimeout bounds the question to each edge; a slow edge is purged.
const probeTimeout = 3 * time.Second

// probeClient asks the edges: a redirect is an answer (not the index), and
// no connection is kept for a question asked once.
var probeClient = &http.Client{Timeout: probeTimeout, Transport: &http.Transport{DisableKeepAlives: true},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// edgeIndex asks the edges for the API index: at start, to compare the
// copy they hold with this replica's snapshot (startPurge); after every
// purge a target acknowledged, to have it fetch the index again (refill).
// Every change purges the index (httpapi.Tags.Invalidated), so without the refill
// the edge would hold none most of the time on a shop whose index is
// rarely asked for, and a starting replica, finding none, would purge
// everything: the refill keeps the edge's copy naming the snapshot the
// fleet serves.
type edgeIndex struct {
	siteURL string // the setting; "": the shop's home
	ns      string // the API's namespace
	cat     *catalog.Catalog
	log     *slog.Logger
	// shape is what, beside the snapshot, makes the answers served for
	// a site (Options.Shape).
	shape func(site string) httpapi.Shape
}

// site is the site's URL, without its trailing slash: the setting's, or
// the shop's home. The API server names it in its links (Follower.Site),
// and the edges are asked for the index at it.
func (e *edgeIndex) site(ctx context.Context) string {
	site := e.siteURL
	if site == "" && e.cat != nil {
		site, _ = e.cat.SiteURL(ctx)
	}
	return strings.TrimRight(site, "/")
}

// Acknowledged is told of each purge round a target acknowledged
// (purge.Acknowledger): the target's edge fetches the API index again.
// It runs on the target's worker, and does not wait.
func (f *Follower) Acknowledged(t purge.Target, _ []string) { f.edge.refill(t) }

// refill has the target's edge fetch the index again after a purge
// acknowledged: on its own goroutine, as the purger's workers must not
// wait (purge.Acknowledger). A failure only means the next
// starting replica purges, and is logged at debug level.
func (e *edgeIndex) refill(t purge.Target) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		site := e.site(ctx)
		if _, err := edgeHolds(ctx, t, site, e.ns); err != nil && !errors.Is(err, errNotCached) {
			e.log.Debug("edge purge: the edge did not fetch the API index again", "target", t.Name(), "err", err)
		}
	}()
}

// keepWarm has each target's edge fetch the index every period (half the
// edge's lifetime, s-maxage): a quiet shop purges nothing for hours, the
// edge's copy would expire, and a replica the autoscaler starts then would
// find none and purge everything. A copy the edge holds makes it a hit,
// which costs nothing.
func (e *edgeIndex) keepWarm(ctx context.Context, targets []purge.Target, period time.Duration) {
	if period <= 0 || len(targets) == 0 {
		return
	}
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			for _, t := range targets {
				e.refill(t)
			}
		}
	}
}

// startPurge decides each target's purge at start, from the first snapshot,
// without holding up the follower. The targets are asked at once, each
// within its own probeTimeout: a slow one does not make the others purge.
func (f *Follower) startPurge(snap *catalog.Snapshot, now time.Time) {
	targets := f.purger.Targets()
	if snap == nil || len(targets) == 0 || f.edge == nil {
		f.purger.PurgeKinds("start", now)
		return
	}
	for _, t := range targets {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
			defer cancel()
			site := f.edge.site(ctx)
			want := f.edge.shape(site).Identity(snap.Digest())
			held, err := edgeHolds(ctx, t, site, f.o.Namespace)
			if err == nil && held == want {
				f.log.Info("edge purge at start: the edge holds this snapshot's answers; nothing to purge",
					"target", t.Name(), "snapshot", want)
				return
			}
			why := "it holds another snapshot's answers (" + held + ")"
			if err != nil {
				why = err.Error()
			}
			f.log.Info("edge purge at start: purging every response by kind", "target", t.Name(), "why", why)
			f.purger.PurgeKindsOf(t.Name(), "start", now)
		}()
	}
}

// errNotCached: the edge fetched the index for the question, so its answer
// says nothing of what the edge held.
var errNotCached = errors.New("the edge did not hold the API index (it fetched it for the question)")

// edgeHolds asks the edge at base for the API index, as the site's
// visitors ask it (the site's Host), and returns the snapshot identity of
// the copy it held.
func edgeHolds(ctx context.Context, t purge.Target, site, ns string) (string, error) {
	base := t.Edge(site)
	if base == "" {
		return "", errors.New("no site URL to ask the edge at")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+httpapi.IndexPath(ns), nil)
	if err != nil {
		return "", fmt.Errorf("asking the edge: %w", err)
	}
	if u, err := url.Parse(site); err == nil && u.Host != "" {
		req.Host = u.Host
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "catalogd-start")
	resp, err := probeClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("asking the edge: %w", err)
	}
	resp.Body.Close()
	held := resp.Header.Get(httpapi.SnapshotHeader)
	switch {
	case resp.StatusCode != http.StatusOK:
		return held, fmt.Errorf("the edge answered %d for the API index", resp.StatusCode)
	case !t.Cached(resp.Header):
		return held, errNotCached
	case held == "":
		return "", errors.New("the edge's copy of the API index names no snapshot (a catalogd before 32)")
	}
	return held, nil
}
