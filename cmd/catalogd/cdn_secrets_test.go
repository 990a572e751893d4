package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
)

// cdnAnswer writes one scripted answer of a CDN's stand-in, the token at
// hand to echo.
type cdnAnswer func(w http.ResponseWriter, token string)

// at is an error message naming its round first, with the token at byte
// offset off, then rest.
func at(round, off int, token, rest string) string {
	m := fmt.Sprintf("round %d: ", round)
	return m + strings.Repeat("x", max(0, off-len(m))) + token + rest
}

// fastlyError answers as Fastly does on an error: {"msg", "detail"}.
func fastlyError(status int, msg func(token string) string) cdnAnswer {
	return func(w http.ResponseWriter, token string) {
		w.Header().Set("Content-Type", "application/json")
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "1")
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"msg":%q,"detail":""}`, msg(token))
	}
}

// cloudflareError answers as Cloudflare does on an error: the envelope
// with success false.
func cloudflareError(status int, msg func(token string) string) cdnAnswer {
	return func(w http.ResponseWriter, token string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"success":false,"errors":[{"code":10000,"message":%q}],"messages":[],"result":null}`, msg(token))
	}
}

// gate holds a stand-in's answer to request n until the test has seen
// the answer to request n-1 in /readyz: each answer is seen, however slow
// the machine.
type gate struct {
	open []chan struct{}
	done chan struct{}
}

func newGate(t *testing.T, n int) *gate {
	t.Helper()
	g := &gate{done: make(chan struct{})}
	for range n {
		g.open = append(g.open, make(chan struct{}))
	}
	close(g.open[0])
	t.Cleanup(func() { close(g.done) })
	return g
}

func (g *gate) wait(n int) {
	select {
	case <-g.open[min(n, len(g.open)-1)]:
	case <-g.done:
	}
}

func (g *gate) release(n int) {
	if n < len(g.open) {
		close(g.open[n])
	}
}

