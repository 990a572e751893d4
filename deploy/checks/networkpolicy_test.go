package checks_test

import (
	"os"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// This file evaluates the NetworkPolicies kustomize builds as the cluster
// would, for the connections that matter: Prometheus scraping the port the
// PodMonitor names, and the pods that must not reach it.

// pod is a pod as a NetworkPolicy sees it: its namespace, its labels and,
// as a destination, its containers' ports.
type pod struct {
	namespace string
	labels    map[string]string
	ports     []corev1.ContainerPort
}

// namespaceLabels are the labels Kubernetes gives every namespace.
func namespaceLabels(name string) labels.Set { return labels.Set{"kubernetes.io/metadata.name": name} }

// matches says whether a label selector selects set; a nil one selects
// nothing here (the callers treat a nil selector themselves).
func matches(t *testing.T, sel *metav1.LabelSelector, set labels.Set) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatalf("selector %v: %v", sel, err)
	}
	return s.Matches(set)
}

// admits says whether the policies let src open a TCP connection to dst's
// port, as Kubernetes defines it: a pod no policy of its namespace selects
// for ingress takes every connection; one that is selected takes only
// those a rule of such a policy allows, by source and by port. A policy
// without a namespace is applied in dst's.
func admits(t *testing.T, policies []*networkingv1.NetworkPolicy, src, dst pod, port int32) bool {
	t.Helper()
	selected := false
	for _, np := range policies {
		ns := np.Namespace
		if ns == "" {
			ns = dst.namespace
		}
		if ns != dst.namespace || !matches(t, &np.Spec.PodSelector, dst.labels) {
			continue
		}
		ingress := len(np.Spec.PolicyTypes) == 0
		for _, pt := range np.Spec.PolicyTypes {
			ingress = ingress || pt == networkingv1.PolicyTypeIngress
		}
		if !ingress {
			continue
		}
		selected = true
		for _, rule := range np.Spec.Ingress {
			if portAllowed(rule.Ports, dst, port) && sourceAllowed(t, rule.From, ns, src) {
				return true
			}
		}
	}
	return !selected
}

// portAllowed says whether a rule's ports take TCP port of dst: no ports
// take every port; a named one is the port dst's container gives that name.
func portAllowed(ports []networkingv1.NetworkPolicyPort, dst pod, port int32) bool {
	if len(ports) == 0 {
		return true
	}
	for _, p := range ports {
		if p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP {
			continue
		}
		switch {
		case p.Port == nil:
			return true
		case p.Port.StrVal != "":
			for _, c := range dst.ports {
				if c.Name == p.Port.StrVal && c.ContainerPort == port && (c.Protocol == "" || c.Protocol == corev1.ProtocolTCP) {
					return true
				}
			}
		case p.EndPort != nil:
			if port >= p.Port.IntVal && port <= *p.EndPort {
				return true
			}
		case p.Port.IntVal == port:
			return true
		}
	}
	return false
}

// sourceAllowed says whether a rule's peers take src: no peers take every
// source; a peer with a pod selector alone selects pods of the policy's
// namespace, with a namespace selector those of the namespaces it selects.
// An ipBlock names addresses, not pods: none of the pods here.
func sourceAllowed(t *testing.T, from []networkingv1.NetworkPolicyPeer, policyNS string, src pod) bool {
	if len(from) == 0 {
		return true
	}
	for _, peer := range from {
		if peer.IPBlock != nil {
			continue
		}
		inNamespace := src.namespace == policyNS
		if peer.NamespaceSelector != nil {
			inNamespace = matches(t, peer.NamespaceSelector, namespaceLabels(src.namespace))
		}
		if inNamespace && (peer.PodSelector == nil || matches(t, peer.PodSelector, src.labels)) {
			return true
		}
	}
	return false
}

// scrapeTarget is what the PodMonitor scrapes in a build: the pods of the
// Deployment it selects, and the port number its endpoint names.
func scrapeTarget(t *testing.T, objs map[string]runtime.Object, namespace string) (pod, int32) {
	t.Helper()
	b, err := os.ReadFile("../monitoring/catalogd-podmonitor.yaml")
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := decodeAll(b)
	if err != nil || len(decoded) != 1 {
		t.Fatalf("catalogd-podmonitor.yaml: %v %v", decoded, err)
	}
	pm := decoded[0].(*monitoringv1.PodMonitor)
	dep, _ := objs["Deployment/catalogd"].(*appsv1.Deployment)
	if dep == nil {
		t.Fatal("no Deployment/catalogd built")
	}
	target := pod{namespace: namespace, labels: dep.Spec.Template.Labels}
	if !matches(t, &pm.Spec.Selector, target.labels) {
		t.Fatalf("the PodMonitor selects %v, which catalogd's pods %v do not carry", pm.Spec.Selector, target.labels)
	}
	for _, c := range dep.Spec.Template.Spec.Containers {
		target.ports = append(target.ports, c.Ports...)
	}
	if len(pm.Spec.PodMetricsEndpoints) != 1 || pm.Spec.PodMetricsEndpoints[0].Port == nil {
		t.Fatalf("the PodMonitor names no port: %+v", pm.Spec.PodMetricsEndpoints)
	}
	name := *pm.Spec.PodMetricsEndpoints[0].Port
	for _, p := range target.ports {
		if p.Name == name {
			return target, p.ContainerPort
		}
	}
	t.Fatalf("the PodMonitor scrapes port %q, which catalogd's container does not name", name)
	return pod{}, 0
}

