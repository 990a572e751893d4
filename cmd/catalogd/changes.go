package main

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"catalogd/catalog"
	"catalogd/config"
	"catalogd/httpapi"
	"catalogd/purge"
	"catalogd/wpdb"
	"catalogd/wpdb/binlog"
	"catalogd/wpdb/poll"
)

// changeMetrics are the change feed's: what it saw, how late, what it
// cost, how often the whole shop was read.
type changeMetrics struct {
	seen     *prometheus.CounterVec // by source and kind
	lag      prometheus.Histogram
	rebuilds *prometheus.CounterVec // whole reads, by kind of change
	polls    *prometheus.CounterVec // poll rounds, by round and outcome
	pollDB   *prometheus.CounterVec // their database time, by round
	period   prometheus.Gauge
	source   *prometheus.GaugeVec
	blind    *prometheus.CounterVec // the binary log found blind, by reason
}

func newChangeMetrics(reg prometheus.Registerer) *changeMetrics {
	m := &changeMetrics{
		seen: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "catalogd_changes_total",
			Help: "Changes in the shop the change feed reported, by source (binlog, poll) and kind (product, term, option, table, resync)."},
			[]string{"source", "kind"}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "catalogd_change_lag_seconds",
			Help:    "Time from a change's commit (the binary log's event time, to the second) to its snapshot being swapped in; binlog source only.",
			Buckets: []float64{.1, .25, .5, 1, 2, 5, 10, 30}}),
		rebuilds: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "catalogd_snapshot_rebuilds_total",
			Help: "Whole reads of the shop, by the kind of change that asked for one (reread: the first and the safety re-read; resync: the feed lost its position)."},
			[]string{"kind"}),
		polls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "catalogd_change_polls_total",
			Help: "Poll source rounds, by round (cheap: every --poll-interval; gate: wp_posts' update time read alone between two; delta: the products saved lately, through an index on post_modified_gmt; scan: every product) and outcome (error: the shop could not be read)."},
			[]string{"round", "outcome"}),
		pollDB: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "catalogd_change_poll_db_seconds_total",
			Help: "Database time the poll source's rounds took, by round (cheap, gate, delta, scan)."},
			[]string{"round"}),
		period: prometheus.NewGauge(prometheus.GaugeOpts{Name: "catalogd_change_scan_period_seconds",
			Help: "The poll source's period between two full product scans, set by their cost and --poll-budget."}),
		source: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "catalogd_change_source",
			Help: "The change source in use: 1 for it, 0 for the other."}, []string{"source"}),
		blind: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "catalogd_change_feed_blind_total",
			Help: "Times the binary log was found unable to show every change, and polling took over, by reason (log_bin, binlog_format, binlog_row_image, statement, partial_image, replica, binlog_filter)."},
			[]string{"reason"}),
	}
	reg.MustRegister(m.seen, m.lag, m.rebuilds, m.polls, m.pollDB, m.period, m.source, m.blind)
	return m
}

// onPoll counts a poll round.
func (m *changeMetrics) onPoll(s poll.Stats) {
	round, outcome := "cheap", "ok"
	switch {
	case s.Delta:
		round = "delta"
	case s.Scan:
		round = "scan"
		m.period.Set(s.Period.Seconds())
	case s.Gate:
		round = "gate"
	}
	if s.Err != nil {
		outcome = "error"
	}
	m.polls.WithLabelValues(round, outcome).Inc()
	m.pollDB.WithLabelValues(round).Add(s.DBTime.Seconds())
}

// counted is a feed whose every change is counted by source and kind.
type counted struct {
	catalog.Feed
	seen *prometheus.CounterVec
}

// SeesEverything passes on whether the feed counted sees every change
// (catalog.Sighted), which an embedded interface would hide.
func (f counted) SeesEverything() bool {
	s, ok := f.Feed.(catalog.Sighted)
	return ok && s.SeesEverything()
}

func (f counted) Run(ctx context.Context, h catalog.ChangeHandler) error {
	name := f.Name()
	return f.Feed.Run(ctx, catalog.ChangeFunc(func(ch catalog.Change) {
		f.seen.WithLabelValues(name, ch.Kind).Inc()
		h.OnChange(ch)
	}))
}

// changeSource is the change source in use, for /readyz.
type changeSource struct {
	mu         sync.Mutex
	name, why  string
	configured string
}

func (s *changeSource) set(name, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.name, s.why = name, why
}

// String is /readyz's line: "changes: binlog (why)".
func (s *changeSource) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.name == "" {
		return "changes: not started (--changes=" + s.configured + ")"
	}
	return "changes: " + s.name + " (" + s.why + ")"
}

