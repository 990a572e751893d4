// Package proctest runs this module's programs for the process tests, the
// soak and catalogbench: it builds them, gives them free loopback
// addresses and an environment without the caller's CATALOG_* settings,
// starts catalogd and waits until it answers, polls conditions with a
// deadline, scrapes /metrics and reads the process's memory.
//
// The functions return errors, for programs; the Must ones fail a test
// instead and stop the process when it ends.
package proctest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// FreePort returns a loopback TCP port where nothing listened a moment
// ago.
func FreePort() (int, error) {
	addrs, err := FreeAddresses(1)
	if err != nil {
		return 0, err
	}
	_, port, _ := net.SplitHostPort(addrs[0])
	return strconv.Atoi(port)
}

// FreeAddresses returns n loopback host:ports where nothing listened a
// moment ago, none handed out before by this process: once its listener is
// closed, the system may hand a port out again, and two servers of one
// test given the same would collide.
func FreeAddresses(n int) ([]string, error) {
	given.Lock()
	defer given.Unlock()
	addrs := make([]string, 0, n)
	for len(addrs) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		// Held until the end: a port handed out before is skipped, and
		// holding it makes the next try another.
		defer l.Close()
		port := l.Addr().(*net.TCPAddr).Port
		if given.ports[port] {
			continue
		}
		given.ports[port] = true
		addrs = append(addrs, l.Addr().String())
	}
	return addrs, nil
}

// given are the ports FreeAddresses handed out.
var given = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// FreeAddress is FreePort as a host:port.
func FreeAddress() (string, error) {
	addrs, err := FreeAddresses(1)
	if err != nil {
		return "", err
	}
	return addrs[0], nil
}

// FreeAddr is FreeAddress for a test.
func FreeAddr(t testing.TB) string {
	t.Helper()
	return FreeAddrs(t, 1)[0]
}

// FreeAddrs is FreeAddresses for a test.
func FreeAddrs(t testing.TB, n int) []string {
	t.Helper()
	addrs, err := FreeAddresses(n)
	if err != nil {
		t.Fatal(err)
	}
	return addrs
}

// SyncBuffer is a buffer safe to write from a process's output copier while
// the test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Build compiles each package (output name → package path, relative to the
// working directory or an import path) into dir.
func Build(dir string, pkgs map[string]string) error {
	for name, pkg := range pkgs {
		build := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build %s: %w", pkg, err)
		}
	}
	return nil
}

// BuildTemp is Build into a new temporary directory, for a TestMain: it
// returns each binary's path by name, and a function that removes them.
func BuildTemp(pkgs map[string]string) (map[string]string, func(), error) {
	dir, err := os.MkdirTemp("", "catalogd-bin-")
	if err != nil {
		return nil, nil, err
	}
	remove := func() { os.RemoveAll(dir) }
	if err := Build(dir, pkgs); err != nil {
		remove()
		return nil, nil, err
	}
	bins := map[string]string{}
	for name := range pkgs {
		bins[name] = filepath.Join(dir, name)
	}
	return bins, remove, nil
}

// Environ is this process's environment without any CATALOG_* setting,
// plus kv: a child process sees only the settings it is given. Nor does it
// see the make that may be running the tests (make test): a make the
// child starts is a user's, not a sub-make that prints "Entering
// directory" before its first line and takes the outer one's flags.
func Environ(kv ...string) []string {
	var out []string
	for _, e := range os.Environ() {
		name, _, _ := strings.Cut(e, "=")
		switch {
		case strings.HasPrefix(name, "CATALOG_"):
		case name == "MAKELEVEL", name == "MAKEFLAGS", name == "MFLAGS", name == "MAKEOVERRIDES":
		default:
			out = append(out, e)
		}
	}
	return append(out, kv...)
}
