// Package deploy holds the deployment files. No Docker engine or cluster
// runs here, so this test checks what can be checked without one: every
// file parses, references only files and objects that exist, and keeps the
// admin port private.
package deploy

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
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
