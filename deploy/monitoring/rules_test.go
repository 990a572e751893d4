package monitoring_test

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"catalogd/deploy/internal/proxytest"
)

// promtool runs Debian's promtool with args and fails the test unless it
// succeeds.
func promtool(t *testing.T, args ...string) {
	t.Helper()
	bin := proxytest.Binary(t, "prometheus", "/usr/bin/promtool", "promtool")
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("promtool %s:\n%s", strings.Join(args, " "), out)
}

// The rules are valid as Prometheus reads them, and their unit tests
// (catalogd.rules.test.yml) pass.
func TestPromtool(t *testing.T) {
	t.Run("check rules", func(t *testing.T) { promtool(t, "check", "rules", "catalogd.rules.yml") })
	t.Run("test rules", func(t *testing.T) { promtool(t, "test", "rules", "catalogd.rules.test.yml") })
}

// rule is an alerting rule of catalogd.rules.yml.
type rule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func alertRules(t *testing.T) []rule {
	t.Helper()
	var f struct {
		Groups []struct {
			Rules []rule `yaml:"rules"`
		} `yaml:"groups"`
	}
	readYAML(t, "catalogd.rules.yml", &f)
	var out []rule
	for _, g := range f.Groups {
		out = append(out, g.Rules...)
	}
	return out
}

// headingRE is a markdown heading.
var headingRE = regexp.MustCompile(`(?m)^#{2,6} +(.+)$`)

// Every alert tells whoever it pages what to do: a summary, a description,
// a severity Alertmanager can route on, and a runbook section of
// docs/operations.md that exists. And every alert has a unit test where it
// fires and one where it stays silent.
func TestEveryAlertHasARunbookAndBothTests(t *testing.T) {
	rules := alertRules(t)
	if len(rules) < 11 {
		t.Fatalf("%d alerts, want at least the 11 of issue 36", len(rules))
	}
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	var anchors []string
	for _, m := range headingRE.FindAllStringSubmatch(string(doc), -1) {
		anchors = append(anchors, "docs/operations.md#"+strings.ToLower(strings.ReplaceAll(strings.TrimSpace(m[1]), " ", "-")))
	}
	var tests struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string `yaml:"alertname"`
				ExpAlerts []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	readYAML(t, "catalogd.rules.test.yml", &tests)
	fires, silent := map[string]bool{}, map[string]bool{}
	for _, tc := range tests.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			} else {
				silent[a.Alertname] = true
			}
		}
	}
	for _, r := range rules {
		for _, k := range []string{"summary", "description", "runbook"} {
			if strings.TrimSpace(r.Annotations[k]) == "" {
				t.Errorf("%s has no %s", r.Alert, k)
			}
		}
		if s := r.Labels["severity"]; s != "critical" && s != "warning" {
			t.Errorf("%s: severity %q, want critical or warning", r.Alert, s)
		}
		if want := "docs/operations.md#" + strings.ToLower(r.Alert); r.Annotations["runbook"] != want {
			t.Errorf("%s: runbook %q, want %q", r.Alert, r.Annotations["runbook"], want)
		} else if !slices.Contains(anchors, want) {
			t.Errorf("%s: docs/operations.md has no heading %s", r.Alert, r.Alert)
		}
		if !fires[r.Alert] {
			t.Errorf("%s: no unit test where it fires", r.Alert)
		}
		if !silent[r.Alert] {
			t.Errorf("%s: no unit test where it stays silent", r.Alert)
		}
	}
}