// follower keeps the catalog in step with the shop: it picks the change
// source (--changes), starts it, and applies what it reports, dropping
// from the cache what each change touched.
type follower struct {
	cfg    *config.Config
	db     *wpdb.DB
	cat    *catalog.Catalog
	cache  *httpapi.Cache
	log    *slog.Logger
	m      *changeMetrics
	source *changeSource
	// version is the gauge of the snapshot served.
	version prometheus.Gauge
	// first is closed when the first snapshot is in.
	first     chan struct{}
	firstOnce sync.Once
	// purger sends the tags each change named to the edge caches.
	purger *purge.Purger
	// edge asks the edges for the API index at start (startpurge.go);
	// nil: every start purges by kind.
	edge *edgeIndex
	// recheck is the wait before polling tries the binary log again
	// (nextRecheck); 0 until it first went blind.
	recheck time.Duration
}

// binlogRecheck is how often, at first, a follower that polls where it
// could follow the binary log checks whether the log can show every change
// again: three reads of variables and grants.
const binlogRecheck = 10 * time.Second

// maxBinlogRecheck bounds the wait nextRecheck doubles.
const maxBinlogRecheck = 10 * time.Minute

// nextRecheck is the wait before the binary log is checked again after it
// went blind, the last wait having been last and the log followed for
// followed since. A session that keeps logging statements (a maintenance
// job, a plugin's own binlog_format) would turn the feed back and forth at
// every check, each turn costing a whole read of the shop: blindness soon
// after a return doubles the wait; a log followed for longer than the
// longest wait starts it afresh.
func nextRecheck(last, followed time.Duration) time.Duration {
	if last == 0 || followed >= maxBinlogRecheck {
		return binlogRecheck
	}
	return min(2*last, maxBinlogRecheck)
}

// errBinlogUsable ends polling: the binary log can show every change again.
var errBinlogUsable = errors.New("the binary log can show every change again")

// untilBinlog is the poll source while the binary log cannot be followed:
// it polls until the log can, then ends with errBinlogUsable, so that the
// follower chooses again.
type untilBinlog struct {
	catalog.Feed
	every  time.Duration
	usable func(context.Context) bool
}

func (u untilBinlog) Run(ctx context.Context, h catalog.ChangeHandler) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ended := make(chan error, 1)
	go func() { ended <- u.Feed.Run(ctx, h) }()
	t := time.NewTicker(u.every)
	defer t.Stop()
	for {
		select {
		case err := <-ended:
			return err
		case <-t.C:
			if u.usable(ctx) {
				cancel()
				<-ended
				return errBinlogUsable
			}
		}
	}
}

// pick chooses the source: binlog when asked for, or under auto when the
// server and the user's grants allow it; poll otherwise. It says why.
// blind, when set, is why the binary log just stopped showing every
// change: poll, whatever the settings say now (a session of its own may
// log statements while the server's setting is ROW), until the next check.
func (f *follower) pick(ctx context.Context, blind *binlog.BlindError) (catalog.Feed, string) {
	poll := func(why string) (catalog.Feed, string) {
		p := poll.New(f.db, catalog.ShopReads, poll.Options{Interval: f.cfg.PollInterval,
			Budget: f.cfg.PollBudget, OnPoll: f.m.onPoll})
		if f.cfg.Changes == "poll" {
			return p, why
		}
		// Where the binary log was wanted, go back to it once it can
		// show every change: it shows them sooner, for less.
		every := max(f.recheck, binlogRecheck)
		return untilBinlog{Feed: p, every: every, usable: func(ctx context.Context) bool {
			ok, _ := binlog.Status(ctx, f.db, f.db.DSN())
			return ok
		}}, why + "; the binary log is checked again every " + every.String()
	}
	if f.cfg.Changes == "poll" {
		return poll("--changes=poll")
	}
	if blind != nil {
		return poll("--changes=" + f.cfg.Changes + ": the binary log stopped showing every change: " + blind.Detail)
	}
	ok, why, now := binlog.Check(ctx, f.db, f.db.DSN())
	// A log that is on but cannot show every change (its format, a
	// replica that does not log what it applies, a filter) is counted as
	// the feed going blind, as when it goes blind while followed; a
	// server without a log, most shops' host, is not.
	if now != nil && now.Reason != binlog.BlindNoLog {
		f.m.blind.WithLabelValues(now.Reason).Inc()
	}
	switch {
	case ok:
		feed, err := binlog.New(f.db, f.db.DSN(), catalog.ShopReads, binlog.Options{Logger: f.log})
		if err == nil {
			return feed, "--changes=" + f.cfg.Changes + ": " + why
		}
		why = err.Error()
	case f.cfg.Changes == "binlog":
		// Asked for and not possible: say so loudly, and still see
		// changes rather than none.
		f.log.Error("--changes=binlog, but the binary log cannot be followed; polling instead", "why", why)
	}
	return poll("--changes=" + f.cfg.Changes + ": " + why)
}

