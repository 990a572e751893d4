package purge

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"catalogd/internal/proctest"
)

// A CDN's API that echoes the token in its error — whole, at any place
// including across the 200 characters an error keeps, or in part, as an
// API that shortened its own echo — never gets any 8 characters of it
// into the status, /readyz's report or the log, at any level. The
// stand-ins are Fastly's and Cloudflare's, as in cdn_test.go, and a
// Varnish's, for its purge secret.
func TestEchoedTokenNeverShows(t *testing.T) {
	const varnishSecret = "vS3cr3t-purge-0123456789abcdef"
	pad := func(n int) string { return strings.Repeat("x", n) }
	echoes := []struct {
		name string
		msg  func(token string) string
	}{
		{"at the start", func(tok string) string { return tok + " is not a valid token" }},
		{"at 150", func(tok string) string { return pad(150) + tok }},
		{"across the cut at 200", func(tok string) string { return pad(177) + tok + " is not valid" }},
		{"just before the cut", func(tok string) string { return pad(199-len(tok)) + tok + pad(50) }},
		{"past the cut", func(tok string) string { return pad(230) + tok }},
		{"its first 20, the API's own cut", func(tok string) string { return "key " + tok[:20] + "… is invalid" }},
		{"its last 10", func(tok string) string { return "key …" + tok[len(tok)-10:] + " is invalid" }},
		{"in capitals", func(tok string) string { return "KEY " + strings.ToUpper(tok) }},
	}
	cdns := []struct {
		name  string
		token string
		make  func(t *testing.T, answer status) Target
	}{
		{"fastly", fastlyToken, func(t *testing.T, answer status) Target {
			api, _ := fastlyStandIn(t, answer)
			return NewFastly(api.URL, fastlyService, FixedToken(fastlyToken), false, nil)
		}},
		{"cloudflare", cloudflareToken, func(t *testing.T, answer status) Target {
			api, _ := cloudflareStandIn(t, answer)
			return NewCloudflare(api.URL+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 0, 0, nil)
		}},
		// A Varnish whose VCL quotes the Purge-Secret it refused (the
		// shipped one does not).
		{"varnish", varnishSecret, func(t *testing.T, answer status) Target {
			s := newStandIn(t, func(n int, _ recorded, w http.ResponseWriter) {
				code, _, body := answer(n)
				http.Error(w, body, code)
			})
			v, err := NewVarnish(s.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			return v.WithSecret(FixedToken(varnishSecret))
		}},
	}
	for _, cdn := range cdns {
		for _, echo := range echoes {
			t.Run(cdn.name+"/"+echo.name, func(t *testing.T) {
				// A 500 first (retried: the debug line), then a 401 (the
				// refusal's error line).
				target := cdn.make(t, func(n int) (int, http.Header, string) {
					return []int{http.StatusInternalServerError, http.StatusUnauthorized}[min(n, 1)], nil, echo.msg(cdn.token)
				})
				clock := newFakeClock()
				p, logs := run(t, clock, Options{Backoff: time.Second}, target)
				p.Add([]string{"shop-product-1"}, clock.Now())
				step(t, clock, target.Limits().Interval)
				eventually(t, "the 500 reported", func() bool { return strings.Contains(p.Status()[0].LastErr, "500") })
				step(t, clock, time.Second)
				eventually(t, "the 401 reported", func() bool { return strings.Contains(p.Status()[0].LastErr, "401") })
				for what, text := range map[string]string{"the status": p.Status()[0].LastErr,
					"the report": p.Report(clock.Now()), "the log": logs.String()} {
					if leaks := proctest.Leaks(text, cdn.token); len(leaks) > 0 {
						t.Errorf("%s holds %q of the token:\n%s", what, leaks, text)
					}
				}
				if !strings.Contains(logs.String(), "edge purge failed again") && !strings.Contains(logs.String(), "trying again") {
					t.Errorf("no line for the 500 in the log:\n%s", logs.String())
				}
			})
		}
	}
}

// A purge API that redirects is failing, for every target: the redirect
// is not followed — the credential and the tags never reach the other
// host — /readyz says where it was sent and what to check, and it is a
// refusal, tried again after the pause, not at once.
func TestRedirectIsAFailureNeverFollowed(t *testing.T) {
	// The other host, recording whatever reaches it.
	elsewhere := newStandIn(t, func(_ int, _ recorded, w http.ResponseWriter) {
		fmt.Fprint(w, `{"success":true,"errors":[]}`)
	})
	redirect := func(code int) func(int, recorded, http.ResponseWriter) {
		return func(_ int, _ recorded, w http.ResponseWriter) {
			w.Header().Set("Location", elsewhere.URL+"/purge?key=copy")
			w.WriteHeader(code)
		}
	}
	tests := []struct {
		name string
		code int
		make func(url string) Target
	}{
		{"varnish 301", http.StatusMovedPermanently, func(url string) Target {
			v, err := NewVarnish(url, nil)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}},
		{"fastly 307", http.StatusTemporaryRedirect, func(url string) Target {
			return NewFastly(url, fastlyService, FixedToken(fastlyToken), false, nil)
		}},
		{"fastly 302", http.StatusFound, func(url string) Target {
			return NewFastly(url, fastlyService, FixedToken(fastlyToken), false, nil)
		}},
		{"cloudflare 308", http.StatusPermanentRedirect, func(url string) Target {
			return NewCloudflare(url+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 0, 0, nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newStandIn(t, redirect(tt.code))
			target := tt.make(api.URL)
			clock := newFakeClock()
			p, logs := run(t, clock, Options{}, target)
			p.Add([]string{"shop-product-1"}, clock.Now())
			step(t, clock, target.Limits().Interval)
			eventually(t, "the redirect reported", func() bool { return p.Status()[0].LastErr != "" })
			eventually(t, "the pause", func() bool { return clock.Waiting() == 1 })
			want := fmt.Sprintf("%d %s: redirected to %s/purge: purge APIs do not redirect; check the URL",
				tt.code, http.StatusText(tt.code), elsewhere.URL)
			if s := p.Status()[0].LastErr; !strings.Contains(s, want) {
				t.Errorf("last error %q, want it to say %q", s, want)
			}
			if r := p.Report(clock.Now()); !strings.Contains(r, "purge "+target.Name()+": failing") {
				t.Errorf("/readyz's report does not say failing:\n%s", r)
			}
			if d := clock.LastAsked(); d != time.Minute {
				t.Errorf("tried again after %v, want the refusal's minute", d)
			}
			if n := elsewhere.count(); n != 0 {
				t.Errorf("the other host received %d requests: %+v", n, elsewhere.requests())
			}
			if n := api.count(); n != 1 {
				t.Errorf("%d requests to the API, want 1", n)
			}
			if !strings.Contains(logs.String(), "edge purge refused") {
				t.Errorf("the log does not say the purge was refused:\n%s", logs.String())
			}
		})
	}
}

// A Cloudflare 200 whose body is not the API's JSON (a proxy's page in
// its place, a cut answer) says nothing of the purge: it is retried after
// the backoff with its tags, not taken for a refusal that drops them and
// pauses for a minute, growing to an hour.
func TestCloudflareGarbledAnswerRetried(t *testing.T) {
	for _, body := range []string{
		"<html><body>502 Bad Gateway</body></html>",
		"",
		`{"success":tr`,
		`{"result":null}`,
	} {
		t.Run(body, func(t *testing.T) {
			api := newStandIn(t, func(n int, _ recorded, w http.ResponseWriter) {
				if n == 0 {
					fmt.Fprint(w, body)
					return
				}
				fmt.Fprint(w, `{"success":true,"errors":[],"messages":[],"result":{"id":"9a7806061c88ada191ed06f989cc3dac"}}`)
			})
			clock := newFakeClock()
			p, _ := run(t, clock, Options{Backoff: time.Second},
				NewCloudflare(api.URL+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 0, 0, nil))
			p.Add([]string{"shop-product-1"}, clock.Now())
			step(t, clock, CloudflareInterval)
			eventually(t, "the failure reported", func() bool { return p.Status()[0].LastErr != "" })
			if s := p.Status()[0].LastErr; !strings.Contains(s, "not Cloudflare's JSON answer") {
				t.Errorf("last error %q, want it to say the answer is not the API's", s)
			}
			eventually(t, "the backoff", func() bool { return clock.Waiting() == 1 })
			if d := clock.LastAsked(); d != time.Second {
				t.Errorf("tried again after %v, want the backoff's 1s", d)
			}
			clock.Advance(time.Second)
			eventually(t, "the retry acknowledged", func() bool { return api.count() == 2 && p.Status()[0].LastErr == "" })
			if tags := decode[map[string][]string](t, api.requests()[1].Body)["tags"]; strings.Join(tags, " ") != "shop-product-1" {
				t.Errorf("the retry purged %v, want the tag kept (and no kinds: nothing was dropped)", tags)
			}
		})
	}
}
