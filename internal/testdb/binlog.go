package testdb

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"catalogd/internal/proctest"
)

// A private MariaDB with a binary log, for the tests of the replication
// change feed: the shared server may run without one, and turning it on
// needs a restart. It is started once per test process, on a free port and
// its own socket, in a temporary directory, and stopped by StopServers
// (which the package's TestMain calls after m.Run).

// binlogServer is the private server, once started.
type binlogServer struct {
	dir    string
	daemon string // mariadbd's path
	user   string // the --user option
	port   int
	cmd    *exec.Cmd
	done   chan struct{} // closed when the process has ended
	dsn    string
}

var servers struct {
	sync.Mutex
	binlog  *binlogServer
	err     error // why it could not start: every later test is told the same
	missing bool  // the binaries are missing: Lacking, not a failure
}

// BinlogServer returns the root DSN (root@tcp(127.0.0.1:PORT)/) of a
// private MariaDB that writes a binary log (binlog_format=ROW, server_id 1,
// GTIDs), started at the first call of the test process. Tests create
// their databases on it with NewOn or LoadOn, and users with NewUserOn.
// Without MariaDB's binaries the test stops through Lacking.
func BinlogServer(t testing.TB) string {
	t.Helper()
	servers.Lock()
	defer servers.Unlock()
	if servers.binlog == nil && servers.err == nil {
		servers.binlog, servers.missing, servers.err = startBinlogServer()
	}
	switch {
	case servers.missing:
		Lacking(t, "no MariaDB binaries to start a server with a binary log: %v", servers.err)
	case servers.err != nil:
		t.Fatalf("start a MariaDB with a binary log: %v", servers.err)
	}
	return servers.binlog.dsn
}

// StopServers stops the servers BinlogServer started and removes their
// files. TestMain calls it after m.Run.
func StopServers() {
	servers.Lock()
	defer servers.Unlock()
	if s := servers.binlog; s != nil {
		s.stop()
		servers.binlog = nil
	}
}

// lookBinary finds the first of the names on PATH or in /usr/sbin.
func lookBinary(names ...string) (string, error) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
		if p := filepath.Join("/usr/sbin", n); isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("none of %v on PATH or in /usr/sbin", names)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// StartBinlogServer starts a private MariaDB with a binary log, as
// BinlogServer does, outside a test (make bench measures the binlog feed
// on it): extra are mariadbd options added last, so they win (a larger
// buffer pool). It returns the root DSN and the function that stops the
// server and removes its files.
func StartBinlogServer(extra ...string) (dsn string, stop func(), err error) {
	s, _, err := startBinlogServer(extra...)
	if err != nil {
		return "", nil, err
	}
	return s.dsn, s.stop, nil
}

func startBinlogServer(extra ...string) (s *binlogServer, missing bool, err error) {
	install, err := lookBinary("mariadb-install-db", "mysql_install_db")
	if err != nil {
		return nil, true, err
	}
	daemon, err := lookBinary("mariadbd", "mysqld")
	if err != nil {
		return nil, true, err
	}
	me, err := user.Current()
	if err != nil {
		return nil, false, err
	}
	dir, err := os.MkdirTemp("", "catalogd-binlog-")
	if err != nil {
		return nil, false, err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(dir)
		}
	}()
	data := filepath.Join(dir, "data")
	// Its own temporary directory: servers bootstrapping at once in the
	// shared /tmp have lost each other's temporary tables.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return nil, false, err
	}
	// mariadbd refuses to run as root unless told to; as anyone else the
	// option is ignored.
	userOpt := "--user=" + me.Username
	var out bytes.Buffer
	cmd := exec.Command(install, "--no-defaults", "--datadir="+data, "--tmpdir="+tmp,
		"--auth-root-authentication-method=normal", "--skip-test-db", userOpt)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, false, fmt.Errorf("%s: %v\n%s", filepath.Base(install), err, tail(out.Bytes()))
	}
	port, err := proctest.FreePort()
	if err != nil {
		return nil, false, err
	}
	s = &binlogServer{dir: dir, daemon: daemon, user: userOpt, port: port,
		dsn: fmt.Sprintf("root@tcp(127.0.0.1:%d)/", port)}
	if err := s.launch(true, extra); err != nil {
		return nil, false, err
	}
	ok = true
	return s, false, nil
}

