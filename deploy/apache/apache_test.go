// Package apache holds the shipped Apache configuration; its test runs
// Debian's apache2 with it in front of catalogd and a stand-in WordPress.
package apache_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"catalogd/deploy/internal/proxytest"
	"catalogd/internal/proctest"
)

// The AI agents Apache recognizes are catalogd's list, no more, no less.
func TestAgentListMatchesCatalogd(t *testing.T) {
	proxytest.AgentListMatches(t, "catalogd.conf", regexp.MustCompile(`HTTP_USER_AGENT\} =~ /\(([^)]*)\)/i`))
}

func TestApacheInFront(t *testing.T) {
	bin := proxytest.Binary(t, "apache2", "/usr/sbin/apache2", "apache2", "httpd")
	b := proxytest.Start(t)

	dir := t.TempDir()
	listen := proctest.FreeAddr(t)
	for _, f := range []string{"catalogd.conf", "site.conf"} {
		c, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.NewReplacer(
			"/etc/apache2/", dir+"/",
			"http://127.0.0.1:8080", "http://"+b.Catalogd,
			"http://wordpress:80/", "http://"+b.WordPress+"/",
			"<VirtualHost *:80>", "<VirtualHost "+listen+">",
		).Replace(string(c))
		if err := os.WriteFile(filepath.Join(dir, f), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Debian's module directory; the modules catalogd.conf names.
	var load strings.Builder
	for _, m := range []string{"mpm_event", "authz_core", "proxy", "proxy_http", "headers", "rewrite"} {
		fmt.Fprintf(&load, "LoadModule %s_module /usr/lib/apache2/modules/mod_%s.so\n", m, m)
	}
	main := fmt.Sprintf(`%[2]s
ServerName 127.0.0.1
Listen %[3]s
PidFile %[1]s/apache2.pid
DefaultRuntimeDir %[1]s
Mutex file:%[1]s default
ErrorLog %[1]s/error.log
LogLevel warn
StartServers 1
ServerLimit 1
ThreadsPerChild 16
MaxRequestWorkers 16
%[4]s
Include %[1]s/site.conf
`, dir, load.String(), listen, runAs())
	conf := filepath.Join(dir, "apache2.conf")
	if err := os.WriteFile(conf, []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	if out, err := exec.Command(bin, "-t", "-f", conf).CombinedOutput(); err != nil {
		t.Fatalf("apache2 -t: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-f", conf, "-DFOREGROUND")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// SIGTERM: the parent stops its children and removes its pidfile.
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			if log, err := os.ReadFile(filepath.Join(dir, "error.log")); err == nil {
				t.Logf("apache2 error.log:\n%s", log)
			}
		}
	})
	proxytest.WaitListening(t, "apache2", listen)

	proxytest.Run(t, "http://"+listen, b, proxytest.Options{})
}

// runAs names the account Apache's children take when started as root
// (as in CI): Debian's own.
func runAs() string {
	if os.Geteuid() != 0 {
		return ""
	}
	return "User www-data\nGroup www-data"
}