// prometheusConfig is the namespace and the pods' name label of the
// Prometheus named in prometheus.yaml, under dir.
func prometheusConfig(t *testing.T, fs filesys.FileSystem, dir string) (namespace, name string) {
	t.Helper()
	b, err := fs.ReadFile(dir + "/prometheus.yaml")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decodeAll(b)
	if err != nil || len(objs) != 1 {
		t.Fatalf("prometheus.yaml: %v %v", objs, err)
	}
	cm := objs[0].(*corev1.ConfigMap)
	return cm.Data["namespace"], cm.Data["name"]
}

// policies are the NetworkPolicies of a build.
func policies(objs map[string]runtime.Object) []*networkingv1.NetworkPolicy {
	var out []*networkingv1.NetworkPolicy
	for _, o := range objs {
		if np, ok := o.(*networkingv1.NetworkPolicy); ok {
			out = append(out, np)
		}
	}
	return out
}

// checkScrape evaluates the built policies for the connections to
// catalogd's pods (in the namespace shop) of the Prometheus named in
// prometheus.yaml and of the pods that must not get in.
func checkScrape(t *testing.T, objs map[string]runtime.Object, promNS, promName string) {
	t.Helper()
	catalogd, admin := scrapeTarget(t, objs, "shop")
	var http int32
	for _, p := range catalogd.ports {
		if p.Name == "http" {
			http = p.ContainerPort
		}
	}
	prometheus := map[string]string{"app.kubernetes.io/name": promName, "app.kubernetes.io/managed-by": "prometheus-operator"}
	nginx := map[string]string{"app.kubernetes.io/name": "ingress-nginx"}
	other := map[string]string{"app.kubernetes.io/name": "grafana"}
	nps := policies(objs)
	for _, c := range []struct {
		what string
		src  pod
		port int32
		want bool
	}{
		{"Prometheus scraping the PodMonitor's port", pod{namespace: promNS, labels: prometheus}, admin, true},
		{"Prometheus on the public port", pod{namespace: promNS, labels: prometheus}, http, false},
		{"another pod of Prometheus's namespace on the admin port", pod{namespace: promNS, labels: other}, admin, false},
		{"a pod labelled as Prometheus in catalogd's namespace", pod{namespace: "shop", labels: prometheus}, admin, false},
		{"a pod labelled as Prometheus in another namespace", pod{namespace: "tenant", labels: prometheus}, admin, false},
		{"the ingress controller on the public port", pod{namespace: "ingress-nginx", labels: nginx}, http, true},
		{"the ingress controller on the admin port", pod{namespace: "ingress-nginx", labels: nginx}, admin, false},
	} {
		if got := admits(t, nps, c.src, catalogd, c.port); got != c.want {
			t.Errorf("%s (%s %v to port %d): admitted %v, want %v", c.what, c.src.namespace, c.src.labels, c.port, got, c.want)
		}
	}
}

// As shipped, the NetworkPolicy lets the Prometheus prometheus.yaml names
// scrape the port the PodMonitor names (CatalogdDown fired on a healthy
// deployment while it did not), and no other pod reach it; with the
// Varnish component too.
func TestPrometheusScrapesThroughTheNetworkPolicy(t *testing.T) {
	disk := filesys.MakeFsOnDisk()
	ns, name := prometheusConfig(t, disk, "../kubernetes")
	if ns == "" || name == "" {
		t.Fatalf("prometheus.yaml names namespace %q, pods %q", ns, name)
	}
	checkScrape(t, build(t, disk, "../kubernetes"), ns, name)

	fs := filesys.MakeFsInMemory()
	copyTree(t, fs, "../kubernetes", "/k")
	k, _ := fs.ReadFile("/k/kustomization.yaml")
	on := strings.Replace(string(k), "# components:\n#   - varnish\n", "components:\n  - varnish\n", 1)
	if err := fs.WriteFile("/k/kustomization.yaml", []byte(on)); err != nil {
		t.Fatal(err)
	}
	checkScrape(t, build(t, fs, "/k"), ns, name)
}

