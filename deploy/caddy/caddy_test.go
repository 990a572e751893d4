// Package caddy holds the shipped Caddy configuration; its test runs
// Debian's caddy with it in front of catalogd and a stand-in WordPress.
package caddy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"catalogd/deploy/internal/proxytest"
	"catalogd/internal/proctest"
)

// The AI agents Caddy recognizes are catalogd's list, no more, no less.
func TestAgentListMatchesCatalogd(t *testing.T) {
	proxytest.AgentListMatches(t, "catalogd.caddy", regexp.MustCompile(`\{header\.User-Agent\}\.matches\("\(\?i\)\(([^)]*)\)"\)`))
}

func TestCaddyInFront(t *testing.T) {
	bin := proxytest.Binary(t, "caddy", "/usr/bin/caddy", "caddy")
	b := proxytest.Start(t)

	dir := t.TempDir()
	listen := proctest.FreeAddr(t)
	replace := strings.NewReplacer(
		"/etc/caddy/", dir+"/",
		"127.0.0.1:8080", b.Catalogd,
		"wordpress:80", b.WordPress,
		// A plain-HTTP site on the test's port: no certificates, no :80.
		"\nshop.example {", "\n{\n\tadmin off\n\tauto_https off\n}\n\nhttp://"+listen+" {",
	)
	for _, f := range []string{"catalogd.caddy", "Caddyfile"} {
		c, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(replace.Replace(string(c))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Caddy keeps its state under $HOME / $XDG_*: the test's own directory.
	env := append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	conf := filepath.Join(dir, "Caddyfile")
	validate := exec.Command(bin, "validate", "--config", conf, "--adapter", "caddyfile")
	validate.Env = env
	if out, err := validate.CombinedOutput(); err != nil {
		t.Fatalf("caddy validate: %v\n%s", err, out)
	}
	var log proctest.SyncBuffer
	cmd := exec.Command(bin, "run", "--config", conf, "--adapter", "caddyfile")
	cmd.Env, cmd.Stdout, cmd.Stderr = env, &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("caddy's log:\n%s", log.String())
		}
	})
	proxytest.WaitListening(t, "caddy", listen)

	proxytest.Run(t, "http://"+listen, b, proxytest.Options{})
}
