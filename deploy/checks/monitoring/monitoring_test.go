package monitoring

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	sdkprometheus "github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/prometheus/prometheus/promql/parser"
)

// dir is deploy/monitoring.
const dir = "../../monitoring"

// The files written are what the rows and the rules file build: the
// dashboard is not edited by hand apart from its source, and the
// PrometheusRule says what catalogd.rules.yml says.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	files, err := Generated(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("deploy/monitoring/%s is not what deploy/checks/monitoring builds: run make monitoring", name)
		}
	}
}

// expression is a PromQL expression and where it is.
type expression struct{ where, expr string }

// expressions are the rules' and the dashboard's, the dashboard's read
// back from its JSON with the SDK's types, as Grafana would load it.
func expressions(t *testing.T) []expression {
	t.Helper()
	rules, err := os.ReadFile(filepath.Join(dir, RulesFile))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := RuleSpec(rules)
	if err != nil {
		t.Fatal(err)
	}
	var out []expression
	for _, g := range spec.Groups {
		for _, r := range g.Rules {
			out = append(out, expression{RulesFile + ": " + r.Alert, r.Expr.String()})
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, DashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	plugins.RegisterDefaultPlugins()
	var d dashboard.Dashboard //lint:ignore SA1019 the classic model, as Dashboard builds it
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", DashboardFile, err)
	}
	panels := 0
	for _, p := range d.Panels {
		if p.Panel == nil {
			continue
		}
		panels++
		if len(p.Panel.Targets) == 0 {
			t.Errorf("%s: panel %q has no query", DashboardFile, deref(p.Panel.Title))
		}
		for _, target := range p.Panel.Targets {
			q, ok := target.(*sdkprometheus.Dataquery)
			if !ok {
				t.Fatalf("%s: panel %q: a query that is not Prometheus's: %T", DashboardFile, deref(p.Panel.Title), target)
			}
			out = append(out, expression{DashboardFile + ": " + deref(p.Panel.Title), q.Expr})
		}
	}
	if want := panelCount(); panels != want {
		t.Errorf("%s holds %d panels, the rows %d", DashboardFile, panels, want)
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func panelCount() int {
	n := 0
	for _, r := range Rows {
		n += len(r.Panels)
	}
	return n
}

// prometheusOwn are series Prometheus makes itself, not catalogd.
var prometheusOwn = []string{"up"}

// seriesOf parses expr as Prometheus does and returns the series names it
// selects.
func seriesOf(expr string) ([]string, error) {
	e, err := parser.NewParser(parser.Options{}).ParseExpr(PrometheusExpr(expr))
	if err != nil {
		return nil, err
	}
	var names []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			names = append(names, vs.Name)
		}
		return nil
	})
	return names, nil
}

// unexported are the series of exprs that neither a running catalogd
// exports (metrics.txt, which deploy/monitoring's test against a real
// catalogd keeps equal to its /metrics) nor Prometheus makes, and the
// expressions that do not parse.
func unexported(exprs []expression, listed []string) []string {
	var bad []string
	for _, e := range exprs {
		names, err := seriesOf(e.expr)
		if err != nil {
			bad = append(bad, e.where+": "+err.Error())
			continue
		}
		if len(names) == 0 {
			bad = append(bad, e.where+": selects no series")
		}
		for _, n := range names {
			if !slices.Contains(listed, n) && !slices.Contains(prometheusOwn, n) {
				bad = append(bad, e.where+": "+n+" is not a series catalogd exports")
			}
		}
	}
	return bad
}

func listedSeries(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	listed := strings.Fields(string(b))
	if len(listed) < 30 {
		t.Fatalf("%s lists %d series", MetricsFile, len(listed))
	}
	return listed
}

// Every expression of the rules and the dashboard parses, and every series
// it reads is one catalogd exports: a renamed metric fails here instead of
// blanking a panel or silencing an alert.
func TestExpressionsReadExportedSeries(t *testing.T) {
	exprs := expressions(t)
	if len(exprs) < 40 {
		t.Fatalf("found %d expressions", len(exprs))
	}
	for _, bad := range unexported(exprs, listedSeries(t)) {
		t.Error(bad)
	}
}

// The check catches a renamed series, a typo and an expression that does
// not parse.
func TestUnexportedSeriesCaught(t *testing.T) {
	listed := listedSeries(t)
	for _, e := range []expression{
		{"renamed", `rate(catalogd_cache_hit_total[5m])`},
		{"histogram without its suffix", `histogram_quantile(0.99, rate(catalogd_change_lag_seconds[5m]))`},
		{"broken", `sum by (instance (rate(catalogd_cache_hits_total[5m]))`},
		{"grafana's variable unknown", `rate(catalogd_cache_hits_total[$__interval_typo])`},
	} {
		if bad := unexported([]expression{e}, listed); len(bad) != 1 {
			t.Errorf("%s: %q not caught: %v", e.where, e.expr, bad)
		}
	}
	if bad := unexported([]expression{{"fine", `sum(rate(catalogd_cache_hits_total{instance=~"$instance"}[$__rate_interval])) and up`}}, listed); len(bad) != 0 {
		t.Errorf("a good expression caught: %v", bad)
	}
}
