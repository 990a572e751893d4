package monitoring

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// This file holds the dashboard to the rules of Grafana's dashboard
// linter (github.com/grafana/dashboard-linter), each named as there, read
// from the JSON as Grafana imports it: a data source variable, job and
// instance variables every query filters by, rate windows Grafana sizes,
// counters read as rates, a description on every panel, and a dashboard
// that cannot be edited where it is imported.

// lintDashboard is the part of Grafana's dashboard JSON the rules read.
type lintDashboard struct {
	Editable   *bool `json:"editable"`
	Templating struct {
		List []lintVariable `json:"list"`
	} `json:"templating"`
	Panels []lintPanel `json:"panels"`
}

type lintVariable struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Label      string         `json:"label"`
	Query      any            `json:"query"`
	Datasource *lintReference `json:"datasource"`
	Multi      bool           `json:"multi"`
	AllValue   string         `json:"allValue"`
	Refresh    int            `json:"refresh"`
}

type lintReference struct {
	UID string `json:"uid"`
}

type lintPanel struct {
	Type        string         `json:"type"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Datasource  *lintReference `json:"datasource"`
	Targets     []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
	FieldConfig struct {
		Defaults struct {
			Unit string `json:"unit"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
	Panels []lintPanel `json:"panels"` // a collapsed row's
}

// rateWindow stands for $__rate_interval while a query is parsed: a
// duration no query writes, so a window that is not Grafana's is told
// apart.
const rateWindow = 8869990787 * time.Millisecond

// templated is a data source Grafana's variable names.
func templated(r *lintReference) bool {
	return r != nil && (r.UID == "$datasource" || r.UID == "${datasource}")
}

// lint returns the problems the linter's rules find in a dashboard's JSON,
// each "rule: what".
func lint(dashboardJSON []byte) ([]string, error) {
	var d lintDashboard
	if err := json.Unmarshal(dashboardJSON, &d); err != nil {
		return nil, err
	}
	var problems []string
	add := func(rule, format string, args ...any) {
		problems = append(problems, rule+": "+fmt.Sprintf(format, args...))
	}
	if d.Editable == nil || *d.Editable {
		add("uneditable-dashboard-rule", "the dashboard is editable where it is imported; want editable: false")
	}
	lintVariables(d.Templating.List, add)
	var panels []lintPanel
	for _, p := range d.Panels {
		panels = append(panels, p)
		panels = append(panels, p.Panels...)
	}
	for _, p := range panels {
		if p.Type == "row" {
			continue
		}
		if p.Title == "" || p.Description == "" {
			add("panel-title-description-rule", "panel %q has no title or no description", p.Title)
		}
		if !templated(p.Datasource) {
			add("panel-datasource-rule", "panel %q does not use the datasource variable", p.Title)
		}
		if p.FieldConfig.Defaults.Unit == "" {
			add("panel-units-rule", "panel %q has no unit", p.Title)
		}
		if len(p.Targets) == 0 {
			add("panel-no-targets-rule", "panel %q has no query", p.Title)
		}
		for _, t := range p.Targets {
			for _, problem := range lintQuery(t.Expr) {
				add(problem[0], "panel %q, %s: %s", p.Title, t.Expr, problem[1])
			}
		}
	}
	return problems, nil
}

// lintVariables checks the data source variable and the job and instance
// variables.
func lintVariables(vars []lintVariable, add func(rule, format string, args ...any)) {
	byName := map[string]lintVariable{}
	sources := 0
	for _, v := range vars {
		byName[v.Name] = v
		if v.Type == "datasource" {
			sources++
			if v.Name != "datasource" || v.Label != "Data source" || v.Query != "prometheus" {
				add("template-datasource-rule", "the data source variable is %q labelled %q for %v; want datasource, labelled Data source, for prometheus",
					v.Name, v.Label, v.Query)
			}
		}
		if v.Type == "query" && v.Refresh != 2 {
			add("template-on-time-change-reload-rule", "variable %s refreshes %d; want 2, on a time range change", v.Name, v.Refresh)
		}
		if q, ok := v.Query.(string); ok && strings.HasPrefix(q, "label_values(") {
			inner := strings.TrimSuffix(strings.TrimPrefix(q, "label_values("), ")")
			if i := strings.LastIndex(inner, ","); i < 0 {
				add("template-label-promql-rule", "variable %s: %s names no label", v.Name, q)
			} else if _, err := parser.NewParser(parser.Options{}).ParseExpr(inner[:i]); err != nil {
				add("template-label-promql-rule", "variable %s: %s: %v", v.Name, q, err)
			}
		}
	}
	if sources != 1 {
		add("template-datasource-rule", "%d data source variables; want one", sources)
	}
	for _, name := range []string{"job", "instance"} {
		rule := "template-" + name + "-rule"
		v, ok := byName[name]
		if !ok {
			add(rule, "no %s variable", name)
			continue
		}
		label := strings.ToUpper(name[:1]) + name[1:]
		if v.Type != "query" || !templated(v.Datasource) || v.Label != label || !v.Multi || v.AllValue != ".+" {
			add(rule, "the %s variable is a %s on %v labelled %q, multi %v, all %q; want a query on the datasource variable, labelled %s, multi, all .+",
				name, v.Type, v.Datasource, v.Label, v.Multi, v.AllValue, label)
		}
	}
}

