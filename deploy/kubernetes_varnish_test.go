package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The NetworkPolicy lets catalogd's purger out (the CDN's API over HTTPS,
// Varnish's purge port) and Varnish in; the optional Varnish component
// runs the shipped VCL with the shipped start parameters, is reached by
// the ingress on its public port and by catalogd alone on its purge port,
// and catalogd purges every one of its pods.
func TestKubernetesVarnish(t *testing.T) {
	np := yamlObjects(t, "kubernetes/networkpolicy.yaml")["NetworkPolicy/catalogd"]
	spec, _ := yaml.Marshal(np["spec"])
	var pol struct {
		PolicyTypes []string `yaml:"policyTypes"`
		Ingress     []struct {
			From []map[string]any `yaml:"from"`
		} `yaml:"ingress"`
		Egress []struct {
			To    []map[string]any `yaml:"to"`
			Ports []struct {
				Protocol string `yaml:"protocol"`
				Port     any    `yaml:"port"`
			} `yaml:"ports"`
		} `yaml:"egress"`
	}
	if err := yaml.Unmarshal(spec, &pol); err != nil {
		t.Fatal(err)
	}
	egress := map[string]string{} // port → the pods it is limited to, "" for any address
	for _, r := range pol.Egress {
		to := ""
		for _, d := range r.To {
			to += fmt.Sprint(dig(d, "podSelector", "matchLabels", "app.kubernetes.io/name"))
		}
		for _, p := range r.Ports {
			egress[fmt.Sprint(p.Port)] = to
		}
	}
	if !slices.Contains(pol.PolicyTypes, "Egress") {
		t.Errorf("policyTypes %v: the egress rules restrict nothing", pol.PolicyTypes)
	}
	for port, to := range map[string]string{"443": "", "3306": "", "53": "", "6091": "catalogd-varnish"} {
		if got, ok := egress[port]; !ok || got != to {
			t.Errorf("catalogd's egress to port %s: %q (allowed %v), want to %q", port, got, ok, to)
		}
	}
	fromVarnish := false
	for _, r := range pol.Ingress {
		for _, f := range r.From {
			fromVarnish = fromVarnish || dig(f, "podSelector", "matchLabels", "app.kubernetes.io/name") == "catalogd-varnish"
		}
	}
	if !fromVarnish {
		t.Error("the NetworkPolicy keeps Varnish from catalogd")
	}

	// The component.
	k, err := os.ReadFile("kubernetes/varnish/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var kust struct {
		Kind      string   `yaml:"kind"`
		Resources []string `yaml:"resources"`
		Gen       []struct {
			Files []string `yaml:"files"`
		} `yaml:"configMapGenerator"`
		Patches []struct {
			Patch string `yaml:"patch"`
		} `yaml:"patches"`
	}
	if err := yaml.Unmarshal(k, &kust); err != nil {
		t.Fatal(err)
	}
	if kust.Kind != "Component" {
		t.Errorf("kubernetes/varnish is a %s, want a kustomize Component", kust.Kind)
	}
	for _, r := range kust.Resources {
		exists(t, filepath.Join("kubernetes/varnish", r))
	}
	if len(kust.Gen) != 1 || !slices.Equal(kust.Gen[0].Files, []string{"catalogd.vcl"}) {
		t.Errorf("the VCL ConfigMap is generated from %+v, want catalogd.vcl", kust.Gen)
	}
	// Its VCL is the shipped one, but for the backend and the purgers.
	shipped, _ := os.ReadFile("varnish/catalogd.vcl")
	copied, _ := os.ReadFile("kubernetes/varnish/catalogd.vcl")
	norm := func(b []byte) string {
		s := regexp.MustCompile(`(?s)acl purgers \{.*?\}`).ReplaceAllString(string(b), "acl purgers {}")
		s = regexp.MustCompile(`\.host = "[^"]*";`).ReplaceAllString(s, `.host = "";`)
		return regexp.MustCompile(`(?m)^#.*\n`).ReplaceAllString(s, "")
	}
	if norm(shipped) != norm(copied) {
		t.Error("kubernetes/varnish/catalogd.vcl drifted from varnish/catalogd.vcl beyond the backend and the purgers")
	}
	if !strings.Contains(string(copied), `.host = "catalogd";`) {
		t.Error("the cluster's VCL does not point at the Service catalogd")
	}

	objs := yamlObjects(t, "kubernetes/varnish/*.yaml")
	sts := objs["StatefulSet/catalogd-varnish"]
	if sts == nil {
		t.Fatal("StatefulSet/catalogd-varnish missing")
	}
	var args []string
	for _, a := range dig(sts, "spec", "template", "spec", "containers", 0, "args").([]any) {
		args = append(args, fmt.Sprint(a))
	}
	unit, _ := os.ReadFile("varnish/varnish.service.d/catalogd.conf")
	for _, m := range regexp.MustCompile(`(?m)^\s+-p (\w+=\S+)`).FindAllStringSubmatch(string(unit), -1) {
		if i := slices.Index(args, m[1]); i < 1 || args[i-1] != "-p" {
			t.Errorf("the StatefulSet does not start varnishd with -p %s, as the drop-in does", m[1])
		}
	}
	for _, want := range []string{":6081", "purge=:6091"} {
		if i := slices.Index(args, want); i < 1 || args[i-1] != "-a" {
			t.Errorf("the StatefulSet has no listener -a %s", want)
		}
	}
	if dig(sts, "spec", "serviceName") != "catalogd-varnish-peers" || objs["Service/catalogd-varnish-peers"] == nil ||
		dig(objs["Service/catalogd-varnish-peers"], "spec", "clusterIP") != "None" {
		t.Error("the Varnish pods have no stable names (a headless Service catalogd-varnish-peers as the StatefulSet's serviceName)")
	}
	// catalogd purges every pod by name.
	replicas, _ := dig(sts, "spec", "replicas").(int)
	var want []string
	for i := range replicas {
		want = append(want, fmt.Sprintf("http://catalogd-varnish-%d.catalogd-varnish-peers:6091", i))
	}
	named := false // by the patch of catalogd's ConfigMap (another mounts the purge secret)
	for _, p := range kust.Patches {
		named = named || strings.Contains(p.Patch, "/data/CATALOG_PURGE_VARNISH\n") && strings.Contains(p.Patch, `"`+strings.Join(want, ",")+`"`)
	}
	if !named {
		t.Errorf("CATALOG_PURGE_VARNISH does not name the %d Varnish pods %v: %+v", replicas, want, kust.Patches)
	}
	// Who reaches Varnish: the ingress controller on http, catalogd alone
	// on purge.
	vnp, _ := yaml.Marshal(dig(objs["NetworkPolicy/catalogd-varnish"], "spec"))
	var vpol ingressPolicy
	if err := yaml.Unmarshal(vnp, &vpol); err != nil {
		t.Fatal(err)
	}
	if len(vpol.Ingress) == 0 {
		t.Fatal("no NetworkPolicy for Varnish: any pod could purge it")
	}
	if problems := purgePortReach(vpol); len(problems) > 0 {
		t.Errorf("Varnish's NetworkPolicy: %s", strings.Join(problems, "; "))
	}
}

