package main

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Fastly's and Cloudflare's APIs cannot be reached from the tests: a
// cdnStandIn is a local STAND-IN for either, checking each request as the
// API documents it (package purge's tests say where) and answering as the
// API does.
//
// Fastly: POST /service/{id}/purge, the token in Fastly-Key, a JSON body
// {"surrogate_keys": [...]}; success is a JSON object of key → purge ID,
// a refused token 401 {"msg", "detail"}.
// Cloudflare: POST /client/v4/zones/{zone}/purge_cache, Authorization:
// Bearer {token}, a JSON body {"tags": [...]}; it answers the v4 envelope
// {"success", "errors": [{"code", "message"}]}, 403 for a refused token.
type cdnStandIn struct {
	*httptest.Server
	cdn string // "fastly" or "cloudflare"

	mu    sync.Mutex
	valid string // the token it takes; another is refused
	// script answers request n instead of the API's own answer, when it
	// returns true.
	script   func(n int, w http.ResponseWriter) bool
	got      []cdnRequest
	problems []string // requests the real API would refuse as malformed
}

// cdnRequest is one purge request a stand-in received.
type cdnRequest struct {
	token string // what the credential header carried
	tags  []string
}

const (
	standInFastlyService   = "SU1Z0isxPaozGVKXdv0eY"
	standInCloudflareZone  = "023e105f4ecef8ad9ca31a8372d0c353"
	cloudflareRefusedToken = `{"success":false,"errors":[{"code":10000,"message":"Authentication error"}],"messages":[],"result":null}`
)

func newCDNStandIn(t *testing.T, cdn, valid string) *cdnStandIn {
	t.Helper()
	s := &cdnStandIn{cdn: cdn, valid: valid}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// env are the settings that point catalogd at the stand-in.
func (s *cdnStandIn) env() []string {
	if s.cdn == "fastly" {
		return []string{"CATALOG_PURGE_FASTLY_SERVICE=" + standInFastlyService, "CATALOG_PURGE_FASTLY_API=" + s.URL}
	}
	return []string{"CATALOG_PURGE_CLOUDFLARE_ZONE=" + standInCloudflareZone, "CATALOG_PURGE_CLOUDFLARE_API=" + s.URL + "/client/v4"}
}

func (s *cdnStandIn) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path, header, field := "/service/"+standInFastlyService+"/purge", "Fastly-Key", "surrogate_keys"
	if s.cdn == "cloudflare" {
		path, header, field = "/client/v4/zones/"+standInCloudflareZone+"/purge_cache", "Authorization", "tags"
	}
	token := strings.TrimPrefix(r.Header.Get(header), "Bearer ")
	var list map[string][]string
	err := json.Unmarshal(body, &list)
	s.mu.Lock()
	n := len(s.got)
	s.got = append(s.got, cdnRequest{token: token, tags: list[field]})
	if r.Method != http.MethodPost || r.URL.Path != path || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") ||
		err != nil || len(list) != 1 || len(list[field]) == 0 {
		s.problems = append(s.problems, fmt.Sprintf("%s %s %s: %.100s", r.Method, r.URL.Path, r.Header.Get("Content-Type"), body))
	}
	valid, script := s.valid, s.script
	s.mu.Unlock()
	if script != nil && script(n, w) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case token != valid && s.cdn == "fastly":
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"msg":"Provided credentials are missing or invalid","detail":""}`)
	case token != valid:
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, cloudflareRefusedToken)
	case s.cdn == "fastly":
		ids := map[string]string{}
		for i, k := range list[field] {
			ids[k] = fmt.Sprintf("108-1391560174-%d", i)
		}
		b, _ := json.Marshal(ids)
		w.Write(b)
	default:
		fmt.Fprint(w, `{"success":true,"errors":[],"messages":[],"result":{"id":"9a7806061c88ada191ed06f989cc3dac"}}`)
	}
}

// take makes token the valid one, as a rotation at the CDN revokes the
// old.
func (s *cdnStandIn) take(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.valid = token
}

func (s *cdnStandIn) requests() []cdnRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

func (s *cdnStandIn) malformed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.problems)
}

// purgedWith says whether a request carrying token named every one of
// the tags.
func (s *cdnStandIn) purgedWith(token string, tags ...string) bool {
	seen := map[string]bool{}
	for _, r := range s.requests() {
		if r.token == token {
			for _, t := range r.tags {
				seen[t] = true
			}
		}
	}
	for _, t := range tags {
		if !seen[t] {
			return false
		}
	}
	return true
}

// recordingHost is a server on another loopback host (127.0.0.2): where
// a hostile redirect points. It records whatever reaches it.
type recordingHost struct {
	*httptest.Server
	mu  sync.Mutex
	got []string // each request: its line, headers and body
}

func newRecordingHost(t *testing.T) *recordingHost {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatalf("listen on another loopback host: %v", err)
	}
	h := &recordingHost{}
	h.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s\n", r.Method, r.URL)
		r.Header.Write(&b)
		b.Write(body)
		h.mu.Lock()
		h.got = append(h.got, b.String())
		h.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"success":true,"errors":[],"messages":[],"result":{}}`)
	}))
	h.Listener.Close()
	h.Listener = l
	h.Start()
	t.Cleanup(h.Close)
	return h
}

func (h *recordingHost) received() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.got)
}

// newToken is a token as the CDNs issue them: n random letters and digits.
func newToken(t *testing.T, n int) string {
	t.Helper()
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		k, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			t.Fatal(err)
		}
		b[i] = alphabet[k.Int64()]
	}
	return string(b)
}
