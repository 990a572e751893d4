// Package testnet holds the small helpers tests that start processes and
// servers share: a free loopback address, and a buffer a child process
// writes while the test reads it.
package testnet

import (
	"bytes"
	"net"
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