// run follows the shop until ctx ends. It returns only a *LanguageError
// (the configured language is not the shop's: nothing to serve).
func (f *follower) run(ctx context.Context) error {
	waitFor := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	wait := func() bool { return waitFor(retryStart) }
	retry := &dbRetry{log: f.log}
	var blind *binlog.BlindError
	// restarted: the last source stopped, and where it stood is lost.
	restarted := false
	for ctx.Err() == nil {
		// The database must answer before the source is chosen: auto
		// would otherwise settle for polling a server that is only away.
		if err := f.db.Ping(ctx); err != nil {
			if !waitFor(retry.failed("the database does not answer; no change source chosen yet", err)) {
				return nil
			}
			continue
		}
		feed, why := f.pick(ctx, blind)
		blind = nil
		f.source.set(feed.Name(), why)
		for _, s := range []string{"binlog", "poll"} {
			v := 0.0
			if s == feed.Name() {
				v = 1
			}
			f.m.source.WithLabelValues(s).Set(v)
		}
		f.log.Info("following the shop's changes", "source", feed.Name(), "why", why)
		// Start marks the feed's place before the first whole read; while
		// the database is away, try again.
		for {
			err := feed.Start(ctx)
			if err == nil {
				break
			}
			if !waitFor(retry.failed("the change source "+feed.Name()+" cannot start yet", err)) {
				return nil
			}
		}
		retry.succeeded()
		followed := time.Now()
		err := f.cat.Follow(ctx, counted{Feed: feed, seen: f.m.seen}, f.follows(restarted))
		restarted = false
		var badLanguage *catalog.LanguageError
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.As(err, &badLanguage):
			return err
		case errors.As(err, &blind):
			// The binary log misses changes (a setting changed, the
			// server restarted without it): poll from now on. The next
			// Follow begins with a whole read, made after the wait, when
			// whatever the log could not show is committed and visible.
			f.m.blind.WithLabelValues(blind.Reason).Inc()
			f.recheck = nextRecheck(f.recheck, time.Since(followed))
			f.log.Warn("the binary log cannot show every change; polling until it can", "why", blind.Detail,
				"recheck", f.recheck)
			if !wait() {
				return nil
			}
			continue
		case errors.Is(err, errBinlogUsable):
			f.log.Info("the binary log can show every change again; following it")
			continue
		}
		// The feed gave up (the binary log went away): choose again; the
		// next Follow begins with a whole read, so nothing is missed.
		restarted = true
		f.log.Warn("the change source stopped; choosing again", "source", feed.Name(), "err", err)
		if !wait() {
			return nil
		}
	}
	return nil
}

// retryStart is how often the follower tries again to reach the database
// or start its source: one cheap attempt a second while it is away, and
// at most a second between its return and the first snapshot.
const retryStart = time.Second

// follows is what one Follow hands each change it applied to: applied,
// told whether the feed lost its place — it reported a resync, or, when
// restarted, the source before it stopped, which this Follow's first whole
// read stands for.
func (f *follower) follows(restarted bool) func(catalog.Applied) {
	return func(a catalog.Applied) {
		lost := a.Change.Kind == catalog.KindResync || restarted && a.Change.All
		if a.Change.All {
			restarted = false
		}
		f.applied(a, lost)
	}
}

// applied drops what a change touched from the cache, hands the purge tags
// it named to the edge purger, and counts it. lost says the feed lost its
// place before the whole read a carries.
func (f *follower) applied(a catalog.Applied, lost bool) {
	now := time.Now()
	select {
	case <-f.first:
		tags := f.cache.Apply(a)
		if lost {
			// The whole read just made is diffed against the snapshot
			// served, but the edge may hold what an earlier, failed purge
			// left; purge every response by kind.
			f.purger.PurgeKinds("resync", now)
		} else {
			f.purger.Add(tags, now)
		}
	default:
		// The first snapshot: nothing was served or cached before it, so
		// nothing is dropped and no change is logged. But the edge may
		// hold responses of an earlier run, and what changed since is
		// known to no one: every target purges by kind, now that catalogd
		// can answer the requests that follow (not before: the edge would
		// get 503s for the purged responses meanwhile). Unless the edge
		// holds this very snapshot's answers: a start beside running
		// replicas (startpurge.go).
		f.startPurge(a.Snapshot, now)
	}
	if a.Snapshot != nil {
		f.version.Set(float64(a.Snapshot.Version))
	}
	if a.Change.All {
		f.m.rebuilds.WithLabelValues(a.Change.Kind).Inc()
	}
	if !a.Change.Committed.IsZero() {
		f.m.lag.Observe(time.Since(a.Change.Committed).Seconds())
	}
	if !a.Nothing() {
		f.log.Debug("shop changed; snapshot updated", "kind", a.Change.Kind, "products", len(a.Products),
			"lists", a.Lists, "everything", a.Everything, "took", a.Took.Round(time.Millisecond))
	}
	if a.Snapshot != nil {
		f.firstOnce.Do(func() { close(f.first) })
	}
}
