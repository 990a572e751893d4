package proxytest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"catalogd/internal/proctest"
)

// StartNginx runs Debian's nginx (bin) on a free loopback address, which
// it returns, with the shipped files of src, the last one the site
// (included inside `http { }`, with Debian's MIME types, as Debian's
// nginx.conf does), and stops it when the test ends. The files include
// each other from a temporary directory instead of /etc/nginx/ (nginx's
// own files, such as fastcgi_params, stay Debian's), listen where the test
// says instead of port 80, and have each of replace's old, new pairs
// replaced.
func StartNginx(t *testing.T, bin, src string, replace []string, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	listen := proctest.FreeAddr(t)
	pairs := append([]string{"listen 80;", "listen " + listen + ";"}, replace...)
	for _, f := range files {
		pairs = append(pairs, "/etc/nginx/"+f, filepath.Join(dir, f))
	}
	replacer := strings.NewReplacer(pairs...)
	for _, f := range files {
		c, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(replacer.Replace(string(c))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	main := fmt.Sprintf(`daemon off; pid %[1]s/nginx.pid; error_log %[1]s/error.log warn; worker_processes 1;
events { worker_connections 256; }
http {
  access_log off;
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  client_body_temp_path %[1]s/body; proxy_temp_path %[1]s/proxy; fastcgi_temp_path %[1]s/fcgi;
  uwsgi_temp_path %[1]s/uwsgi; scgi_temp_path %[1]s/scgi;
  include %[1]s/%[2]s;
}
`, dir, files[len(files)-1])
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
	cmd := exec.Command(bin, "-c", conf)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// SIGTERM is nginx's fast shutdown: the master stops its workers
		// before it exits; SIGKILL would leave them running.
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		out.Close()
		if t.Failed() {
			for _, f := range []string{"stderr.log", "error.log"} {
				b, _ := os.ReadFile(filepath.Join(dir, f))
				t.Logf("nginx's %s:\n%s", f, b)
			}
		}
	})
	WaitListening(t, "nginx", listen)
	return listen
}
