package varnish_test

import (
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"
)

// service stands in for a Kubernetes Service as kube-proxy makes it: a
// connection, not a request, goes to one of the endpoints listed when it
// opens, and stays with it until either side closes it, whatever the list
// says later (conntrack). An endpoint listed whose process no longer
// listens refuses the connection: the client sees it reset, as from the
// pod's own kernel. Varnish's backend is this address, as the shipped
// cluster VCL's is the Service catalogd.
type service struct {
	addr string
	ln   net.Listener

	mu        sync.Mutex
	endpoints []string // host:port
	next      int
	open      map[net.Conn]bool
	refused   int // connections an endpoint listed refused
}

func newService(t *testing.T) *service {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &service{addr: ln.Addr().String(), ln: ln, open: map[net.Conn]bool{}}
	go s.accept()
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for c := range s.open {
			c.Close()
		}
	})
	return s
}

// add lists an endpoint: the endpoints controller does once the pod is
// ready.
func (s *service) add(ep string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endpoints = append(s.endpoints, ep)
}

// remove takes an endpoint off the list: what reaches kube-proxy some
// time after the pod was told to stop.
func (s *service) remove(ep string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endpoints = slices.DeleteFunc(s.endpoints, func(e string) bool { return e == ep })
}

// refusals is how many connections an endpoint refused.
func (s *service) refusals() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

func (s *service) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go s.relay(c)
	}
}

// pick is the next endpoint, round robin; "" when none is listed.
func (s *service) pick() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.endpoints) == 0 {
		return ""
	}
	s.next++
	return s.endpoints[s.next%len(s.endpoints)]
}

// track adds or drops an open connection, which the cleanup closes.
func (s *service) track(c net.Conn, open bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if open {
		s.open[c] = true
	} else {
		delete(s.open, c)
	}
}

// relay carries one client connection to an endpoint and back, until
// either side closes.
func (s *service) relay(client net.Conn) {
	s.track(client, true)
	defer s.track(client, false)
	defer client.Close()
	ep := s.pick()
	var backend net.Conn
	var err error
	if ep != "" {
		backend, err = net.DialTimeout("tcp", ep, 5*time.Second)
	}
	if ep == "" || err != nil {
		s.mu.Lock()
		s.refused++
		s.mu.Unlock()
		if tc, ok := client.(*net.TCPConn); ok {
			tc.SetLinger(0) // a reset, not an orderly close
		}
		return
	}
	s.track(backend, true)
	defer s.track(backend, false)
	defer backend.Close()
	done := make(chan struct{}, 2)
	for _, p := range [][2]net.Conn{{backend, client}, {client, backend}} {
		go func() {
			io.Copy(p[0], p[1])
			done <- struct{}{}
		}()
	}
	<-done // one side closed: close both, as the other's copy ends too
}
