package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type object struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec map[string]any    `yaml:"spec"`
	Data map[string]string `yaml:"data"`
}

func TestKubernetes(t *testing.T) {
	files, _ := filepath.Glob("kubernetes/*.yaml")
	objs := map[string]object{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var o object
			if err := dec.Decode(&o); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if o.Kind == "" {
				t.Errorf("%s: an object without kind", f)
			}
			objs[o.Kind+"/"+o.Metadata.Name] = o
		}
	}
	for _, want := range []string{"Deployment/catalogd", "Service/catalogd", "HorizontalPodAutoscaler/catalogd",
		"PodDisruptionBudget/catalogd", "ConfigMap/catalogd", "Secret/catalogd-db", "Kustomization/"} {
		if _, ok := objs[want]; !ok {
			t.Errorf("%s missing", want)
		}
	}
	for _, r := range kustomizeResources(t) {
		exists(t, filepath.Join("kubernetes", r.(string)))
	}

	dep, _ := yaml.Marshal(objs["Deployment/catalogd"].Spec)
	for _, want := range []string{"name: catalogd", "secretName: catalogd-db", "name: CATALOG_DSN_FILE", "path: /readyz", "path: /healthz", "port: admin",
		"containerPort: 9090", "runAsNonRoot: true", "readOnlyRootFilesystem: true"} {
		if !bytes.Contains(dep, []byte(want)) {
			t.Errorf("Deployment lacks %q", want)
		}
	}
	if admin := objs["ConfigMap/catalogd"].Data["CATALOG_ADMIN_LISTEN"]; !strings.HasSuffix(admin, ":9090") {
		t.Errorf("probes use 9090, ConfigMap sets the admin listener to %q", admin)
	}
	svc, _ := yaml.Marshal(objs["Service/catalogd"].Spec)
	if bytes.Contains(svc, []byte("9090")) || bytes.Contains(svc, []byte("admin")) {
		t.Errorf("the Service exposes the admin port:\n%s", svc)
	}
	checkNetworkPolicy(t, objs)
	checkTrustedProxies(t, objs["ConfigMap/catalogd"].Data["CATALOG_TRUSTED_PROXIES"])
}

// networkPolicy is the part of a NetworkPolicy the checks read.
type networkPolicy struct {
	PodSelector struct {
		MatchLabels map[string]string `yaml:"matchLabels"`
	} `yaml:"podSelector"`
	PolicyTypes []string `yaml:"policyTypes"`
	Ingress     []struct {
		From []map[string]any `yaml:"from"`
		Port []struct {
			Port any `yaml:"port"`
		} `yaml:"ports"`
	} `yaml:"ingress"`
}

