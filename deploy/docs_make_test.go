package deploy

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"catalogd/internal/proctest"
)

// runInstall runs make install as printed, in a copy of the repository,
// with GOBIN a temporary directory: catalogd and catalogctl land there and
// answer --version with the version make stamped.
func runInstall(t *testing.T, cmds []shown) {
	dir, gobin := copyRepo(t), t.TempDir()
	env := proctest.Environ("GOBIN=" + gobin)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, c := range cmds {
		if out, err := shell(ctx, dir, c.text, env).CombinedOutput(); err != nil {
			t.Fatalf("%s: `%s`: %v\n%s", c.where, c.text, err, out)
		}
		for _, name := range []string{"catalogd", "catalogctl"} {
			out, err := exec.CommandContext(ctx, filepath.Join(gobin, name), "--version").Output()
			if err != nil || !strings.HasPrefix(string(out), name+" ") {
				t.Errorf("%s: after `%s`, %s --version: %v %q", c.where, c.text, name, err, out)
			}
		}
	}
}

// runHelp runs make help as printed: it lists the targets the documents name.
func runHelp(t *testing.T, cmds []shown) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := shell(ctx, repoRoot(t), cmds[0].text, proctest.Environ()).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: `%s`: %v\n%s", cmds[0].where, cmds[0].text, err, out)
	}
	for _, target := range []string{"make demo", "make test", "make build", "make lint-openapi"} {
		if !strings.Contains(string(out), target+" ") {
			t.Errorf("`%s` does not list %s:\n%s", cmds[0].text, target, out)
		}
	}
}

// runGenerators runs each generator as printed in a copy of the repository
// and compares what it writes with the checked-in file.
func runGenerators(t *testing.T, cmds []shown) {
	writes := map[string]string{"make seed": "deploy/seed/demo.sql", "go generate ./httpapi": "httpapi/openapi.json"}
	done := map[string]bool{}
	for _, c := range cmds {
		if done[commandOnly(c.text)] {
			continue
		}
		done[commandOnly(c.text)] = true
		var file string
		for p, f := range writes {
			if hasCommandPrefix(c.text, p) {
				file = f
			}
		}
		t.Run(c.text, func(t *testing.T) {
			dir := copyRepo(t)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			if out, err := shell(ctx, dir, c.text, proctest.Environ()).CombinedOutput(); err != nil {
				t.Fatalf("%s: `%s`: %v\n%s", c.where, c.text, err, out)
			}
			want, err := os.ReadFile(filepath.Join(repoRoot(t), file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s: `%s` writes a %s that differs from the checked-in one", c.where, c.text, file)
			}
		})
	}
}
