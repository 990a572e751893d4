package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"catalogd/internal/testdb"
)

// conn is a raw keep-alive client connection to the public listener.
type conn struct {
	net.Conn
	br *bufio.Reader
}

func dial(t *testing.T, addr string) *conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return &conn{Conn: c, br: bufio.NewReader(c)}
}

// send writes one GET request for path.
func (c *conn) send(t *testing.T, path string) {
	t.Helper()
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: shop.example\r\n\r\n"); err != nil {
		t.Fatalf("send: %v", err)
	}
}

// answered reports whether a response starts arriving within d.
func (c *conn) answered(d time.Duration) (bool, error) {
	_ = c.SetReadDeadline(time.Now().Add(d))
	defer c.SetReadDeadline(time.Time{})
	_, err := c.br.Peek(1)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return false, nil
	}
	return err == nil, err
}

// read reads one whole response.
func (c *conn) read(t *testing.T) int {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp.StatusCode
}

// Connections past --max-conns wait, unserved, until one closes, and an
// idle keep-alive connection is closed after --idle-timeout: a crowd of
// idle clients cannot pile up goroutines and buffers.
func TestConnectionCapAndIdleTimeout(t *testing.T) {
	dsn, _ := testdb.Load(t, jobsShop())
	r := startFaulty(t, dsn, "CATALOG_MAX_CONNS=2", "CATALOG_IDLE_TIMEOUT=1s")
	r.waitReadyz(t, http.StatusOK, 10*time.Second) // the catalog is in: no loading 503
	public := r.Public
	const path = "/wp-json/shop/v1/catalog"

	first, second := dial(t, public), dial(t, public)
	for _, c := range []*conn{first, second} {
		c.send(t, path)
		if status := c.read(t); status != http.StatusOK {
			t.Fatalf("status %d within the cap, want 200", status)
		}
	}
	idleSince := time.Now() // second stays open and idle from here

	third := dial(t, public) // the kernel completes the handshake
	third.send(t, path)
	if ok, err := third.answered(300 * time.Millisecond); ok || err != nil {
		t.Fatalf("a connection past the cap of 2 was served (%v)", err)
	}
	first.Close()
	if ok, err := third.answered(5 * time.Second); !ok {
		t.Fatalf("the waiting connection was not served once one closed: %v", err)
	}
	if status := third.read(t); status != http.StatusOK {
		t.Errorf("status %d once admitted, want 200", status)
	}

	// The idle one is closed by the server, after about a second.
	_ = second.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := second.br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("idle connection: %v, want it closed by the server (EOF)", err)
	}
	// Not before the timeout; the upper bound is the read deadline above,
	// which leaves a busy machine room.
	if idle := time.Since(idleSince); idle < 900*time.Millisecond {
		t.Errorf("idle connection closed after %v, want after the 1s idle timeout", idle)
	}
}
