package faultproxy

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// echo starts a target that writes back what it reads.
func echo(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return l.Addr().String()
}

func dial(t *testing.T, s *Proxy) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip writes msg and reads it back within d.
func roundTrip(c net.Conn, msg string, d time.Duration) (string, error) {
	_ = c.SetDeadline(time.Now().Add(d))
	if _, err := c.Write([]byte(msg)); err != nil {
		return "", err
	}
	buf := make([]byte, len(msg))
	n, err := io.ReadFull(c, buf)
	return string(buf[:n]), err
}

func TestProxyModes(t *testing.T) {
	s := Start(t, echo(t))

	t.Run("plain", func(t *testing.T) {
		if got, err := roundTrip(dial(t, s), "hello", time.Second); got != "hello" || err != nil {
			t.Fatalf("round trip = %q, %v", got, err)
		}
	})
	t.Run("delay", func(t *testing.T) {
		c := dial(t, s)
		s.SetDelay(150 * time.Millisecond)
		defer s.SetDelay(0)
		start := time.Now()
		if got, err := roundTrip(c, "slow", 2*time.Second); got != "slow" || err != nil {
			t.Fatalf("round trip = %q, %v", got, err)
		}
		if took := time.Since(start); took < 300*time.Millisecond { // both ways
			t.Errorf("round trip took %v, want at least 300ms", took)
		}
	})
	t.Run("black hole", func(t *testing.T) {
		c := dial(t, s)
		if _, err := roundTrip(c, "a", time.Second); err != nil {
			t.Fatal(err)
		}
		s.SetBlackhole(true)
		fresh := dial(t, s)
		if _, err := roundTrip(c, "held", 200*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("open connection in a black hole: %v, want a timeout", err)
		}
		if _, err := roundTrip(fresh, "held", 200*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("new connection in a black hole: %v, want a timeout", err)
		}
		s.SetBlackhole(false)
		// What was held flows again.
		for _, conn := range []net.Conn{c, fresh} {
			_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
			buf := make([]byte, 4)
			if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "held" {
				t.Fatalf("after the black hole: %q, %v", buf, err)
			}
		}
	})
	t.Run("cut", func(t *testing.T) {
		c := dial(t, s)
		before := s.Cuts()
		s.CutAfter(4)
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Write([]byte("0123456789")); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(c)
		if string(got) != "0123" || !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("read %q, %v; want 4 bytes then a reset", got, err)
		}
		if s.Cuts() != before+1 {
			t.Errorf("Cuts = %d, want %d", s.Cuts(), before+1)
		}
		if got, err := roundTrip(dial(t, s), "again", time.Second); got != "again" || err != nil {
			t.Fatalf("after the cut: %q, %v", got, err)
		}
	})
	t.Run("down", func(t *testing.T) {
		c := dial(t, s)
		if _, err := roundTrip(c, "a", time.Second); err != nil {
			t.Fatal(err)
		}
		s.SetDown(true)
		if _, err := roundTrip(c, "b", time.Second); err == nil {
			t.Fatal("an open connection survived SetDown")
		}
		if _, err := roundTrip(dial(t, s), "c", time.Second); err == nil {
			t.Fatal("a new connection was served while down")
		}
		s.SetDown(false)
		if got, err := roundTrip(dial(t, s), "back", time.Second); got != "back" || err != nil {
			t.Fatalf("after SetDown(false): %q, %v", got, err)
		}
	})
}