// The namespace and the label are set in prometheus.yaml alone: changed
// there, the policy admits the Prometheus named, and the old one no more.
func TestPrometheusIsNamedOnce(t *testing.T) {
	fs := filesys.MakeFsInMemory()
	copyTree(t, fs, "../kubernetes", "/k")
	ns, name := prometheusConfig(t, fs, "/k")
	b, _ := fs.ReadFile("/k/prometheus.yaml")
	moved := strings.Replace(strings.Replace(string(b), "namespace: "+ns+"\n", "namespace: observability\n", 1),
		"name: "+name+"\n", "name: prom-shop\n", 1)
	if err := fs.WriteFile("/k/prometheus.yaml", []byte(moved)); err != nil {
		t.Fatal(err)
	}
	if gotNS, gotName := prometheusConfig(t, fs, "/k"); gotNS != "observability" || gotName != "prom-shop" {
		t.Fatalf("prometheus.yaml rewritten names %s, %s", gotNS, gotName)
	}
	objs := build(t, fs, "/k")
	checkScrape(t, objs, "observability", "prom-shop")
	catalogd, admin := scrapeTarget(t, objs, "shop")
	if admits(t, policies(objs), pod{namespace: ns, labels: map[string]string{"app.kubernetes.io/name": name}}, catalogd, admin) {
		t.Errorf("the Prometheus of %s, %s still admitted once prometheus.yaml names another", ns, name)
	}
}

// The evaluation follows Kubernetes's rules: a pod no policy selects for
// ingress takes everything; policies add up; a pod selector alone means
// the policy's namespace; a rule without ports or sources takes every
// port or source; a named port is the container's.
func TestPolicyEvaluation(t *testing.T) {
	policy := func(spec string) *networkingv1.NetworkPolicy {
		t.Helper()
		objs, err := decodeAll([]byte("apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: p}\nspec:\n" + spec))
		if err != nil {
			t.Fatal(err)
		}
		return objs[0].(*networkingv1.NetworkPolicy)
	}
	const (
		onCatalogd  = "  podSelector: {matchLabels: {app: catalogd}}\n"
		fromProm    = "      - from: [{podSelector: {matchLabels: {app: prom}}}]\n"
		nsMonitored = "      - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}}]\n"
	)
	dst := pod{namespace: "shop", labels: map[string]string{"app": "catalogd"},
		ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}, {Name: "admin", ContainerPort: 9090}}}
	prom := func(ns string) pod { return pod{namespace: ns, labels: map[string]string{"app": "prom"}} }
	tests := []struct {
		name     string
		policies []*networkingv1.NetworkPolicy
		src      pod
		port     int32
		want     bool
	}{
		{"no policy", nil, prom("tenant"), 9090, true},
		{"a policy of other pods", []*networkingv1.NetworkPolicy{policy("  podSelector: {matchLabels: {app: varnish}}\n  policyTypes: [Ingress]\n")},
			prom("tenant"), 9090, true},
		{"egress only", []*networkingv1.NetworkPolicy{policy(onCatalogd + "  policyTypes: [Egress]\n")}, prom("tenant"), 9090, true},
		{"selected, no rule", []*networkingv1.NetworkPolicy{policy(onCatalogd + "  policyTypes: [Ingress]\n")}, prom("shop"), 9090, false},
		{"a pod selector alone, same namespace", []*networkingv1.NetworkPolicy{policy(onCatalogd + "  ingress:\n" + fromProm)},
			prom("shop"), 9090, true},
		{"a pod selector alone, another namespace", []*networkingv1.NetworkPolicy{policy(onCatalogd + "  ingress:\n" + fromProm)},
			prom("monitoring"), 9090, false},
		{"a namespace selector alone", []*networkingv1.NetworkPolicy{policy(onCatalogd + "  ingress:\n" + nsMonitored)},
			pod{namespace: "monitoring", labels: map[string]string{"app": "grafana"}}, 9090, true},
		{"the named port", []*networkingv1.NetworkPolicy{policy(onCatalogd + "  ingress:\n" + fromProm + "        ports: [{port: admin}]\n")},
			prom("shop"), 9090, true},
		{"another port than the named one", []*networkingv1.NetworkPolicy{policy(onCatalogd + "  ingress:\n" + fromProm + "        ports: [{port: admin}]\n")},
			prom("shop"), 8080, false},
		{"a UDP port", []*networkingv1.NetworkPolicy{policy(onCatalogd + "  ingress:\n" + fromProm + "        ports: [{port: 9090, protocol: UDP}]\n")},
			prom("shop"), 9090, false},
		{"a rule without sources", []*networkingv1.NetworkPolicy{policy(onCatalogd + "  ingress:\n      - ports: [{port: 9090}]\n")},
			prom("tenant"), 9090, true},
		{"an address block", []*networkingv1.NetworkPolicy{policy(onCatalogd + "  ingress:\n      - from: [{ipBlock: {cidr: 10.0.0.0/8}}]\n")},
			prom("shop"), 9090, false},
		{"two policies add up", []*networkingv1.NetworkPolicy{policy(onCatalogd + "  ingress:\n" + nsMonitored),
			policy(onCatalogd + "  ingress:\n" + fromProm)}, prom("shop"), 9090, true},
	}
	for _, tt := range tests {
		if got := admits(t, tt.policies, tt.src, dst, tt.port); got != tt.want {
			t.Errorf("%s: admitted %v, want %v", tt.name, got, tt.want)
		}
	}
}
