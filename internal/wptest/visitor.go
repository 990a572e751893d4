package wptest

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// Visitor asks the site for pages as a visitor does, at http://Host/…,
// its connections going to the test's server.
type Visitor struct {
	site   *Site
	client *http.Client
}

// Answer is what the visitor got.
type Answer struct {
	Status int
	Header http.Header
	Body   string
}

// Visitor is a visitor whose requests to the site's host go to addr, the
// test's server (host:port). It follows no redirect: a test sees
// WordPress's own.
func (s *Site) Visitor(addr string) *Visitor {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DialContext = func(ctx context.Context, network, address string) (net.Conn, error) {
		if host, _, err := net.SplitHostPort(address); err == nil && host == s.Host {
			address = addr
		}
		return dialer.DialContext(ctx, network, address)
	}
	return &Visitor{site: s, client: &http.Client{Transport: transport, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Do sends method path (the path and query under the site's address) with
// the headers given; the test fails when no answer comes.
func (v *Visitor) Do(t testing.TB, method, path string, header map[string]string) Answer {
	t.Helper()
	req, err := http.NewRequest(method, v.site.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, val := range header {
		req.Header.Set(k, val)
	}
	resp, err := v.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return Answer{resp.StatusCode, resp.Header, string(b)}
}

// Get is Do for a GET.
func (v *Visitor) Get(t testing.TB, path string, header map[string]string) Answer {
	t.Helper()
	return v.Do(t, http.MethodGet, path, header)
}
