// Package edgetest is a local server in place of Varnish for the tests of
// the edge purge (the real Varnish, with the shipped VCL, is
// deploy/varnish's end-to-end test).
package edgetest

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// indexPath is the default namespace's API index, which catalogd starting
// asks the edge for.
const indexPath = "/wp-json/shop/v1/catalog"

// Varnish records the xkey tags of every PURGE / it receives, and answers
// the start-up question for the API index with what AnswerIndex set, a 404
// when nothing.
type Varnish struct {
	*httptest.Server
	mu     sync.Mutex
	purges [][]string
	bad    []string // requests that were not PURGE / with an xkey header
	index  http.HandlerFunc
}

// NewVarnish starts one until the test ends.
func NewVarnish(t *testing.T) *Varnish {
	t.Helper()
	v := &Varnish{}
	v.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.mu.Lock()
		defer v.mu.Unlock()
		xkey := r.Header.Get("xkey")
		if r.Method == http.MethodGet && r.URL.Path == indexPath {
			// catalogd starting asks what the edge holds (follow's
			// startpurge.go): unless told, this one holds nothing, so
			// it purges everything.
			if v.index != nil {
				v.index(w, r)
				return
			}
			http.NotFound(w, r)
			return
		}
		if r.Method != "PURGE" || r.URL.Path != "/" || xkey == "" {
			v.bad = append(v.bad, r.Method+" "+r.URL.String()+" xkey="+xkey)
			http.Error(w, "bad purge", http.StatusBadRequest)
			return
		}
		v.purges = append(v.purges, strings.Fields(xkey))
	}))
	t.Cleanup(v.Close)
	return v
}

// AnswerIndex has it answer the question for the API index with h.
func (v *Varnish) AnswerIndex(h http.HandlerFunc) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.index = h
}

// Purged says whether a purge named every one of the tags (each purge of
// its own or together).
func (v *Varnish) Purged(tags ...string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	seen := map[string]bool{}
	for _, p := range v.purges {
		for _, t := range p {
			seen[t] = true
		}
	}
	for _, t := range tags {
		if !seen[t] {
			return false
		}
	}
	return true
}

// Count is how many purges it received.
func (v *Varnish) Count() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.purges)
}

// Since returns the tags of each purge after the first n.
func (v *Varnish) Since(n int) [][]string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.purges[n:])
}

// Bad lists the requests that were not a PURGE / with an xkey header.
func (v *Varnish) Bad() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.bad)
}
