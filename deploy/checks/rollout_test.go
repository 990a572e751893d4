package checks_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// shutdownFile declares catalogd's stop timings; this module cannot import
// catalogd's packages, so it reads their values from the source.
const shutdownFile = "../../config/shutdown.go"

// stopTimings are config.DefaultShutdownDrain and config.ShutdownGrace,
// read from shutdownFile.
func stopTimings(t *testing.T) (drain, grace time.Duration) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), shutdownFile, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]time.Duration{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			for i, name := range v.Names {
				if i < len(v.Values) {
					if d, err := durationExpr(v.Values[i]); err == nil {
						consts[name.Name] = d
					}
				}
			}
		}
	}
	drain, okDrain := consts["DefaultShutdownDrain"]
	grace, okGrace := consts["ShutdownGrace"]
	if !okDrain || !okGrace {
		t.Fatalf("%s declares no DefaultShutdownDrain and ShutdownGrace as N * time.Unit: %v", shutdownFile, consts)
	}
	return drain, grace
}

// durationExpr evaluates a constant written N * time.Unit.
func durationExpr(e ast.Expr) (time.Duration, error) {
	b, ok := e.(*ast.BinaryExpr)
	if !ok || b.Op != token.MUL {
		return 0, fmt.Errorf("not N * time.Unit")
	}
	lit, ok := b.X.(*ast.BasicLit)
	sel, ok2 := b.Y.(*ast.SelectorExpr)
	if !ok || !ok2 || lit.Kind != token.INT {
		return 0, fmt.Errorf("not N * time.Unit")
	}
	n, err := strconv.Atoi(lit.Value)
	if err != nil {
		return 0, err
	}
	unit, ok := map[string]time.Duration{"Millisecond": time.Millisecond, "Second": time.Second, "Minute": time.Minute}[sel.Sel.Name]
	if x, isIdent := sel.X.(*ast.Ident); !ok || !isIdent || x.Name != "time" {
		return 0, fmt.Errorf("not N * time.Unit")
	}
	return time.Duration(n) * unit, nil
}

// catalogdDrain is the drain the built objects give catalogd: the
// ConfigMap's CATALOG_SHUTDOWN_DRAIN, or the container's, or the default.
func catalogdDrain(t *testing.T, objs map[string]runtime.Object, pod *corev1.PodSpec, def time.Duration) time.Duration {
	t.Helper()
	v := ""
	if cm, _ := objs["ConfigMap/catalogd"].(*corev1.ConfigMap); cm != nil {
		v = cm.Data["CATALOG_SHUTDOWN_DRAIN"]
	}
	for _, c := range pod.Containers {
		for _, e := range c.Env {
			if e.Name == "CATALOG_SHUTDOWN_DRAIN" {
				v = e.Value
			}
		}
	}
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("CATALOG_SHUTDOWN_DRAIN %q: %v", v, err)
	}
	return d
}

// The kubelet kills catalogd terminationGracePeriodSeconds after SIGTERM:
// later than the drain and the stop's grace together, as built, with and
// without the Varnish component.
func TestStopFitsTheGracePeriod(t *testing.T) {
	def, grace := stopTimings(t)
	for name, objs := range map[string]map[string]runtime.Object{
		"deploy/kubernetes": build(t, filesys.MakeFsOnDisk(), "../kubernetes"), "with the Varnish component": buildWithVarnish(t),
	} {
		dep, _ := objs["Deployment/catalogd"].(*appsv1.Deployment)
		if dep == nil {
			t.Fatalf("%s: no Deployment/catalogd", name)
		}
		pod := &dep.Spec.Template.Spec
		drain := catalogdDrain(t, objs, pod, def)
		if drain <= 0 {
			t.Errorf("%s: catalogd's drain is %v: the Service's endpoints reach kube-proxy after the pod is told to stop", name, drain)
		}
		if pod.TerminationGracePeriodSeconds == nil {
			t.Errorf("%s: no terminationGracePeriodSeconds: the default 30 s is implicit", name)
			continue
		}
		kill := time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second
		if kill <= drain+grace {
			t.Errorf("%s: terminationGracePeriodSeconds %v, not past the drain %v and the stop's grace %v", name, kill, drain, grace)
		}
	}
}