// ingressPolicy is a NetworkPolicy's ingress rules.
type ingressPolicy struct {
	Ingress []struct {
		From  []map[string]any `yaml:"from"`
		Ports []struct {
			Port any `yaml:"port"`
		} `yaml:"ports"`
	} `yaml:"ingress"`
}

// purgePortReach says what is wrong with who reaches Varnish's purge port
// (named purge, 6091) under the policy: only catalogd's pods of its own
// namespace may, and they must. A rule without ports opens every port, one
// without from every source.
func purgePortReach(pol ingressPolicy) []string {
	var problems []string
	catalogd := false
	for i, r := range pol.Ingress {
		opens := len(r.Ports) == 0
		for _, p := range r.Ports {
			opens = opens || fmt.Sprint(p.Port) == "purge" || fmt.Sprint(p.Port) == "6091"
		}
		if !opens {
			continue
		}
		if len(r.From) == 0 {
			problems = append(problems, fmt.Sprintf("rule %d opens the purge port to every source", i))
		}
		for _, f := range r.From {
			if dig(f, "podSelector", "matchLabels", "app.kubernetes.io/name") != "catalogd" || f["namespaceSelector"] != nil || f["ipBlock"] != nil {
				problems = append(problems, fmt.Sprintf("rule %d lets %v reach the purge port; only catalogd may", i, f))
				continue
			}
			catalogd = true
		}
	}
	if !catalogd {
		problems = append(problems, "no rule lets catalogd reach the purge port: it cannot purge")
	}
	return problems
}

// The purge port check fails where it should: a rule without ports or
// without sources opens the purge port; catalogd shut out is a failure too.
func TestPurgePortReach(t *testing.T) {
	tests := []struct {
		name, policy string
		ok           bool
	}{
		{"catalogd alone on purge", `
ingress:
  - from: [{podSelector: {matchLabels: {app.kubernetes.io/name: ingress-nginx}}}]
    ports: [{port: http}]
  - from: [{podSelector: {matchLabels: {app.kubernetes.io/name: catalogd}}}]
    ports: [{port: purge}]`, true},
		{"the ingress on every port", `
ingress:
  - from: [{podSelector: {matchLabels: {app.kubernetes.io/name: ingress-nginx}}}]
  - from: [{podSelector: {matchLabels: {app.kubernetes.io/name: catalogd}}}]
    ports: [{port: purge}]`, false},
		{"every source on 6091", `
ingress:
  - from: [{podSelector: {matchLabels: {app.kubernetes.io/name: catalogd}}}]
    ports: [{port: purge}]
  - ports: [{port: 6091}]`, false},
		{"catalogd of any namespace", `
ingress:
  - from: [{namespaceSelector: {}, podSelector: {matchLabels: {app.kubernetes.io/name: catalogd}}}]
    ports: [{port: purge}]`, false},
		{"catalogd shut out", `
ingress:
  - from: [{podSelector: {matchLabels: {app.kubernetes.io/name: ingress-nginx}}}]
    ports: [{port: http}]`, false},
	}
	for _, tt := range tests {
		var pol ingressPolicy
		if err := yaml.Unmarshal([]byte(tt.policy), &pol); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if problems := purgePortReach(pol); (len(problems) == 0) != tt.ok {
			t.Errorf("%s: problems %q, want ok = %v", tt.name, problems, tt.ok)
		}
	}
}
