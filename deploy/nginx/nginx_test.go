// Package nginx holds the shipped reverse-proxy configuration; its test runs
// real nginx with it in front of catalogd and a stand-in WordPress, with the
// assertions every shipped proxy shares (deploy/proxytest).
package nginx_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"catalogd/deploy/proxytest"
	"catalogd/internal/proctest"
)

// The AI agents nginx recognizes are catalogd's list, no more, no less.
func TestAgentListMatchesCatalogd(t *testing.T) {
	proxytest.AgentListMatches(t, "catalogd-http.conf", regexp.MustCompile(`"~\*\(([^)]*)\)" 1;`))
}

func TestNginxInFront(t *testing.T) {
	bin := proxytest.Binary(t, "nginx", "/usr/sbin/nginx", "nginx")
	b := proxytest.Start(t)

	dir := t.TempDir()
	listen := proctest.FreeAddr(t)
	replace := strings.NewReplacer(
		"/etc/nginx/", dir+"/",
		"server 127.0.0.1:8080;", "server "+b.Catalogd+";",
		"server wordpress:80;", "server "+b.WordPress+";",
		"listen 80;", "listen "+listen+";",
	)
	for _, f := range []string{"catalogd-http.conf", "catalogd-upstream.conf", "catalogd-locations.conf",
		"catalogd-proxy.conf", "wordpress-location.conf", "site.conf"} {
		c, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(replace.Replace(string(c))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	main := fmt.Sprintf(`daemon off; pid %[1]s/nginx.pid; error_log %[1]s/error.log warn; worker_processes 1;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path %[1]s/body; proxy_temp_path %[1]s/proxy; fastcgi_temp_path %[1]s/fcgi;
  uwsgi_temp_path %[1]s/uwsgi; scgi_temp_path %[1]s/scgi;
  include %[1]s/site.conf;
}
`, dir)
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777) // nginx's workers drop root and read the directory
	if out, err := exec.Command(bin, "-t", "-c", conf).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
	// A file, not a pipe: nginx's workers would hold a pipe open past the
	// master, and Wait would wait for them.
	out, err := os.Create(filepath.Join(dir, "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(bin, "-c", conf)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// SIGTERM is nginx's fast shutdown: the master stops its workers
		// before it exits; SIGKILL would leave them running.
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			for _, f := range []string{"stderr.log", "error.log"} {
				b, _ := os.ReadFile(filepath.Join(dir, f))
				t.Logf("nginx's %s:\n%s", f, b)
			}
		}
	})
	proxytest.WaitListening(t, "nginx", listen)

	proxytest.Run(t, "http://"+listen, b, proxytest.Options{EdgeRateLimit: true})
}
