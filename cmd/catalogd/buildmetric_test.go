package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"catalogd/internal/proctest"
)

// catalogd_build_info says which build a replica runs, without its
// database: version, revision and Go version as the go command recorded
// them (nothing is stamped in the tests' build), and the executable's
// hash, the one --version prints.
func TestBuildInfoMetric(t *testing.T) {
	b, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	hash := hex.EncodeToString(sum[:12])
	if _, stdout, _ := runSub(t, nil, "--version"); !strings.Contains(stdout, ", build "+hash+")") {
		t.Errorf("--version says %q, want the executable's hash %s", stdout, hash)
	}

	r := start(t, "catalog@tcp("+proctest.FreeAddr(t)+")/nothing")
	_, page, err := r.Get(r.AdminURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	f := families["catalogd_build_info"]
	if f == nil || len(f.GetMetric()) != 1 || f.GetMetric()[0].GetGauge().GetValue() != 1 {
		t.Fatalf("catalogd_build_info is not one series of value 1: %v", f)
	}
	labels := map[string]string{}
	for _, l := range f.GetMetric()[0].GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	want := map[string]string{"version": "devel", "revision": "unknown", "goversion": runtime.Version(), "build": hash}
	for name, v := range want {
		if labels[name] != v {
			t.Errorf("catalogd_build_info{%s=%q}, want %q (all: %v)", name, labels[name], v, labels)
		}
	}
}