// lintQuery returns the problems of one query, each {rule, what}.
func lintQuery(expr string) [][2]string {
	e, err := parser.NewParser(parser.Options{}).ParseExpr(strings.ReplaceAll(expr, "$__rate_interval", fmt.Sprintf("%dms", rateWindow.Milliseconds())))
	if err != nil {
		return [][2]string{{"target-promql-rule", err.Error()}}
	}
	var out [][2]string
	for _, sel := range parser.ExtractSelectors(e) {
		for _, name := range []string{"job", "instance"} {
			if !slices.ContainsFunc(sel, func(m *labels.Matcher) bool {
				return m.Name == name && m.Type == labels.MatchRegexp && m.Value == "$"+name
			}) {
				out = append(out, [2]string{"target-" + name + "-rule", fmt.Sprintf("a selector without %s=~\"$%s\"", name, name)})
			}
		}
	}
	parser.Inspect(e, func(n parser.Node, path []parser.Node) error {
		var parent parser.Node
		if len(path) > 0 {
			parent = path[len(path)-1]
		}
		call, _ := parent.(*parser.Call)
		switch n := n.(type) {
		case *parser.MatrixSelector:
			if call != nil && (call.Func.Name == "rate" || call.Func.Name == "irate") && n.Range != rateWindow {
				out = append(out, [2]string{"target-rate-interval-rule", "a rate over " + n.Range.String() + ", not $__rate_interval"})
			}
		case *parser.VectorSelector:
			if !strings.HasSuffix(n.Name, "_total") {
				break
			}
			_, ranged := parent.(*parser.MatrixSelector)
			var fn string
			if len(path) > 1 {
				if c, ok := path[len(path)-2].(*parser.Call); ok {
					fn = c.Func.Name
				}
			}
			if !ranged || (fn != "rate" && fn != "irate" && fn != "increase") {
				out = append(out, [2]string{"target-counter-agg-rule", "counter " + n.Name + " not read through rate, irate or increase"})
			}
		}
		return nil
	})
	return out
}

// The dashboard shipped breaks none of the linter's rules.
func TestDashboardPassesTheLinterRules(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(dir, DashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	problems, err := lint(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// Each rule catches the dashboard broken its way.
func TestLinterRulesCatch(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(dir, DashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	variable := func(d map[string]any, name string) map[string]any {
		for _, v := range d["templating"].(map[string]any)["list"].([]any) {
			if v := v.(map[string]any); v["name"] == name {
				return v
			}
		}
		t.Fatalf("no variable %s", name)
		return nil
	}
	panel := func(d map[string]any) map[string]any { return d["panels"].([]any)[1].(map[string]any) }
	setExpr := func(d map[string]any, expr string) {
		panel(d)["targets"].([]any)[0].(map[string]any)["expr"] = expr
	}
	tests := []struct {
		rule  string
		spoil func(d map[string]any)
	}{
		{"uneditable-dashboard-rule", func(d map[string]any) { d["editable"] = true }},
		{"uneditable-dashboard-rule", func(d map[string]any) { delete(d, "editable") }},
		{"template-datasource-rule", func(d map[string]any) { variable(d, "datasource")["label"] = "Prometheus" }},
		{"template-instance-rule", func(d map[string]any) { variable(d, "instance")["allValue"] = ".*" }},
		{"template-job-rule", func(d map[string]any) { variable(d, "job")["name"] = "service" }},
		{"template-job-rule", func(d map[string]any) { variable(d, "job")["multi"] = false }},
		{"template-on-time-change-reload-rule", func(d map[string]any) { variable(d, "instance")["refresh"] = 1 }},
		{"template-label-promql-rule", func(d map[string]any) { variable(d, "instance")["query"] = "label_values(up{, instance)" }},
		{"panel-title-description-rule", func(d map[string]any) { panel(d)["description"] = "" }},
		{"panel-datasource-rule", func(d map[string]any) { panel(d)["datasource"] = map[string]any{"uid": "prometheus"} }},
		{"panel-no-targets-rule", func(d map[string]any) { panel(d)["targets"] = []any{} }},
		{"target-job-rule", func(d map[string]any) {
			setExpr(d, `sum(rate(catalogd_http_requests_total{instance=~"$instance"}[$__rate_interval]))`)
		}},
		{"target-instance-rule", func(d map[string]any) {
			setExpr(d, `catalogd_cache_bytes{job=~"$job", instance=~".*"}`)
		}},
		{"target-rate-interval-rule", func(d map[string]any) {
			setExpr(d, `sum(rate(catalogd_http_requests_total{job=~"$job", instance=~"$instance"}[5m]))`)
		}},
		{"target-counter-agg-rule", func(d map[string]any) {
			setExpr(d, `sum(catalogd_http_requests_total{job=~"$job", instance=~"$instance"})`)
		}},
		{"target-promql-rule", func(d map[string]any) { setExpr(d, `sum(rate(catalogd_http_requests_total[$job]))`) }},
	}
	for _, tt := range tests {
		var d map[string]any
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		tt.spoil(d)
		broken, _ := json.Marshal(d)
		problems, err := lint(broken)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, tt.rule+": ") }) {
			t.Errorf("%s: not caught; found %q", tt.rule, problems)
		}
	}
}