// checkNetworkPolicy: a policy selects catalogd's pods, so that only what it
// allows reaches them, and what it allows is the ingress controller's pods
// on the public port and Prometheus's on the admin port; no rule admits
// every source, and the admin port only pods of one namespace chosen by
// their labels (deploy/checks evaluates the built policy for Prometheus).
func checkNetworkPolicy(t *testing.T, objs map[string]object) {
	t.Helper()
	o, ok := objs["NetworkPolicy/catalogd"]
	if !ok {
		t.Error("NetworkPolicy/catalogd missing: any pod can reach the public and the admin port")
		return
	}
	listed := false
	for _, r := range kustomizeResources(t) {
		listed = listed || strings.Contains(r.(string), "networkpolicy")
	}
	if !listed {
		t.Error("the kustomization does not apply the NetworkPolicy")
	}
	raw, _ := yaml.Marshal(o.Spec)
	var np networkPolicy
	if err := yaml.Unmarshal(raw, &np); err != nil {
		t.Fatal(err)
	}
	var dep struct {
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
		} `yaml:"template"`
	}
	rawDep, _ := yaml.Marshal(objs["Deployment/catalogd"].Spec)
	if err := yaml.Unmarshal(rawDep, &dep); err != nil {
		t.Fatal(err)
	}
	if len(np.PodSelector.MatchLabels) == 0 {
		t.Error("the NetworkPolicy selects no pods by label")
	}
	for k, v := range np.PodSelector.MatchLabels {
		if dep.Template.Metadata.Labels[k] != v {
			t.Errorf("the NetworkPolicy selects %s=%s, which catalogd's pods do not carry", k, v)
		}
	}
	if !slices.Contains(np.PolicyTypes, "Ingress") {
		t.Errorf("policyTypes %v lacks Ingress: the policy restricts nothing coming in", np.PolicyTypes)
	}
	if len(np.Ingress) == 0 {
		t.Error("no ingress rule: not even the ingress controller reaches catalogd")
	}
	for i, rule := range np.Ingress {
		if len(rule.From) == 0 {
			t.Errorf("ingress rule %d admits every source", i)
		}
		for _, from := range rule.From {
			_, pods := from["podSelector"]
			block, _ := from["ipBlock"].(map[string]any)
			cidr, err := netip.ParsePrefix(fmt.Sprint(block["cidr"]))
			if !pods && (err != nil || cidr.Bits() < 16) {
				t.Errorf("ingress rule %d admits more than the ingress controller (its pods, or a narrow ipBlock): %v", i, from)
			}
		}
		if len(rule.Port) == 0 {
			t.Errorf("ingress rule %d opens every port, the admin port too", i)
		}
		for _, p := range rule.Port {
			switch s := fmt.Sprint(p.Port); {
			case s == "http" || s == "8080":
			case s == "admin" || s == "9090":
				for _, from := range rule.From {
					ns, _ := dig(from, "namespaceSelector", "matchLabels").(map[string]any)
					pods, _ := dig(from, "podSelector", "matchLabels").(map[string]any)
					if len(ns) == 0 || len(pods) == 0 {
						t.Errorf("ingress rule %d opens the admin port to %v; only to Prometheus's pods, by their namespace and labels", i, from)
					}
				}
			default:
				t.Errorf("ingress rule %d opens port %s; only the public port (http, 8080) may be reached, and the admin port by Prometheus", i, s)
			}
		}
	}
}

// checkTrustedProxies: catalogd believes X-Forwarded-For only from the
// ingress controller's addresses, not from a whole private range any pod
// of the cluster (or anything routed through it) sits in.
func checkTrustedProxies(t *testing.T, v string) {
	t.Helper()
	if strings.TrimSpace(v) == "" {
		t.Error("CATALOG_TRUSTED_PROXIES is empty: every client would share the ingress controller's window")
	}
	for _, s := range strings.Split(v, ",") {
		p, err := netip.ParsePrefix(strings.TrimSpace(s))
		if err != nil {
			t.Errorf("CATALOG_TRUSTED_PROXIES: %q is no CIDR: %v", s, err)
			continue
		}
		if p.Bits() < 16 {
			t.Errorf("CATALOG_TRUSTED_PROXIES trusts %s, wider than an ingress controller's addresses", p)
		}
	}
}

// kustomizeResources lists the files the kustomization applies.
func kustomizeResources(t *testing.T) []any {
	t.Helper()
	b, err := os.ReadFile("kubernetes/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	l, _ := m["resources"].([]any)
	if len(l) == 0 {
		t.Fatal("kustomization has no resources")
	}
	return l
}

// yamlObjects decodes every object of the YAML files matching glob, by
// kind/name, as generic maps.
func yamlObjects(t *testing.T, glob string) map[string]map[string]any {
	t.Helper()
	files, _ := filepath.Glob(glob)
	out := map[string]map[string]any{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var o map[string]any
			if err := dec.Decode(&o); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			meta, _ := o["metadata"].(map[string]any)
			out[fmt.Sprint(o["kind"])+"/"+fmt.Sprint(meta["name"])] = o
		}
	}
	return out
}

// dig walks a generic YAML value by map keys and list indexes.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}
