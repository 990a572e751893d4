// Package testnet holds the small helpers tests that start processes and
// servers share: a free loopback address, and a buffer a child process
// writes while the test reads it.
package testnet

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// FreeAddr returns a loopback host:port where nothing listens right now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
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
// test's directory) into dir, for a TestMain that runs the binaries.
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

// Environ is the test's environment without any CATALOG_* setting, plus kv:
// a child process sees only the settings the test gives it.
func Environ(kv ...string) []string {
	var out []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "CATALOG_") {
			out = append(out, e)
		}
	}
	return append(out, kv...)
}