// selects says whether sel picks pods labelled podLabels.
func selects(t *testing.T, sel *metav1.LabelSelector, podLabels map[string]string) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatal(err)
	}
	return !s.Empty() && s.Matches(labels.Set(podLabels))
}

// catalogd's replicas spread over zones and nodes, and Varnish's over
// nodes, each constraint counting the workload's own pods, and preferred,
// not required (deployment.yaml's comment says why).
func TestReplicasSpread(t *testing.T) {
	objs := buildWithVarnish(t)
	dep, _ := objs["Deployment/catalogd"].(*appsv1.Deployment)
	ss, _ := objs["StatefulSet/catalogd-varnish"].(*appsv1.StatefulSet)
	if dep == nil || ss == nil {
		t.Fatalf("no Deployment/catalogd or StatefulSet/catalogd-varnish among %v", keys(objs))
	}
	for _, w := range []struct {
		name string
		pod  corev1.PodTemplateSpec
		keys []string
	}{
		{"Deployment/catalogd", dep.Spec.Template, []string{"topology.kubernetes.io/zone", "kubernetes.io/hostname"}},
		{"StatefulSet/catalogd-varnish", ss.Spec.Template, []string{"kubernetes.io/hostname"}},
	} {
		got := map[string]corev1.TopologySpreadConstraint{}
		for _, c := range w.pod.Spec.TopologySpreadConstraints {
			got[c.TopologyKey] = c
		}
		for _, key := range w.keys {
			c, ok := got[key]
			switch {
			case !ok:
				t.Errorf("%s: no topology spread over %s", w.name, key)
			case c.LabelSelector == nil || !selects(t, c.LabelSelector, w.pod.Labels):
				t.Errorf("%s: the spread over %s counts other pods than its own (%v)", w.name, key, c.LabelSelector)
			case c.MaxSkew != 1 || c.WhenUnsatisfiable != corev1.ScheduleAnyway:
				t.Errorf("%s: spread over %s: maxSkew %d, %s; want 1, ScheduleAnyway", w.name, key, c.MaxSkew, c.WhenUnsatisfiable)
			}
		}
	}
}

// Each workload, catalogd's and Varnish's, has one PodDisruptionBudget,
// which selects its pods alone and lets a node drain evict one of them
// when it runs its fewest.
func TestDisruptionBudgetsSelectTheirPods(t *testing.T) {
	objs := buildWithVarnish(t)
	hpa, _ := objs["HorizontalPodAutoscaler/catalogd"].(*autoscalingv2.HorizontalPodAutoscaler)
	fewest := map[string]int32{} // workload → its fewest replicas
	pods := map[string]map[string]string{}
	for name, o := range objs {
		switch w := o.(type) {
		case *appsv1.Deployment:
			pods[name], fewest[name] = w.Spec.Template.Labels, *w.Spec.Replicas
			if hpa != nil && hpa.Spec.ScaleTargetRef.Name == w.Name && hpa.Spec.MinReplicas != nil {
				fewest[name] = *hpa.Spec.MinReplicas
			}
		case *appsv1.StatefulSet:
			pods[name], fewest[name] = w.Spec.Template.Labels, *w.Spec.Replicas
		}
	}
	budgeted := map[string]int{}
	for name, o := range objs {
		pdb, ok := o.(*policyv1.PodDisruptionBudget)
		if !ok {
			continue
		}
		var of []string
		for w, l := range pods {
			if selects(t, pdb.Spec.Selector, l) {
				of = append(of, w)
			}
		}
		if len(of) != 1 {
			t.Errorf("%s selects the pods of %v, want one workload's", name, of)
			continue
		}
		budgeted[of[0]]++
		keep := pdb.Spec.MinAvailable
		if keep == nil || keep.IntValue() < 1 || int32(keep.IntValue()) >= fewest[of[0]] {
			t.Errorf("%s: minAvailable %v of %s's %d replicas: want at least 1 kept and 1 evictable", name, keep, of[0], fewest[of[0]])
		}
	}
	for w := range pods {
		if budgeted[w] != 1 {
			t.Errorf("%s's pods: %d PodDisruptionBudgets, want one", w, budgeted[w])
		}
	}
}
