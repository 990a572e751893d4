package checks_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// decoder decodes Kubernetes objects strictly into the k8s.io/api types
// (and the Prometheus Operator's, for deploy/monitoring): an unknown or
// duplicated field, or a kind of no known API version, is an error.
var decoder = func() runtime.Decoder {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{appsv1.AddToScheme, autoscalingv2.AddToScheme, corev1.AddToScheme,
		networkingv1.AddToScheme, policyv1.AddToScheme, monitoringv1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
}()

// decodeAll decodes every document of a YAML stream.
func decodeAll(stream []byte) ([]runtime.Object, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(stream)))
	var out []runtime.Object
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, _, err := decoder.Decode(doc, nil, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, obj)
	}
}

// manifests are the object files of deploy/kubernetes (its kustomizations
// are kustomize's) and of deploy/monitoring.
func manifests(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"../kubernetes/*.yaml", "../kubernetes/varnish/*.yaml", "../monitoring/*.yaml"} {
		m, _ := filepath.Glob(pattern)
		for _, f := range m {
			if filepath.Base(f) != "kustomization.yaml" {
				files = append(files, f)
			}
		}
	}
	if len(files) < 12 {
		t.Fatalf("found %d manifests: %v", len(files), files)
	}
	return files
}

// Every object shipped decodes strictly into its Kubernetes type.
func TestManifestsDecodeStrictly(t *testing.T) {
	for _, f := range manifests(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := decodeAll(b)
		if err != nil {
			t.Errorf("%s: %v", f, err)
		} else if len(objs) == 0 {
			t.Errorf("%s: no object", f)
		}
	}
}

// A misspelt field fails, where a generic YAML parse lets it through.
func TestManifestTypoFails(t *testing.T) {
	b, err := os.ReadFile("../kubernetes/deployment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, edit := range []struct{ from, to, field string }{
		{"  replicas: 2\n", "  replica: 2\n", "replica"},
		{"readinessProbe:", "readynessProbe:", "readynessProbe"},
	} {
		bad := strings.Replace(string(b), edit.from, edit.to, 1)
		if bad == string(b) {
			t.Fatalf("deployment.yaml has no %q to misspell", edit.from)
		}
		if _, err := decodeAll([]byte(bad)); err == nil || !strings.Contains(err.Error(), edit.field) {
			t.Errorf("%s decodes: %v", edit.field, err)
		}
	}
}

// build runs kustomize's build (kubectl apply -k's) on dir and decodes
// what it makes strictly, by kind/name.
func build(t *testing.T, fs filesys.FileSystem, dir string) map[string]runtime.Object {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	y, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decodeAll(y)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	out := map[string]runtime.Object{}
	for _, o := range objs {
		meta, _ := o.(interface{ GetName() string })
		out[o.GetObjectKind().GroupVersionKind().Kind+"/"+meta.GetName()] = o
	}
	return out
}

// The kustomization builds, as shipped and with the Varnish component its
// comment says to uncomment: the objects are the ones expected, each
// decodes strictly, and the component's generated VCL ConfigMap is the
// one the StatefulSet mounts.
func TestKustomizeBuilds(t *testing.T) {
	base := build(t, filesys.MakeFsOnDisk(), "../kubernetes")
	want := []string{"ConfigMap/catalogd", "Deployment/catalogd", "HorizontalPodAutoscaler/catalogd",
		"NetworkPolicy/catalogd", "PodDisruptionBudget/catalogd", "Service/catalogd"}
	if got := keys(base); !slices.Equal(got, want) {
		t.Errorf("kustomize build deploy/kubernetes: %v, want %v", got, want)
	}

	withVarnish := buildWithVarnish(t)
	for _, name := range append(want, "StatefulSet/catalogd-varnish", "Service/catalogd-varnish",
		"Service/catalogd-varnish-peers", "NetworkPolicy/catalogd-varnish", "PodDisruptionBudget/catalogd-varnish") {
		if withVarnish[name] == nil {
			t.Errorf("with the Varnish component, no %s among %v", name, keys(withVarnish))
		}
	}
	cm, _ := withVarnish["ConfigMap/catalogd"].(*corev1.ConfigMap)
	if cm == nil || !strings.Contains(cm.Data["CATALOG_PURGE_VARNISH"], "catalogd-varnish-0.catalogd-varnish-peers:6091") {
		t.Errorf("the component does not set CATALOG_PURGE_VARNISH in catalogd's ConfigMap: %v", cm)
	}
	ss, _ := withVarnish["StatefulSet/catalogd-varnish"].(*appsv1.StatefulSet)
	var mounted []string
	if ss != nil {
		for _, v := range ss.Spec.Template.Spec.Volumes {
			if v.ConfigMap != nil {
				mounted = append(mounted, v.ConfigMap.Name)
			}
		}
	}
	found := false
	for _, name := range mounted {
		found = found || strings.HasPrefix(name, "catalogd-varnish-vcl-") && withVarnish["ConfigMap/"+name] != nil
	}
	if !found {
		t.Errorf("the StatefulSet mounts %v, not the generated VCL ConfigMap among %v", mounted, keys(withVarnish))
	}
	// The purge secret: the file the VCL reads is the Secret's, in Varnish's
	// pods and catalogd's, and catalogd is told where it is.
	vcl, err := os.ReadFile("../kubernetes/varnish/catalogd.vcl")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`std\.fileread\("([^"]+)"\)`).FindSubmatch(vcl)
	if m == nil {
		t.Fatal("the cluster's VCL reads no purge secret file")
	}
	file := string(m[1])
	if cm != nil && cm.Data["CATALOG_PURGE_VARNISH_SECRET_FILE"] != file {
		t.Errorf("catalogd's CATALOG_PURGE_VARNISH_SECRET_FILE %q, want the VCL's %s", cm.Data["CATALOG_PURGE_VARNISH_SECRET_FILE"], file)
	}
	dep, _ := withVarnish["Deployment/catalogd"].(*appsv1.Deployment)
	for name, pod := range map[string]*corev1.PodSpec{"StatefulSet/catalogd-varnish": podSpec(ss), "Deployment/catalogd": podSpec(dep)} {
		if pod == nil || !mountsSecretFile(*pod, "catalogd-varnish-purge", file) {
			t.Errorf("%s does not mount the Secret catalogd-varnish-purge at %s", name, file)
			continue
		}
		if !secretReadable(*pod, "catalogd-varnish-purge") {
			t.Errorf("%s's process cannot read the Secret catalogd-varnish-purge's files: root owns them, and "+
				"their mode lets only their group read them, which is the pod's fsGroup, unset", name)
		}
	}
}

