// Package faultproxy is a TCP proxy for tests and the soak that stands
// between catalogd and the database and fails the link the ways a database
// link fails.
package faultproxy

import (
	"net"
	"sync"
	"testing"
	"time"
)

// Proxy forwards connections to a target over a link that can fail: it
// can be down (open connections cut, new ones refused), slow (every chunk
// waits), a black hole (nothing flows, connections hang, and everything
// held flows again when it ends, as TCP retransmits after a partition
// heals), or reset once in the middle of a stream (a result set cut after
// a number of bytes, with a TCP RST to the client).
//
// Programs (the soak) use it through Listen and Close; tests through Start.
type Proxy struct {
	l      net.Listener
	target string

	mu        sync.Mutex
	closed    bool
	down      bool
	blackhole bool
	delay     time.Duration
	cutAfter  int64 // bytes from the target still forwarded before a reset; <0: no cut armed
	cuts      int
	recording bool
	recorded  []int // sizes of the chunks from the target while recording
	accepted  int
	links     map[*link]struct{}
	wake      chan struct{} // closed and replaced whenever a mode changes
}

// link is one proxied connection: in is the client's, out the target's
// (nil while a black hole holds the dial back).
type link struct {
	in, out net.Conn
	once    sync.Once
	done    chan struct{}
}

// close ends the link; with reset, the client sees a TCP RST rather than
// an orderly end of stream.
func (l *link) close(reset bool) {
	l.once.Do(func() {
		if tc, ok := l.in.(*net.TCPConn); ok && reset {
			_ = tc.SetLinger(0)
		}
		l.in.Close()
		if l.out != nil {
			l.out.Close()
		}
		close(l.done)
	})
}

// Listen starts a Proxy on a free loopback port forwarding to target.
func Listen(target string) (*Proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Proxy{l: l, target: target, cutAfter: -1, links: map[*link]struct{}{}, wake: make(chan struct{})}
	go s.accept()
	return s, nil
}

// Start is Listen for a test: it fails the test when it cannot listen and
// closes the Proxy when the test ends.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	s, err := Listen(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Addr is the host:port to connect to instead of the target.
func (s *Proxy) Addr() string { return s.l.Addr().String() }

// Close stops listening and cuts every connection.
func (s *Proxy) Close() error {
	s.mu.Lock()
	s.closed = true
	s.cutAllLocked()
	s.changedLocked()
	s.mu.Unlock()
	return s.l.Close()
}

// SetDown takes the target away (cutting every open connection and
// refusing new ones) or brings it back.
func (s *Proxy) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
	if down {
		s.cutAllLocked()
	}
	s.changedLocked()
}

// SetDelay makes every chunk of bytes, in either direction, wait d before
// it is forwarded; 0 ends the delay.
func (s *Proxy) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
	s.changedLocked()
}

// SetBlackhole stops every byte in either direction (held, not lost) and
// holds new connections before they reach the target; false lets
// everything flow again.
func (s *Proxy) SetBlackhole(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blackhole = on
	s.changedLocked()
}

// CutAfter arms one reset: of the bytes the target sends from now on, on
// any connection, n more are forwarded, and the connection that carries
// the n-th (or, for n = 0, the next chunk) is reset with a TCP RST as soon
// as they are: in the middle of a chunk when n ends there, right after it
// when n ends with it (the client then finds the reset when it sends its
// next statement). The target's side is closed too.
func (s *Proxy) CutAfter(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n < 0 {
		n = 0
	}
	s.cutAfter = n
}

// Disarm cancels a cut armed by CutAfter that has not happened.
func (s *Proxy) Disarm() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cutAfter = -1
}

// Record starts (true) or stops recording the sizes of the chunks the
// target sends, in the order they are forwarded; starting clears the
// record. A test records one request to learn where the target's answers
// end, then cuts there.
func (s *Proxy) Record(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recording = on
	if on {
		s.recorded = nil
	}
}

