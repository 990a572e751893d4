package wptest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
)

// FPM is a private php-fpm master with one pool, as a shop's web server
// reaches it: Debian's php-fpm and its php.ini and extensions, on a unix
// socket of its own.
type FPM struct {
	// Socket is the pool's listen address, for nginx's fastcgi_pass
	// (unix:Socket).
	Socket string

	dir     string
	markers int // Answered's so far
}

// StartFPM starts php-fpm, stopped when the test ends. Its one worker
// answers the requests one at a time, in the order they come: what it
// answered is in its access log (Answered) before it takes the next.
func StartFPM(t testing.TB) *FPM {
	t.Helper()
	// Debian names it by PHP's version: php-fpm8.2.
	bins, _ := filepath.Glob("/usr/sbin/php-fpm*")
	if len(bins) == 0 {
		testdb.Lacking(t, "php-fpm is not installed (.ci/run installs Debian's php-fpm)")
	}
	bin := bins[len(bins)-1]
	// Not t.TempDir: the web server's workers, which drop root, reach the
	// socket through every directory above it.
	dir, err := os.MkdirTemp("", "wptest-fpm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f := &FPM{Socket: filepath.Join(dir, "php-fpm.sock"), dir: dir}
	conf := fmt.Sprintf(`[global]
pid = %[1]s/php-fpm.pid
error_log = %[1]s/error.log
daemonize = no

[wordpress]
listen = %[2]s
listen.mode = 0666
pm = static
pm.max_children = 1
access.log = %[1]s/access.log
access.format = "%%m %%{REQUEST_URI}e %%s"
catch_workers_output = yes
`, dir, f.Socket)
	writeFile(t, filepath.Join(dir, "php-fpm.conf"), []byte(conf))
	args := []string{"--fpm-config", filepath.Join(dir, "php-fpm.conf")}
	if os.Geteuid() == 0 {
		// The pool runs as the test's user; as root, php-fpm asks to be
		// told.
		args = append(args, "--allow-to-run-as-root")
	}
	start(t, "php-fpm", exec.Command(bin, args...), func() error {
		c, err := net.Dial("unix", f.Socket)
		if err == nil {
			c.Close()
		}
		return err
	}, filepath.Join(dir, "error.log"))
	return f
}

// Answered is what php-fpm answered up to now, as "METHOD URI STATUS"
// (the URI as the client sent it). It has v ask WordPress for a page of
// its own (/?wptest-marker=N) and waits, for at most 10 s, until the
// pool's one worker has logged it: by then it has logged every request it
// answered before.
func (f *FPM) Answered(t testing.TB, v *Visitor) []string {
	t.Helper()
	f.markers++
	marker := fmt.Sprintf("/?wptest-marker=%d", f.markers)
	v.Get(t, marker, nil)
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(f.dir, "access.log"))
		log := strings.Split(strings.TrimSpace(string(b)), "\n")
		if slices.Contains(log, "GET "+marker+" 200") {
			return log
		}
		if time.Now().After(deadline) {
			t.Fatalf("php-fpm did not log GET %s within 10s: %q", marker, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Serve serves the site with PHP's built-in server on a free loopback
// address, which it returns, every request through WordPress's index.php
// (as a web server's rewrite to it does), until the test ends.
func (s *Site) Serve(t testing.TB) string {
	t.Helper()
	addr := proctest.FreeAddr(t)
	cmd := exec.Command(s.php, "-S", addr, "-t", Root, filepath.Join(Root, "index.php"))
	start(t, "php -S", cmd, func() error {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err
	})
	return addr
}

// start starts cmd and waits, for at most 30 s, until ready says it
// answers; it is stopped when the test ends. Its output, and the logs
// named, are shown when the test fails.
func start(t testing.TB, name string, cmd *exec.Cmd, ready func() error, logs ...string) {
	t.Helper()
	out := &proctest.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		proctest.Terminate(cmd.Process, done, 10*time.Second)
		if t.Failed() {
			t.Logf("%s's output:\n%s", name, out.String())
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				t.Logf("%s:\n%s", l, b)
			}
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := ready()
		if err == nil {
			return
		}
		select {
		case <-done:
			t.Fatalf("%s exited: %s", name, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not answer within 30s: %v", name, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
