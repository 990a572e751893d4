// Package checks_test reads the deployment files with the libraries that
// run them: the Compose specification's own loader (compose-go, as docker
// compose reads the file), Kubernetes' strict decoder into the k8s.io/api
// types (a misspelt field fails, as kubectl apply --validate=strict
// refuses it), and kustomize's build (krusty, kubectl apply -k's). They
// live in a module of their own, so that none of these libraries enters
// catalogd's dependencies. deploy/manifests_test.go and
// deploy/kubernetes*_test.go hold what the files must say (a private admin
// port, no wide trusted range); these hold that the tools take them as
// written.
package checks_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

// loadCompose loads a compose file as docker compose does: the
// specification's schema, interpolation, the consistency of references
// (depends_on, networks, volumes), relative paths resolved.
func loadCompose(t *testing.T, path string) (*types.Project, error) {
	t.Helper()
	opts, err := cli.NewProjectOptions([]string{path}, cli.WithName("catalogd"),
		cli.WithWorkingDirectory(filepath.Dir(path)), cli.WithConsistency(true), cli.WithResolvedPaths(true))
	if err != nil {
		t.Fatal(err)
	}
	return opts.LoadProject(context.Background())
}

// The compose file loads and validates, every file it mounts or builds
// from is there, and each service a depends_on waits healthy for has a
// healthcheck.
func TestComposeLoads(t *testing.T) {
	p, err := loadCompose(t, "../../docker-compose.yml")
	if err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	for _, name := range []string{"db", "catalogd", "wordpress", "nginx"} {
		if _, ok := p.Services[name]; !ok {
			t.Errorf("no service %s", name)
		}
	}
	for name, s := range p.Services {
		for _, v := range s.Volumes {
			if v.Type == types.VolumeTypeBind {
				if _, err := os.Stat(v.Source); err != nil {
					t.Errorf("service %s mounts %s: %v", name, v.Source, err)
				}
			}
		}
		if s.Build != nil {
			if _, err := os.Stat(filepath.Join(s.Build.Context, s.Build.Dockerfile)); err != nil {
				t.Errorf("service %s builds from %s: %v", name, s.Build.Dockerfile, err)
			}
		}
		for dep, d := range s.DependsOn {
			if d.Condition == types.ServiceConditionHealthy && p.Services[dep].HealthCheck == nil {
				t.Errorf("service %s waits for %s to be healthy, which has no healthcheck", name, dep)
			}
		}
	}
}

// The loader is strict: a misspelt key fails, it does not pass unread.
func TestComposeTypoFails(t *testing.T) {
	b, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), "    healthcheck:\n", "    healthchek:\n", 1)
	if bad == string(b) {
		t.Fatal("docker-compose.yml has no healthcheck to misspell")
	}
	path := filepath.Join(t.TempDir(), "docker-compose.yml")
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadCompose(t, path); err == nil || !strings.Contains(err.Error(), "healthchek") {
		t.Errorf("a misspelt healthcheck loads: %v", err)
	}
}
