// Package deploy holds the deployment files. No Docker engine or cluster
// runs here, so this test checks what can be checked without one: every
// file parses, references only files and objects that exist, and keeps the
// admin port private.
package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func exists(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("referenced file missing: %s", path)
	}
}

func TestCompose(t *testing.T) {
	b, err := os.ReadFile("../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Services map[string]struct {
			Build *struct {
				Context    string `yaml:"context"`
				Dockerfile string `yaml:"dockerfile"`
			} `yaml:"build"`
			Image       string            `yaml:"image"`
			Ports       []string          `yaml:"ports"`
			Volumes     []string          `yaml:"volumes"`
			Environment map[string]string `yaml:"environment"`
			Restart     string            `yaml:"restart"`
			Healthcheck *struct {
				Test []string `yaml:"test"`
			} `yaml:"healthcheck"`
		} `yaml:"services"`
		Networks map[string]struct {
			IPAM struct {
				Config []struct {
					Subnet string `yaml:"subnet"`
				} `yaml:"config"`
			} `yaml:"ipam"`
		} `yaml:"networks"`
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	for _, name := range []string{"db", "catalogd", "wordpress", "nginx"} {
		if _, ok := c.Services[name]; !ok {
			t.Errorf("service %s missing", name)
		}
	}
	for name, s := range c.Services {
		if s.Build != nil {
			exists(t, filepath.Join("..", s.Build.Context, s.Build.Dockerfile))
		} else if s.Image == "" {
			t.Errorf("service %s has neither build nor image", name)
		}
		for _, v := range s.Volumes {
			src, _, _ := strings.Cut(v, ":")
			if strings.HasPrefix(src, "./") {
				exists(t, filepath.Join("..", src))
			}
		}
		for _, p := range s.Ports {
			if strings.Contains(p, "9090") {
				t.Errorf("service %s publishes the admin port: %s", name, p)
			}
		}
		if s.Restart == "" || s.Restart == "no" {
			t.Errorf("service %s has no restart policy", name)
		}
		if s.Healthcheck == nil || len(s.Healthcheck.Test) < 2 || s.Healthcheck.Test[0] != "CMD" {
			t.Errorf("service %s has no healthcheck run as a command (its images have no shell): %+v", name, s.Healthcheck)
		}
	}
	// make demo serves on 8080: compose publishes another port, so both run.
	if c.Services["nginx"].Ports == nil || c.Services["nginx"].Ports[0] != "8081:80" {
		t.Errorf("nginx does not serve the compose demo on :8081: %v", c.Services["nginx"].Ports)
	}
	if got := c.Services["catalogd"].Environment["CATALOG_SITE_URL"]; got != "http://localhost:8081" {
		t.Errorf("catalogd's site URL %q is not the published port's", got)
	}
	// The catalogd image is distroless: its probe is catalogd's own
	// healthcheck (cmd/catalogd's TestHealthcheck runs it), which finds the
	// admin listener from the image's CATALOG_ADMIN_LISTEN.
	if hc := c.Services["catalogd"].Healthcheck; hc == nil || strings.Join(hc.Test, " ") != "CMD /usr/local/bin/catalogd healthcheck" {
		t.Errorf("catalogd's healthcheck is not catalogd healthcheck: %+v", hc)
	}
	// catalogd believes X-Forwarded-For from the compose network alone.
	nets := c.Networks["default"].IPAM.Config
	if len(nets) != 1 || nets[0].Subnet == "" {
		t.Fatalf("the compose network has no fixed subnet: %+v", c.Networks)
	}
	if got := c.Services["catalogd"].Environment["CATALOG_TRUSTED_PROXIES"]; got != nets[0].Subnet {
		t.Errorf("catalogd trusts %q, not the compose network %s", got, nets[0].Subnet)
	}
	checkTrustedProxies(t, c.Services["catalogd"].Environment["CATALOG_TRUSTED_PROXIES"])
	// nginx in its container reaches what it includes and catalogd itself:
	// every file an included config names is mounted, and the upstream is
	// the catalogd service, not the loopback of nginx's own container.
	mounted := map[string]string{} // path in the container → file here
	for _, v := range c.Services["nginx"].Volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 {
			mounted[parts[1]] = filepath.Join("..", parts[0])
		}
	}
	includeRE := regexp.MustCompile(`(?m)^\s*include\s+(\S+);`)
	for target, src := range mounted {
		b, err := os.ReadFile(src)
		if err != nil {
			continue // exists() above reports it
		}
		for _, m := range includeRE.FindAllStringSubmatch(string(b), -1) {
			if _, ok := mounted[m[1]]; !ok {
				t.Errorf("%s (mounted at %s) includes %s, which the nginx service does not mount", src, target, m[1])
			}
		}
	}
	if up, err := os.ReadFile(mounted["/etc/nginx/catalogd-upstream.conf"]); err != nil || !strings.Contains(string(up), "server catalogd:8080;") {
		t.Errorf("nginx's upstream in docker compose is not the catalogd service on :8080 (%v)", err)
	}
	if c.Services["catalogd"].Ports != nil {
		t.Error("catalogd is published directly; only nginx should reach it")
	}
	if dsn := c.Services["catalogd"].Environment["CATALOG_DSN"]; !strings.HasPrefix(dsn, "catalogd:") {
		t.Errorf("catalogd does not use the read-only user: %s", dsn)
	}
}

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

func TestSystemdAndDockerfile(t *testing.T) {
	unit, err := os.ReadFile("systemd/catalogd.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"DynamicUser=yes", "ProtectSystem=strict", "NoNewPrivileges=yes", "Restart=on-failure",
		"ExecStart=/usr/local/bin/catalogd", "EnvironmentFile="} {
		if !bytes.Contains(unit, []byte(want)) {
			t.Errorf("catalogd.service lacks %s", want)
		}
	}
	checkStopTimeout(t, string(unit))
	df, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CGO_ENABLED=0", "USER nonroot", "./cmd/catalogd", "distroless/static",
		`HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["/usr/local/bin/catalogd", "healthcheck"]`} {
		if !bytes.Contains(df, []byte(want)) {
			t.Errorf("Dockerfile lacks %s", want)
		}
	}
	exists(t, "../cmd/catalogd/main.go")
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