// The CDN tokens — Fastly's in the environment, Cloudflare's in a file —
// never leave catalogd but to their own API. Stand-ins for both APIs echo
// the token in their errors: whole, at the start, across the 200
// characters an error keeps and past them, and in part (an API's own cut);
// Cloudflare's once in a 200 that is not its JSON; then both redirect (307)
// to another host, the token in the new URL. No 8 characters of either
// token show in the log at any level, in any /readyz seen, /metrics or
// stdout; the other host receives nothing; /readyz says both are failing
// because they redirect.
func TestCDNTokensNeverLeave(t *testing.T) {
	dsn, _ := testdb.Load(t, jobsShop())
	fastlyToken, cloudflareToken := newToken(t, 32), newToken(t, 40)
	file := filepath.Join(t.TempDir(), "cloudflare-token")
	if err := os.WriteFile(file, []byte(cloudflareToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	elsewhere := newRecordingHost(t)
	redirect := func(w http.ResponseWriter, token string) {
		w.Header().Set("Location", elsewhere.URL+"/steal?key="+token)
		w.WriteHeader(http.StatusTemporaryRedirect)
	}
	rounds := map[string][]cdnAnswer{
		"fastly": {
			fastlyError(500, func(tok string) string { return at(0, 20, tok, " is not a valid token") }),
			fastlyError(502, func(tok string) string { return at(1, 177, tok, " is not a valid token") }),
			fastlyError(503, func(tok string) string { return at(2, 40, tok[:20], "… cut by the API"+at(2, 200, tok, "")) }),
			fastlyError(429, func(tok string) string { return at(3, 195, tok, " is rate limited") }),
		},
		"cloudflare": {
			cloudflareError(500, func(tok string) string { return at(0, 0, tok, " is not a valid token") }),
			cloudflareError(502, func(tok string) string { return at(1, 175, tok, " is not a valid token") }),
			func(w http.ResponseWriter, tok string) {
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprintf(w, "<html><body>%s</body></html>", at(2, 100, tok, " went through a proxy"))
			},
			cloudflareError(503, func(tok string) string { return at(3, 30, "…"+tok[len(tok)-12:], at(3, 240, tok, "")) }),
		},
	}
	tokens := map[string]string{"fastly": fastlyToken, "cloudflare": cloudflareToken}
	apis := map[string]*cdnStandIn{}
	gates := map[string]*gate{}
	for cdn, token := range tokens {
		api := newCDNStandIn(t, cdn, token)
		g := newGate(t, len(rounds[cdn])+1)
		api.script = func(n int, w http.ResponseWriter) bool {
			g.wait(n)
			if n < len(rounds[cdn]) {
				rounds[cdn][n](w, token)
			} else {
				redirect(w, token)
			}
			return true
		}
		apis[cdn], gates[cdn] = api, g
	}
	env := append(append([]string{"CATALOG_LOG_LEVEL=debug", "CATALOG_PURGE_CLOUDFLARE_INTERVAL=100ms",
		"CATALOG_PURGE_FASTLY_TOKEN=" + fastlyToken, "CATALOG_PURGE_CLOUDFLARE_TOKEN_FILE=" + file},
		apis["fastly"].env()...), apis["cloudflare"].env()...)
	r := startFaulty(t, dsn, env...)

	var mu sync.Mutex
	var seen []string // every /readyz read
	readyz := func() string {
		_, body, _ := r.Readyz()
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, body)
		return body
	}
	line := func(body, cdn string) string {
		for _, l := range strings.Split(body, "\n") {
			if strings.HasPrefix(l, "purge "+cdn+":") {
				return l
			}
		}
		return ""
	}
	// follow walks one target through its rounds: each time /readyz's line
	// says the round's failure, the stand-in may give the next answer.
	follow := func(cdn string) {
		wait := func(what, want string) bool {
			var l string
			err := r.Poll(20*time.Second, func() bool {
				l = line(readyz(), cdn)
				return strings.Contains(l, want)
			})
			if err != nil {
				t.Errorf("/readyz's %s line never said %s: %v; last: %s", cdn, what, err, l)
			}
			return err == nil
		}
		for i := range rounds[cdn] {
			if !wait(fmt.Sprintf("round %d's failure", i), fmt.Sprintf("round %d", i)) {
				return
			}
			gates[cdn].release(i + 1)
		}
		wait("it fails for the redirect", fmt.Sprintf(
			": %s: 307 Temporary Redirect: redirected to %s/steal: purge APIs do not redirect; check the URL", cdn, elsewhere.URL))
		if l := line(readyz(), cdn); !strings.HasPrefix(l, "purge "+cdn+": failing") {
			t.Errorf("/readyz's %s line: %s, want failing", cdn, l)
		}
	}
	var wg sync.WaitGroup
	for cdn := range apis {
		wg.Add(1)
		go func() {
			defer wg.Done()
			follow(cdn)
		}()
	}
	wg.Wait()

	_, metrics, err := r.Get(r.AdminURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if got := elsewhere.received(); len(got) > 0 {
		t.Errorf("the other host received %d requests:\n%s", len(got), strings.Join(got, "\n---\n"))
	}
	texts := map[string]string{"the log": r.Stderr.String(), "stdout": r.Stdout.String(), "/metrics": metrics,
		"/readyz": strings.Join(seen, "\n"), "what the other host received": strings.Join(elsewhere.received(), "\n")}
	for what, text := range texts {
		for cdn, token := range tokens {
			if leaks := proctest.Leaks(text, token); len(leaks) > 0 {
				t.Errorf("%s holds %d parts of the %s token, e.g. %q", what, len(leaks), cdn, leaks[0])
			}
		}
	}
	for cdn, api := range apis {
		if bad := api.malformed(); len(bad) > 0 {
			t.Errorf("%s's stand-in received requests the API would refuse: %q", cdn, bad)
		}
		for _, req := range api.requests() {
			if req.token != tokens[cdn] {
				t.Errorf("%s's stand-in received a request with another credential", cdn)
			}
		}
	}
	if len(seen) > 0 {
		t.Logf("the last /readyz:\n%s", seen[len(seen)-1])
	}
}