// Recorded returns the chunk sizes recorded.
func (s *Proxy) Recorded() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.recorded...)
}

// Cuts is how many resets CutAfter has caused.
func (s *Proxy) Cuts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cuts
}

// Conns is how many connections are open through the Proxy now.
func (s *Proxy) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.links)
}

// Accepted is how many connections the Proxy has accepted in all.
func (s *Proxy) Accepted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepted
}

func (s *Proxy) changedLocked() {
	close(s.wake)
	s.wake = make(chan struct{})
}

func (s *Proxy) cutAllLocked() {
	for l := range s.links {
		l.close(false)
	}
	clear(s.links)
}

func (s *Proxy) accept() {
	for {
		in, err := s.l.Accept()
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			return
		}
		go s.serve(in)
	}
}

// serve holds a new connection while the target is a black hole, then
// connects it to the target, unless the target is down.
func (s *Proxy) serve(in net.Conn) {
	l := &link{in: in, done: make(chan struct{})}
	s.mu.Lock()
	s.accepted++
	if s.down || s.closed {
		s.mu.Unlock()
		in.Close()
		return
	}
	s.links[l] = struct{}{}
	s.mu.Unlock()
	defer s.forget(l)
	if !s.hold(l, false) {
		return
	}
	out, err := net.DialTimeout("tcp", s.target, 5*time.Second)
	if err != nil {
		l.close(false)
		return
	}
	s.mu.Lock()
	if s.down || s.closed {
		s.mu.Unlock()
		out.Close()
		l.close(false)
		return
	}
	select {
	case <-l.done: // cut while dialling
		s.mu.Unlock()
		out.Close()
		return
	default:
	}
	l.out = out
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.pipe(l, out, in, false)
		close(done)
	}()
	s.pipe(l, in, out, true)
	<-done
}

func (s *Proxy) forget(l *link) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.links, l)
}

// hold waits while the link must not carry bytes: while the target is a
// black hole, and (withDelay) until the delay has passed since the call. It
// reports false when the link was closed meanwhile.
func (s *Proxy) hold(l *link, withDelay bool) bool {
	start := time.Now()
	for {
		s.mu.Lock()
		bh, d, wake := s.blackhole, s.delay, s.wake
		s.mu.Unlock()
		var timer *time.Timer
		var fired <-chan time.Time // nil: wait for a mode change only
		if !bh {
			rem := time.Duration(0)
			if withDelay {
				rem = d - time.Since(start)
			}
			if rem <= 0 {
				select {
				case <-l.done:
					return false
				default:
					return true
				}
			}
			timer = time.NewTimer(rem)
			fired = timer.C
		}
		select {
		case <-fired:
		case <-wake:
		case <-l.done:
			if timer != nil {
				timer.Stop()
			}
			return false
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// budget applies an armed cut to a chunk from the target: it returns what
// may be forwarded and whether the link must be reset after it.
func (s *Proxy) budget(chunk []byte) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.recording {
		s.recorded = append(s.recorded, len(chunk))
	}
	if s.cutAfter < 0 {
		return chunk, false
	}
	if int64(len(chunk)) < s.cutAfter {
		s.cutAfter -= int64(len(chunk))
		return chunk, false
	}
	keep := chunk[:s.cutAfter]
	s.cutAfter = -1
	s.cuts++
	return keep, true
}

// pipe copies src to dst chunk by chunk, each chunk subject to the modes.
func (s *Proxy) pipe(l *link, dst, src net.Conn, fromTarget bool) {
	defer l.close(false)
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !s.hold(l, true) {
				return
			}
			chunk, cut := buf[:n], false
			if fromTarget {
				chunk, cut = s.budget(chunk)
			}
			if len(chunk) > 0 {
				if _, werr := dst.Write(chunk); werr != nil {
					return
				}
			}
			if cut {
				l.close(true)
				return
			}
		}
		if err != nil {
			return // the end of the stream, a reset or a cut: the link ends
		}
	}
}
