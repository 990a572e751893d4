package follow

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"catalogd/catalog"
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
	version  prometheus.Gauge       // the snapshot served
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
		version: prometheus.NewGauge(prometheus.GaugeOpts{Name: "catalogd_snapshot_version",
			Help: "Version of the snapshot served; it rises at every change applied."}),
	}
	reg.MustRegister(m.seen, m.lag, m.rebuilds, m.polls, m.pollDB, m.period, m.source, m.blind, m.version)
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
