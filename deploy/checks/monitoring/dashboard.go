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
// expressions, $instance is the dashboard's instance variable and
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

// sel is the selector of the instances chosen in the dashboard.
const sel = `{instance=~"$instance"}`

// Rows are the dashboard's: the traffic and latency by operation,
// cache hits, change feed, edge purges, snapshot and database time.
var Rows = []Row{
	{Title: "Traffic and latency", Panels: []Panel{
		{Title: "Requests by operation", Key: true, Unit: "reqps",
			Description: "Answers a second, by operation (route label: the OpenAPI operationId).",
			Queries:     []Query{{`sum by (route) (rate(catalogd_http_requests_total` + sel + `[$__rate_interval]))`, "{{route}}"}}},
		{Title: "Answers by status", Unit: "reqps",
			Queries: []Query{{`sum by (status) (rate(catalogd_http_requests_total` + sel + `[$__rate_interval]))`, "{{status}}"}}},
		{Title: "p99 time to answer, by operation", Key: true, Unit: "s",
			Queries: []Query{{`histogram_quantile(0.99, sum by (route, le) (rate(catalogd_http_request_duration_seconds_bucket` + sel + `[$__rate_interval])))`, "{{route}}"}}},
		{Title: "5xx share", Unit: "percentunit",
			Description: "Alert CatalogdServerErrors above 1 % for 5 minutes.",
			Queries: []Query{{`sum by (instance) (rate(catalogd_http_requests_total{instance=~"$instance", status=~"5.."}[$__rate_interval]))
  / sum by (instance) (rate(catalogd_http_requests_total` + sel + `[$__rate_interval]))`, "{{instance}}"}}},
	}},
	{Title: "Origin cache", Panels: []Panel{
		{Title: "Hit ratio", Key: true, Unit: "percentunit",
			Description: "Hits over hits and misses. Alert CatalogdCacheHitRatioLow under 50 % for 15 minutes.",
			Queries: []Query{{`sum by (instance) (rate(catalogd_cache_hits_total` + sel + `[$__rate_interval]))
  / (sum by (instance) (rate(catalogd_cache_hits_total` + sel + `[$__rate_interval])) + sum by (instance) (rate(catalogd_cache_misses_total` + sel + `[$__rate_interval])))`, "{{instance}}"}}},
		{Title: "Hits, misses, evictions, stale copies", Unit: "ops",
			Queries: []Query{
				{`sum(rate(catalogd_cache_hits_total` + sel + `[$__rate_interval]))`, "hits"},
				{`sum(rate(catalogd_cache_misses_total` + sel + `[$__rate_interval]))`, "misses"},
				{`sum(rate(catalogd_cache_evictions_total` + sel + `[$__rate_interval]))`, "evictions"},
				{`sum(rate(catalogd_cache_stale_served_total` + sel + `[$__rate_interval]))`, "stale served"},
				{`sum(rate(catalogd_cache_invalidations_total` + sel + `[$__rate_interval]))`, "invalidations"},
			}},
		{Title: "Held", Unit: "bytes",
			Queries: []Query{{`catalogd_cache_bytes` + sel, "{{instance}}"}}},
		{Title: "Entries", Unit: "short",
			Queries: []Query{{`catalogd_cache_entries` + sel, "{{instance}}"}}},
	}},
	{Title: "Change feed", Panels: []Panel{
		{Title: "Source", Unit: "short",
			Description: "1 for the change source in use. Alert CatalogdChangeFeedBlind when polling took over from a blind binary log.",
			Queries:     []Query{{`catalogd_change_source` + sel + ` == 1`, "{{instance}} {{source}}"}}},
		{Title: "Changes by kind", Unit: "ops",
			Queries: []Query{{`sum by (source, kind) (rate(catalogd_changes_total` + sel + `[$__rate_interval]))`, "{{source}} {{kind}}"}}},
		{Title: "Commit to served (binary log)", Unit: "s",
			Description: "The binary log's event time is to the second. Alert CatalogdChangeLagHigh over 5 s at p99.",
			Queries: []Query{
				{`histogram_quantile(0.5, sum by (le) (rate(catalogd_change_lag_seconds_bucket` + sel + `[$__rate_interval])))`, "p50"},
				{`histogram_quantile(0.99, sum by (le) (rate(catalogd_change_lag_seconds_bucket` + sel + `[$__rate_interval])))`, "p99"},
			}},
		{Title: "Poll rounds", Key: true, Unit: "ops",
			Queries: []Query{{`sum by (round, outcome) (rate(catalogd_change_polls_total` + sel + `[$__rate_interval]))`, "{{round}} {{outcome}}"}}},
		{Title: "Poll database time", Unit: "s",
			Description: "Database seconds a second the poll source spends, by round (--poll-budget bounds the scans').",
			Queries:     []Query{{`sum by (round) (rate(catalogd_change_poll_db_seconds_total` + sel + `[$__rate_interval]))`, "{{round}}"}}},
		{Title: "Blind binary log", Unit: "short",
			Description: "Times the binary log was found unable to show every change, by reason, since catalogd started.",
			Queries:     []Query{{`sum by (instance, reason) (catalogd_change_feed_blind_total` + sel + `)`, "{{instance}} {{reason}}"}}},
	}},
	{Title: "Edge purges", Panels: []Panel{
		{Title: "Purge requests and failures", Unit: "ops",
			Queries: []Query{
				{`sum by (target) (rate(catalogd_edge_purge_requests_total` + sel + `[$__rate_interval]))`, "{{target}} sent"},
				{`sum by (target) (rate(catalogd_edge_purge_failures_total` + sel + `[$__rate_interval]))`, "{{target}} failed"},
			}},
		{Title: "Change to purge acknowledged, p99", Unit: "s",
			Description: "Alert CatalogdEdgePurgeLagHigh over 10 s.",
			Queries:     []Query{{`histogram_quantile(0.99, sum by (target, le) (rate(catalogd_edge_purge_lag_seconds_bucket` + sel + `[$__rate_interval])))`, "{{target}}"}}},
		{Title: "Failing", Unit: "short",
			Description: "1 while the target's last round failed. Alert CatalogdEdgePurgeFailing after 5 minutes.",
			Queries:     []Query{{`max by (target) (catalogd_edge_purge_failing` + sel + `)`, "{{target}}"}}},
		{Title: "Pace", Unit: "s",
			Description: "The least time between two requests to a target, per replica: its interval, or longer as the CDN's rate limit taught (429s, Retry-After, quota headers); the fleet's replicas settle near one pace.",
			Queries:     []Query{{`max by (instance, target) (catalogd_edge_purge_pace_seconds` + sel + `)`, "{{instance}} {{target}}"}}},
		{Title: "Tags waiting, and purges of everything", Unit: "short",
			Queries: []Query{
				{`sum by (target) (catalogd_edge_purge_pending_tags` + sel + `)`, "{{target}} waiting"},
				{`sum by (target, why) (increase(catalogd_edge_purge_kind_purges_total` + sel + `[$__rate_interval]))`, "{{target}} by kind: {{why}}"},
			}},
	}},
	{Title: "Snapshot", Panels: []Panel{
		{Title: "Products", Unit: "short", Stat: true,
			Queries: []Query{{`catalogd_snapshot_products` + sel, "{{instance}}"}}},
		{Title: "Age", Key: true, Unit: "s",
			Description: "Since the last whole read: every 10 minutes when polling, every hour under the binary log. Alert CatalogdSnapshotStale 5 minutes past that.",
			Queries:     []Query{{`time() - (catalogd_snapshot_built_timestamp_seconds` + sel + ` > 0)`, "{{instance}}"}}},
		{Title: "Build time", Unit: "s",
			Queries: []Query{{`catalogd_snapshot_build_seconds` + sel, "{{instance}}"}}},
		{Title: "Whole reads", Unit: "short",
			Queries: []Query{{`sum by (kind) (increase(catalogd_snapshot_rebuilds_total` + sel + `[$__rate_interval]))`, "{{kind}}"}}},
	}},
	{Title: "Database", Panels: []Panel{
		{Title: "Statements", Unit: "ops",
			Description: "None per request in steady state: the change feed's and the whole reads'. Alert CatalogdDatabaseErrors on errors for 10 minutes.",
			Queries:     []Query{{`sum by (outcome) (rate(catalogd_db_query_duration_seconds_count` + sel + `[$__rate_interval]))`, "{{outcome}}"}}},
		{Title: "Database time", Unit: "s",
			Description: "Seconds of statements a second.",
			Queries:     []Query{{`sum by (instance) (rate(catalogd_db_query_duration_seconds_sum` + sel + `[$__rate_interval]))`, "{{instance}}"}}},
		{Title: "Statement p99", Unit: "s",
			Queries: []Query{{`histogram_quantile(0.99, sum by (outcome, le) (rate(catalogd_db_query_duration_seconds_bucket` + sel + `[$__rate_interval])))`, "{{outcome}}"}}},
		{Title: "Connections", Unit: "short",
			Queries: []Query{
				{`sum(go_sql_open_connections{instance=~"$instance", db_name="shop"})`, "open"},
				{`sum(go_sql_in_use_connections{instance=~"$instance", db_name="shop"})`, "in use"},
				{`sum(rate(go_sql_wait_count_total{instance=~"$instance", db_name="shop"}[$__rate_interval]))`, "waits a second"},
			}},
	}},
	{Title: "Process", Panels: []Panel{
		{Title: "Resident memory", Key: true, Unit: "bytes",
			Queries: []Query{{`process_resident_memory_bytes` + sel, "{{instance}}"}}},
		{Title: "CPU", Unit: "percentunit",
			Queries: []Query{{`rate(process_cpu_seconds_total` + sel + `[$__rate_interval])`, "{{instance}}"}}},
		{Title: "Up", Unit: "short",
			Description: "Prometheus's own: 0 when the scrape fails. Alert CatalogdDown after 2 minutes.",
			Queries:     []Query{{`up{job="catalogd", instance=~"$instance"}`, "{{instance}}"}}},
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
		Description("catalogd's traffic, origin cache, change feed, edge purges, snapshot and database (deploy/monitoring).").
		Tags([]string{"catalogd"}).
		Refresh("30s").
		Time("now-1h", "now").
		Timezone(common.TimeZoneBrowser).
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		WithVariable(dashboard.NewDatasourceVariableBuilder("datasource").Label("Prometheus").Type("prometheus")).
		WithVariable(dashboard.NewQueryVariableBuilder("instance").Label("Instance").
			Datasource(datasource).
			Query(dashboard.StringOrMap{String: cog.ToPtr("label_values(catalogd_snapshot_version, instance)")}).
			Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
			Multi(true).IncludeAll(true).AllValue(".*"))
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
// them before Prometheus reads a query: every instance, a one-minute rate.
var grafanaVariables = strings.NewReplacer("$__rate_interval", "1m", "$instance", ".*")

// PrometheusExpr is a panel's expression as Prometheus gets it from
// Grafana, every instance chosen.
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
