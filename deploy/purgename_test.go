package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"catalogd/purge"
)

// TestDocVarnishTargetIsThePurgeListener: where the documents show how
// catalogd names a local Varnish target (a metric's target label, a line of
// /readyz), the name is the one catalogd gives the shipped purge listener,
// the drop-in's -a purge=…, not Varnish's public port.
func TestDocVarnishTargetIsThePurgeListener(t *testing.T) {
	unit, err := os.ReadFile("varnish/varnish.service.d/catalogd.conf")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`-a purge=(\S+)`).FindSubmatch(unit)
	if m == nil {
		t.Fatal("the Varnish drop-in names no purge listener (-a purge=…)")
	}
	target, err := purge.NewVarnish("http://"+string(m[1]), nil)
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob("../docs/*.md")
	shown := 0
	for _, f := range append([]string{"../README.md"}, docs...) {
		for _, name := range localVarnishNames(t, f) {
			shown++
			if name != target.Name() {
				t.Errorf("%s shows the target %q; catalogd names the shipped purge listener %q", f[3:], name, target.Name())
			}
		}
	}
	if shown == 0 {
		t.Error("no document shows a Varnish target's name: the pattern is off")
	}
}

// A public port in a label or a /readyz line is caught.
func TestDocVarnishTargetCheckCatches(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "doc.md")
	write(t, doc, "per target (`target=\"varnish 127.0.0.1:6081\"`)\n\n```text\npurge varnish localhost:6091: ok\npurge varnish 10.0.0.7:6091: ok\n```\n")
	got := localVarnishNames(t, doc)
	if len(got) != 2 || got[0] != "varnish 127.0.0.1:6081" || got[1] != "varnish localhost:6091" {
		t.Errorf("names %q, want the two on this host", got)
	}
}

var localVarnishNameRE = regexp.MustCompile(`(?:target="|purge )(varnish (?:127\.0\.0\.1|localhost|\[::1\]):\d+)`)

// localVarnishNames are the names of Varnish targets on catalogd's own host
// that a document shows.
func localVarnishNames(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range localVarnishNameRE.FindAllSubmatch(b, -1) {
		names = append(names, string(m[1]))
	}
	return names
}