// launch starts mariadbd on the server's files and port, writing a binary
// log when binlog, extra options last, and waits until it answers.
func (s *binlogServer) launch(binlog bool, extra []string) error {
	errLog := filepath.Join(s.dir, "error.log")
	cmd := exec.Command(s.daemon, "--no-defaults", "--datadir="+filepath.Join(s.dir, "data"),
		"--socket="+filepath.Join(s.dir, "sock"), "--tmpdir="+filepath.Join(s.dir, "tmp"),
		"--port="+strconv.Itoa(s.port), "--bind-address=127.0.0.1", "--skip-name-resolve",
		"--pid-file="+filepath.Join(s.dir, "mariadbd.pid"), "--log-error="+errLog,
		"--server-id=1", s.user,
		// A test server: small and quick, durability is not its concern.
		"--innodb-buffer-pool-size=64M", "--innodb-flush-log-at-trx-commit=2", "--sync-binlog=0",
		"--character-set-server=utf8mb4", "--collation-server=utf8mb4_unicode_520_ci")
	if binlog {
		cmd.Args = append(cmd.Args, "--log-bin="+filepath.Join(s.dir, "binlog"), "--binlog-format=ROW",
			"--binlog-row-image=FULL")
	}
	cmd.Args = append(cmd.Args, extra...)
	// The server dies with the test process, even when it is killed before
	// TestMain can stop it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %v", filepath.Base(s.daemon), err)
	}
	s.cmd, s.done = cmd, make(chan struct{})
	done := s.done
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	if err := s.waitAnswering(60 * time.Second); err != nil {
		s.halt()
		log, _ := os.ReadFile(errLog)
		return fmt.Errorf("%v\n%s", err, tail(log))
	}
	return nil
}

// Server is a private MariaDB of one test, which it may restart with
// other options (without its binary log: the server a shop's host
// restarted).
type Server struct {
	s *binlogServer
}

// NewServer starts a private MariaDB for the test, with a binary log as
// BinlogServer's and the extra mariadbd options (--lower-case-table-names=1),
// stopped and removed when the test ends. Without MariaDB's binaries the
// test stops through Lacking.
func NewServer(t testing.TB, extra ...string) *Server {
	t.Helper()
	s, missing, err := startBinlogServer(extra...)
	switch {
	case missing:
		Lacking(t, "no MariaDB binaries to start a private server: %v", err)
	case err != nil:
		t.Fatalf("start a private MariaDB: %v", err)
	}
	t.Cleanup(s.stop)
	return &Server{s: s}
}

// DSN is the server's root DSN, root@tcp(127.0.0.1:PORT)/.
func (s *Server) DSN() string { return s.s.dsn }

// Restart stops the server and starts it again on the same files and
// port, with a binary log or without, and the extra options.
func (s *Server) Restart(t testing.TB, binlog bool, extra ...string) {
	t.Helper()
	s.s.halt()
	if err := s.s.launch(binlog, extra); err != nil {
		t.Fatalf("restart the private MariaDB: %v", err)
	}
}

// waitAnswering polls the server until it answers, it ends, or the time
// is up.
func (s *binlogServer) waitAnswering(limit time.Duration) error {
	db, err := sql.Open("mysql", s.dsn+"?timeout=1s")
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err = db.PingContext(ctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			return errors.New("mariadbd ended before answering")
		case <-deadline.C:
			return fmt.Errorf("mariadbd did not answer within %v: %v", limit, err)
		case <-tick.C:
		}
	}
}

// stop ends the server and removes its files.
func (s *binlogServer) stop() {
	s.halt()
	os.RemoveAll(s.dir)
}

// halt ends the server's process (SIGTERM, SIGKILL after 20 s).
func (s *binlogServer) halt() {
	proctest.Terminate(s.cmd.Process, s.done, 20*time.Second)
}

// tail is the end of a log, for an error message.
func tail(b []byte) []byte {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return b
}

// RunBuilt is a TestMain's whole work for the packages whose tests run
// binaries of this module: it builds pkgs (name → import path) into a
// temporary directory, hands their paths to built, runs the tests (Run),
// stops the servers BinlogServer started and removes the binaries. The
// caller exits with the code it returns.
func RunBuilt(m *testing.M, pkgs map[string]string, built func(bins map[string]string)) int {
	bins, remove, err := proctest.BuildTemp(pkgs)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer remove()
	built(bins)
	defer StopServers()
	return Run(m)
}