// buildWithVarnish builds the kustomization with the Varnish component
// its comment says to uncomment.
func buildWithVarnish(t *testing.T) map[string]runtime.Object {
	t.Helper()
	fs := filesys.MakeFsInMemory()
	copyTree(t, fs, "../kubernetes", "/k")
	k, err := fs.ReadFile("/k/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	on := strings.Replace(string(k), "# components:\n#   - varnish\n", "components:\n  - varnish\n", 1)
	if on == string(k) {
		t.Fatal("kustomization.yaml has no commented components: varnish to uncomment")
	}
	if err := fs.WriteFile("/k/kustomization.yaml", []byte(on)); err != nil {
		t.Fatal(err)
	}
	return build(t, fs, "/k")
}

// secretReadable says whether the pod's non-root process may read the
// files of its volume of the Secret: the kubelet makes root their owner
// and the pod's fsGroup their group, with the volume's mode (0644 unless
// set).
func secretReadable(pod corev1.PodSpec, secret string) bool {
	for _, vol := range pod.Volumes {
		if vol.Secret == nil || vol.Secret.SecretName != secret {
			continue
		}
		mode := int32(0o644)
		if vol.Secret.DefaultMode != nil {
			mode = *vol.Secret.DefaultMode
		}
		for _, item := range vol.Secret.Items {
			if item.Mode != nil {
				mode = *item.Mode
			}
		}
		groupSet := pod.SecurityContext != nil && pod.SecurityContext.FSGroup != nil
		return mode&0o004 != 0 || groupSet && mode&0o040 != 0
	}
	return false
}

// podSpec is the pod template's spec of a StatefulSet or a Deployment.
func podSpec(o runtime.Object) *corev1.PodSpec {
	switch o := o.(type) {
	case *appsv1.StatefulSet:
		if o != nil {
			return &o.Spec.Template.Spec
		}
	case *appsv1.Deployment:
		if o != nil {
			return &o.Spec.Template.Spec
		}
	}
	return nil
}

// mountsSecretFile says whether a container of the pod sees the file at
// path from the Secret named secret.
func mountsSecretFile(pod corev1.PodSpec, secret, path string) bool {
	for _, vol := range pod.Volumes {
		if vol.Secret == nil || vol.Secret.SecretName != secret {
			continue
		}
		for _, c := range pod.Containers {
			for _, m := range c.VolumeMounts {
				if m.Name != vol.Name {
					continue
				}
				for _, item := range vol.Secret.Items {
					if filepath.Join(m.MountPath, item.Path) == path {
						return true
					}
				}
			}
		}
	}
	return false
}

func keys(m map[string]runtime.Object) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// copyTree copies the files under dir on disk to to in fs.
func copyTree(t *testing.T, fs filesys.FileSystem, dir, to string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return fs.WriteFile(filepath.Join(to, rel), b)
	})
	if err != nil {
		t.Fatal(err)
	}
}
