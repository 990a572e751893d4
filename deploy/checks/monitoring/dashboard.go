// Package monitoring builds what deploy/monitoring ships from one source
// each: the Grafana dashboard from the rows below, with Grafana's
// foundation SDK (typed builders: a panel or a query Grafana cannot read
// does not compile), and the PrometheusRule from catalogd.rules.yml. The
// command cmd/monitoring-gen writes both; the tests check the files
// written are what these build.
package monitoring

import (
	"encoding/json"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/variants"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// Query is one PromQL expression of a panel, with its legend. In the
// expressions, $job and $instance are the dashboard's variables and
// $__rate_interval Grafana's window for rate().
type Query struct {
	Expr, Legend string
}

// Panel is one graph (or, with Stat, one number) of the dashboard.
type Panel struct {
	Title, Description, Unit string
	Stat                     bool
	// Key panels are graphed for the picture in docs/operations.md
	// (Prometheus's own web UI, as Grafana is not packaged there).
	Key     bool
	Queries []Query
}

// Row is a row of panels under a title.
type Row struct {
	Title  string
	Panels []Panel
}

// sel is the selector of the jobs and instances chosen in the dashboard;
// every selector has both (Grafana's dashboard linter's rules, lint_test.go).
const sel = `{job=~"$job", instance=~"$instance"}`

// Rows are the dashboard's: the traffic and latency by operation,
// cache hits, change feed, edge purges, snapshot and database time.
var Rows = []Row{
	{Title: "Traffic and latency", Panels: []Panel{
		{Title: "Requests by operation", Key: true, Unit: "reqps",
			Description: "Answers a second, by operation (route label: the OpenAPI operationId).",
			Queries:     []Query{{`sum by (route) (rate(catalogd_http_requests_total` + sel + `[$__rate_interval]))`, "{{route}}"}}},
		{Title: "Answers by status", Unit: "reqps",
			Description: "Answers a second, by HTTP status: 503 while no catalog is loaded, 304 for revalidations, 429 past the rate limit.",
			Queries:     []Query{{`sum by (status) (rate(catalogd_http_requests_total` + sel + `[$__rate_interval]))`, "{{status}}"}}},
		{Title: "p99 time to answer, by operation", Key: true, Unit: "s",
			Description: "Time to answer, 99th percentile, by operation. Alert CatalogdLatencyHigh over 250 ms for 10 minutes, all operations together.",
			Queries:     []Query{{`histogram_quantile(0.99, sum by (route, le) (rate(catalogd_http_request_duration_seconds_bucket` + sel + `[$__rate_interval])))`, "{{route}}"}}},
		{Title: "5xx share", Unit: "percentunit",
			Description: "Alert CatalogdServerErrors above 1 % for 5 minutes.",
			Queries: []Query{{`sum by (instance) (rate(catalogd_http_requests_total{job=~"$job", instance=~"$instance", status=~"5.."}[$__rate_interval]))
  / sum by (instance) (rate(catalogd_http_requests_total` + sel + `[$__rate_interval]))`, "{{instance}}"}}},
	}},
	{Title: "Origin cache", Panels: []Panel{
		{Title: "Hit ratio", Key: true, Unit: "percentunit",
			Description: "Hits over hits and misses. Alert CatalogdCacheHitRatioLow under 50 % for 15 minutes.",
			Queries: []Query{{`sum by (instance) (rate(catalogd_cache_hits_total` + sel + `[$__rate_interval]))
  / (sum by (instance) (rate(catalogd_cache_hits_total` + sel + `[$__rate_interval])) + sum by (instance) (rate(catalogd_cache_misses_total` + sel + `[$__rate_interval])))`, "{{instance}}"}}},
		{Title: "Hits, misses, evictions, stale copies", Unit: "ops",
			Description: "The origin cache's events a second: evictions mean it is too small (--cache-max-mb, --cache-max-entries); stale copies are served while the database fails; invalidations are changes to everything.",
			Queries: []Query{
				{`sum(rate(catalogd_cache_hits_total` + sel + `[$__rate_interval]))`, "hits"},
				{`sum(rate(catalogd_cache_misses_total` + sel + `[$__rate_interval]))`, "misses"},
				{`sum(rate(catalogd_cache_evictions_total` + sel + `[$__rate_interval]))`, "evictions"},
				{`sum(rate(catalogd_cache_stale_served_total` + sel + `[$__rate_interval]))`, "stale served"},
				{`sum(rate(catalogd_cache_invalidations_total` + sel + `[$__rate_interval]))`, "invalidations"},
			}},
		{Title: "Held", Unit: "bytes",
			Description: "Bytes the origin cache's responses hold, bounded by --cache-max-mb.",
			Queries:     []Query{{`catalogd_cache_bytes` + sel, "{{instance}}"}}},
		{Title: "Entries", Unit: "short",
			Description: "Responses the origin cache holds, bounded by --cache-max-entries.",
			Queries:     []Query{{`catalogd_cache_entries` + sel, "{{instance}}"}}},
	}},
	{Title: "Change feed", Panels: []Panel{
		{Title: "Source", Unit: "short",
			Description: "1 for the change source in use. Alert CatalogdChangeFeedBlind when polling took over from a blind binary log.",
			Queries:     []Query{{`catalogd_change_source` + sel + ` == 1`, "{{instance}} {{source}}"}}},
		{Title: "Changes by kind", Unit: "ops",
			Description: "Changes the change feed reported a second, by source and kind: a product is one product read again, the other kinds the whole shop.",
			Queries:     []Query{{`sum by (source, kind) (rate(catalogd_changes_total` + sel + `[$__rate_interval]))`, "{{source}} {{kind}}"}}},
		{Title: "Commit to served (binary log)", Unit: "s",
			Description: "The binary log's event time is to the second. Alert CatalogdChangeLagHigh over 5 s at p99.",
			Queries: []Query{
				{`histogram_quantile(0.5, sum by (le) (rate(catalogd_change_lag_seconds_bucket` + sel + `[$__rate_interval])))`, "p50"},
				{`histogram_quantile(0.99, sum by (le) (rate(catalogd_change_lag_seconds_bucket` + sel + `[$__rate_interval])))`, "p99"},
			}},
		{Title: "Poll rounds", Key: true, Unit: "ops",
			Description: "The poll source's rounds a second, by round and outcome: errors are the database's absences. None under the binary log.",
			Queries:     []Query{{`sum by (round, outcome) (rate(catalogd_change_polls_total` + sel + `[$__rate_interval]))`, "{{round}} {{outcome}}"}}},
		{Title: "Poll database time", Unit: "s",
			Description: "Database seconds a second the poll source spends, by round (--poll-budget bounds the scans').",
			Queries:     []Query{{`sum by (round) (rate(catalogd_change_poll_db_seconds_total` + sel + `[$__rate_interval]))`, "{{round}}"}}},
		{Title: "Blind binary log", Unit: "short",
			Description: "Times the binary log was found unable to show every change, by reason. Alert CatalogdChangeFeedBlind while catalogd polls instead.",
			Queries:     []Query{{`sum by (instance, reason) (increase(catalogd_change_feed_blind_total` + sel + `[$__rate_interval]))`, "{{instance}} {{reason}}"}}},
	}},
	{Title: "Edge purges", Panels: []Panel{
		{Title: "Purge requests and failures", Unit: "ops",
			Description: "Purge requests sent to each edge target a second, and those that failed. Alert CatalogdEdgePurgeFailing when every round fails for 5 minutes.",
			Queries: []Query{
				{`sum by (target) (rate(catalogd_edge_purge_requests_total` + sel + `[$__rate_interval]))`, "{{target}} sent"},
				{`sum by (target) (rate(catalogd_edge_purge_failures_total` + sel + `[$__rate_interval]))`, "{{target}} failed"},
			}},
		{Title: "Change to purge acknowledged, p99", Unit: "s",
			Description: "Time from a change applied to its purge acknowledged, 99th percentile, by target. Alert CatalogdEdgePurgeLagHigh over 10 s, with more than 3 purges that late in 5 minutes, for 10 minutes.",
			Queries:     []Query{{`histogram_quantile(0.99, sum by (target, le) (rate(catalogd_edge_purge_lag_seconds_bucket` + sel + `[$__rate_interval])))`, "{{target}}"}}},
		{Title: "Failing", Unit: "short",
			Description: "1 while the target's last round failed. Alert CatalogdEdgePurgeFailing after 5 minutes.",
			Queries:     []Query{{`max by (target) (catalogd_edge_purge_failing` + sel + `)`, "{{target}}"}}},
		{Title: "Pace", Unit: "s",
			Description: "The least time between two requests to a target, per replica: its interval, or longer as the CDN's rate limit taught (429s, Retry-After, quota headers); the fleet's replicas settle near one pace.",
			Queries:     []Query{{`max by (instance, target) (catalogd_edge_purge_pace_seconds` + sel + `)`, "{{instance}} {{target}}"}}},
		{Title: "Tags waiting, and purges of everything", Unit: "short",
			Description: "Purge tags waiting for each target, and purges of every response by kind: at start, on a resync, or when over 10 000 tags waited (alert CatalogdEdgePurgeOverflow).",
			Queries: []Query{
				{`sum by (target) (catalogd_edge_purge_pending_tags` + sel + `)`, "{{target}} waiting"},
				{`sum by (target, why) (increase(catalogd_edge_purge_kind_purges_total` + sel + `[$__rate_interval]))`, "{{target}} by kind: {{why}}"},
			}},
	}},
	{Title: "Snapshot", Panels: []Panel{
		{Title: "Products", Unit: "short", Stat: true,
			Description: "Published products in the last whole snapshot.",
			Queries:     []Query{{`catalogd_snapshot_products` + sel, "{{instance}}"}}},
		{Title: "Age", Key: true, Unit: "s",
			Description: "Since the last whole read. Alert CatalogdSnapshotStale when older than the whole-read interval, plus the read's own time, plus 5 minutes.",
			Queries:     []Query{{`time() - (catalogd_snapshot_built_timestamp_seconds` + sel + ` > 0)`, "{{instance}}"}}},
		{Title: "Whole-read interval", Unit: "s",
			Description: "The interval catalogd keeps between whole reads: 10 minutes when polling, an hour under the binary log, longer where a read costs the database much. The age alert's threshold is this, plus the build time, plus 5 minutes.",
			Queries: []Query{
				{`catalogd_snapshot_whole_read_interval_seconds` + sel, "{{instance}} interval"},
				{`catalogd_snapshot_whole_read_interval_seconds` + sel + ` + catalogd_snapshot_build_seconds` + sel + ` + 300`, "{{instance}} stale past"},
			}},
		{Title: "Build time", Unit: "s",
			Description: "Time the last whole snapshot took to read and build.",
			Queries:     []Query{{`catalogd_snapshot_build_seconds` + sel, "{{instance}}"}}},
		{Title: "Whole reads", Unit: "short",
			Description: "Whole reads of the shop, by the kind of change that asked: reread is catalogd's own (its first, and at the interval), resync a feed that lost its place.",
			Queries:     []Query{{`sum by (kind) (increase(catalogd_snapshot_rebuilds_total` + sel + `[$__rate_interval]))`, "{{kind}}"}}},
	}},
	{Title: "Database", Panels: []Panel{
		{Title: "Statements", Unit: "ops",
			Description: "None per request in steady state: the change feed's and the whole reads'. Alert CatalogdDatabaseErrors on errors for 10 minutes.",
			Queries:     []Query{{`sum by (outcome) (rate(catalogd_db_query_duration_seconds_count` + sel + `[$__rate_interval]))`, "{{outcome}}"}}},
		{Title: "Database time", Unit: "s",
			Description: "Seconds of statements a second.",
			Queries:     []Query{{`sum by (instance) (rate(catalogd_db_query_duration_seconds_sum` + sel + `[$__rate_interval]))`, "{{instance}}"}}},
		{Title: "Statement p99", Unit: "s",
			Description: "Time of one database statement, 99th percentile, by outcome.",
			Queries:     []Query{{`histogram_quantile(0.99, sum by (outcome, le) (rate(catalogd_db_query_duration_seconds_bucket` + sel + `[$__rate_interval])))`, "{{outcome}}"}}},
		{Title: "Connections", Unit: "short",
			Description: "The shop database's connection pool: open, in use, and waits for a free connection a second (--db-max-open).",
			Queries: []Query{
				{`sum(go_sql_open_connections{job=~"$job", instance=~"$instance", db_name="shop"})`, "open"},
				{`sum(go_sql_in_use_connections{job=~"$job", instance=~"$instance", db_name="shop"})`, "in use"},
				{`sum(rate(go_sql_wait_count_total{job=~"$job", instance=~"$instance", db_name="shop"}[$__rate_interval]))`, "waits a second"},
			}},
	}},
	{Title: "Process", Panels: []Panel{
		{Title: "Resident memory", Key: true, Unit: "bytes",
			Description: "catalogd's resident memory: the snapshot, the origin cache and the collector's headroom; a whole read adds a peak of several times the snapshot.",
			Queries:     []Query{{`process_resident_memory_bytes` + sel, "{{instance}}"}}},
		{Title: "Memory against the limit", Unit: "percentunit",
			Description: "Resident memory over the memory limit catalogd runs under (its cgroup's: the container's, or the unit's MemoryMax=); none where no limit is set. Alert CatalogdMemoryNearLimit above 90 % for 5 minutes.",
			Queries:     []Query{{`process_resident_memory_bytes` + sel + ` / (catalogd_memory_limit_bytes` + sel + ` < +Inf)`, "{{instance}}"}}},
		{Title: "CPU", Unit: "percentunit",
			Description: "CPU seconds a second catalogd takes, of one core.",
			Queries:     []Query{{`rate(process_cpu_seconds_total` + sel + `[$__rate_interval])`, "{{instance}}"}}},
		{Title: "Up", Unit: "short",
			Description: "Prometheus's own: 0 when the scrape fails. Alert CatalogdDown after 2 minutes; CatalogdAbsent when the job catalogd has no target at all.",
			Queries:     []Query{{`up` + sel, "{{instance}}"}}},
	}},
}

// datasource is the dashboard's Prometheus, chosen by its variable.
var datasource = common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${datasource}")}

// Dashboard builds the dashboard. It is the classic dashboard model (the
// SDK's dashboard package), which every Grafana from 9 on imports as JSON;
// the SDK prefers dashboardv2, which only Grafana 12's v2 API takes.
//
//lint:ignore SA1019 the classic model, on purpose (above)
func Dashboard() (dashboard.Dashboard, error) {
	//lint:ignore SA1019 the classic model, on purpose (Dashboard's comment)
	b := dashboard.NewDashboardBuilder("catalogd").
		Uid("catalogd").
		Readonly(). // edits belong in this source, which make monitoring writes out
		Description("catalogd's traffic, origin cache, change feed, edge purges, snapshot and database (deploy/monitoring).").
		Tags([]string{"catalogd"}).
		Refresh("30s").
		Time("now-1h", "now").
		Timezone(common.TimeZoneBrowser).
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		WithVariable(dashboard.NewDatasourceVariableBuilder("datasource").Label("Data source").Type("prometheus")).
		WithVariable(queryVariable("job", "Job", "label_values(catalogd_snapshot_version, job)")).
		WithVariable(queryVariable("instance", "Instance", `label_values(catalogd_snapshot_version{job=~"$job"}, instance)`))
	id := uint32(0) // each panel and row its own, as Grafana wants
	for _, r := range Rows {
		id++
		b.WithRow(dashboard.NewRowBuilder(r.Title).Id(id))
		for _, p := range r.Panels {
			id++
			b.WithPanel(panel(p, id))
		}
	}
	return b.Build()
}

// queryVariable is a variable of the label values query gives, any or all
// of them chosen: all is ".+", which matches only series that have the
// label, where ".*" would match those without it too.
func queryVariable(name, label, query string) *dashboard.QueryVariableBuilder {
	return dashboard.NewQueryVariableBuilder(name).Label(label).
		Datasource(datasource).
		Query(dashboard.StringOrMap{String: cog.ToPtr(query)}).
		Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
		Multi(true).IncludeAll(true).AllValue(".+")
}

// panel is one Panel, built, with the id given.
func panel(p Panel, id uint32) cog.Builder[dashboard.Panel] {
	targets := make([]cog.Builder[variants.Dataquery], 0, len(p.Queries))
	for _, q := range p.Queries {
		targets = append(targets, prometheus.NewDataqueryBuilder().Expr(q.Expr).LegendFormat(q.Legend).Datasource(datasource))
	}
	if p.Stat {
		return stat.NewPanelBuilder().Id(id).Title(p.Title).Description(p.Description).Unit(p.Unit).
			Datasource(datasource).Targets(targets).Height(6).Span(6)
	}
	return timeseries.NewPanelBuilder().Id(id).Title(p.Title).Description(p.Description).Unit(p.Unit).
		Datasource(datasource).Targets(targets).Height(8).Span(6).
		Legend(common.NewVizLegendOptionsBuilder().DisplayMode(common.LegendDisplayModeList).
			Placement(common.LegendPlacementBottom).ShowLegend(true))
}

// grafanaVariables are the dashboard's variables as Grafana substitutes
// them before Prometheus reads a query: every job and instance, a
// one-minute rate.
var grafanaVariables = strings.NewReplacer("$__rate_interval", "1m", "$job", ".+", "$instance", ".+")

// PrometheusExpr is a panel's expression as Prometheus gets it from
// Grafana, every job and instance chosen.
func PrometheusExpr(expr string) string { return grafanaVariables.Replace(expr) }

// KeyQueries are the Key panels' expressions as Prometheus gets them.
func KeyQueries() []Query {
	var out []Query
	for _, r := range Rows {
		for _, p := range r.Panels {
			if p.Key {
				for _, q := range p.Queries {
					out = append(out, Query{Expr: PrometheusExpr(q.Expr), Legend: p.Title})
				}
			}
		}
	}
	return out
}

// DashboardJSON is the dashboard as Grafana imports it.
func DashboardJSON() ([]byte, error) {
	d, err := Dashboard()
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
