package purge

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// Fastly's and Cloudflare's APIs cannot be reached from the tests: each is
// replaced by a local STAND-IN that checks the request as their documented
// API takes it, and answers as the documentation says the API does.
//
// Fastly (POST /service/{service_id}/purge, "Purge multiple surrogate key
// tags"): the API token in Fastly-Key, a JSON body {"surrogate_keys":
// [...]} of at most 256 keys, Fastly-Soft-Purge: 1 for a soft purge; it
// answers 200 with a JSON object of key → purge ID, errors as {"msg",
// "detail"}.
//
// Cloudflare (POST /zones/{zone_id}/purge_cache, "Purge Cached Content"):
// Authorization: Bearer <token>, a JSON body {"tags": [...]} of at most 100
// tags (every plan's "max operations per request"); it answers the v4
// envelope {"success", "errors": [{"code", "message"}], "result"}, 429 with
// Retry-After past the plan's rate.

const (
	fastlyService   = "SU1Z0isxPaozGVKXdv0eY"
	fastlyToken     = "fastly-tok-0123456789abcdef"
	cloudflareZone  = "023e105f4ecef8ad9ca31a8372d0c353"
	cloudflareToken = "cf-tok-Y5GPZbQz3vHHT3vfNo2d"
)

// apiShape is what a CDN's purge API documents: where it takes a purge,
// how it is authorised, the JSON list it reads and how many it allows,
// and what it answers.
type apiShape struct {
	path            string // the request's path
	auth, authValue string // the header that authorises, and its value
	list            string // the JSON body's one field, a list of tags
	max             int    // the most tags one request may carry
	failed          func(msg string) string
	succeeded       func(tags []string) string
}

// status says what a stand-in answers to its n-th request: a status, extra
// headers and an error message; nil answers success.
type status func(n int) (int, http.Header, string)

// apiStandIn is a local stand-in for a CDN's purge API: it checks each
// request against the documented shape, records what does not fit, and
// answers as the API documents.
func apiStandIn(t *testing.T, api apiShape, answer status) (*standIn, *problems) {
	t.Helper()
	found := &problems{}
	s := newStandIn(t, func(n int, r recorded, w http.ResponseWriter) {
		switch {
		case r.Method != http.MethodPost:
			found.add("method " + r.Method)
		case r.Path != api.path:
			found.add("path " + r.Path)
		case r.Header.Get(api.auth) != api.authValue:
			found.add(api.auth + " " + r.Header.Get(api.auth))
		case !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json"):
			found.add("Content-Type " + r.Header.Get("Content-Type"))
		}
		body := decode[map[string][]string](t, r.Body)
		tags, ok := body[api.list]
		if !ok || len(body) != 1 || len(tags) == 0 || len(tags) > api.max {
			found.add(fmt.Sprintf("body with %d %s: %.80s", len(tags), api.list, r.Body))
		}
		code, h, msg := http.StatusOK, http.Header{}, ""
		if answer != nil {
			code, h, msg = answer(n)
		}
		for k, v := range h {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		if code != http.StatusOK || msg != "" {
			fmt.Fprint(w, api.failed(msg))
			return
		}
		fmt.Fprint(w, api.succeeded(tags))
	})
	return s, found
}

// fastlyStandIn stands in for Fastly's API: it answers the purged keys'
// purge IDs, and errors as {"msg", "detail"}.
func fastlyStandIn(t *testing.T, answer status) (*standIn, *problems) {
	t.Helper()
	return apiStandIn(t, apiShape{path: "/service/" + fastlyService + "/purge", auth: "Fastly-Key", authValue: fastlyToken,
		list: "surrogate_keys", max: 256,
		failed: func(msg string) string { return fmt.Sprintf(`{"msg":%q,"detail":""}`, msg) },
		succeeded: func(keys []string) string {
			ids := map[string]string{}
			for i, k := range keys {
				ids[k] = fmt.Sprintf("108-1391560174-%d", i)
			}
			return string(mustJSON(t, ids))
		}}, answer)
}

func TestFastlyStandInBatchesOf256(t *testing.T) {
	api, problems := fastlyStandIn(t, nil)
	clock := newFakeClock()
	p, _ := run(t, clock, Options{}, NewFastly(api.URL, fastlyService, FixedToken(fastlyToken), false, nil))
	tags := productTags(600)
	p.Add(tags, clock.Now())
	step(t, clock, FastlyInterval)
	eventually(t, "the purge acknowledged", func() bool { return !p.Status()[0].LastOK.IsZero() })
	var got []string
	var sizes []int
	for _, r := range api.requests() {
		keys := decode[map[string][]string](t, r.Body)["surrogate_keys"]
		sizes = append(sizes, len(keys))
		got = append(got, keys...)
		if r.Header.Get("Fastly-Soft-Purge") != "" {
			t.Errorf("Fastly-Soft-Purge sent without --purge-fastly-soft")
		}
	}
	if !slices.Equal(sizes, []int{256, 256, 88}) || !slices.Equal(got, tags) {
		t.Errorf("batches of %v keys, want 256, 256, 88 holding the 600 tags once each", sizes)
	}
	if problems.any() {
		t.Errorf("requests Fastly's API would refuse: %v", problems.list())
	}
}

func TestFastlyStandInSoftPurge(t *testing.T) {
	api, problems := fastlyStandIn(t, nil)
	clock := newFakeClock()
	p, _ := run(t, clock, Options{}, NewFastly(api.URL+"/", fastlyService, FixedToken(fastlyToken), true, nil))
	p.Add([]string{"shop-product-9"}, clock.Now())
	step(t, clock, FastlyInterval)
	eventually(t, "a request", func() bool { return api.count() == 1 })
	if r := api.requests()[0]; r.Header.Get("Fastly-Soft-Purge") != "1" {
		t.Errorf("Fastly-Soft-Purge %q, want 1", r.Header.Get("Fastly-Soft-Purge"))
	}
	if problems.any() {
		t.Errorf("requests Fastly's API would refuse: %v", problems.list())
	}
}

// A bad token (401) is reported, the token never shown — even when the API
// echoes it — and not retried at the pace of a failure that passes.
func TestFastlyStandInBadToken(t *testing.T) {
	api, _ := fastlyStandIn(t, func(int) (int, http.Header, string) {
		return http.StatusUnauthorized, nil, "Provided credentials are missing or invalid: " + fastlyToken
	})
	clock := newFakeClock()
	p, logs := run(t, clock, Options{}, NewFastly(api.URL, fastlyService, FixedToken(fastlyToken), false, nil))
	p.Add([]string{"shop-product-9"}, clock.Now())
	step(t, clock, FastlyInterval)
	eventually(t, "the refusal reported", func() bool { return p.Status()[0].LastErr != "" })
	s := p.Status()[0]
	if !strings.Contains(s.LastErr, "401") || !strings.Contains(s.LastErr, "credentials are missing or invalid") {
		t.Errorf("last error %q, want the 401 and Fastly's message", s.LastErr)
	}
	eventually(t, "the pause", func() bool { return clock.Waiting() == 1 })
	clock.Advance(30 * time.Second)
	p.Add([]string{"shop-product-10"}, clock.Now()) // waits for the pause too
	clock.Advance(29 * time.Second)
	// A worker the move woke (wrongly) would send, be refused, and wait
	// again: the count is read once it waits, not at once.
	eventually(t, "the purger waits", func() bool { return clock.Waiting() == 1 })
	if n := api.count(); n != 1 {
		t.Errorf("%d requests within the minute after a 401, want 1", n)
	}
	// After the pause, one request: the new tag and the kinds, since the
	// refused tags were dropped.
	clock.Advance(time.Second)
	eventually(t, "the next try", func() bool { return api.count() == 2 })
	keys := decode[map[string][]string](t, api.requests()[1].Body)["surrogate_keys"]
	if !slices.Contains(keys, "shop-product-10") || !slices.Contains(keys, "shop-product") {
		t.Errorf("after a refusal, purged %v: want the new tag and the kinds", keys)
	}
	// The next pause is longer.
	eventually(t, "the second pause", func() bool { return clock.Waiting() == 1 })
	if d := clock.LastAsked(); d != 2*time.Minute {
		t.Errorf("second pause %v, want 2m", d)
	}
	for what, text := range map[string]string{"the log": logs.String(), "the status": s.LastErr,
		"/readyz": p.Report(clock.Now())} {
		if strings.Contains(text, fastlyToken) {
			t.Errorf("the token shows in %s:\n%s", what, text)
		}
	}
	if !strings.Contains(logs.String(), "edge purge refused") {
		t.Errorf("the log does not say the purge was refused:\n%s", logs.String())
	}
}

// cloudflareStandIn stands in for Cloudflare's API: the v4 envelope, with
// success false and the errors on a failure (also on a 200 when status
// gives a message).
func cloudflareStandIn(t *testing.T, answer status) (*standIn, *problems) {
	t.Helper()
	return apiStandIn(t, apiShape{path: "/client/v4/zones/" + cloudflareZone + "/purge_cache", auth: "Authorization",
		authValue: "Bearer " + cloudflareToken, list: "tags", max: 100,
		failed: func(msg string) string {
			return fmt.Sprintf(`{"success":false,"errors":[{"code":10000,"message":%q}],"messages":[],"result":null}`, msg)
		},
		succeeded: func([]string) string {
			return `{"success":true,"errors":[],"messages":[],"result":{"id":"9a7806061c88ada191ed06f989cc3dac"}}`
		}}, answer)
}

func TestCloudflareStandInBatchesOf100(t *testing.T) {
	api, problems := cloudflareStandIn(t, nil)
	clock := newFakeClock()
	p, _ := run(t, clock, Options{}, NewCloudflare(api.URL+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 0, 0, nil))
	tags := productTags(250)
	p.Add(tags, clock.Now())
	step(t, clock, CloudflareInterval)
	eventually(t, "the purge acknowledged", func() bool { return !p.Status()[0].LastOK.IsZero() })
	var got []string
	var sizes []int
	for _, r := range api.requests() {
		tt := decode[map[string][]string](t, r.Body)["tags"]
		sizes = append(sizes, len(tt))
		got = append(got, tt...)
	}
	if !slices.Equal(sizes, []int{100, 100, 50}) || !slices.Equal(got, tags) {
		t.Errorf("batches of %v tags, want 100, 100, 50 holding the 250 tags once each", sizes)
	}
	if problems.any() {
		t.Errorf("requests Cloudflare's API would refuse: %v", problems.list())
	}
}

// The batch is configurable (an account still on the older limit of 30).
func TestCloudflareStandInConfiguredBatch(t *testing.T) {
	api, _ := cloudflareStandIn(t, nil)
	clock := newFakeClock()
	p, _ := run(t, clock, Options{}, NewCloudflare(api.URL+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 30, 12*time.Second, nil))
	p.Add(productTags(70), clock.Now())
	step(t, clock, 12*time.Second)
	eventually(t, "the purge acknowledged", func() bool { return !p.Status()[0].LastOK.IsZero() })
	var sizes []int
	for _, r := range api.requests() {
		sizes = append(sizes, len(decode[map[string][]string](t, r.Body)["tags"]))
	}
	if !slices.Equal(sizes, []int{30, 30, 10}) {
		t.Errorf("batches of %v, want 30, 30, 10", sizes)
	}
}

// 429 with Retry-After: the purger waits as long as asked (the jitter
// drawing its least, no longer), then sends the tags that were refused
// together with those that came meanwhile.
func TestCloudflareStandInRateLimited(t *testing.T) {
	api, problems := cloudflareStandIn(t, func(n int) (int, http.Header, string) {
		if n == 0 {
			return http.StatusTooManyRequests, http.Header{"Retry-After": {"7"}}, "Rate limited. Please wait and consider throttling your request speed"
		}
		return http.StatusOK, nil, ""
	})
	clock := newFakeClock()
	least := func(d time.Duration) time.Duration { return d / 2 }
	p, _ := run(t, clock, Options{Jitter: least}, NewCloudflare(api.URL+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 0, 0, nil))
	p.Add([]string{"shop-product-1"}, clock.Now())
	step(t, clock, CloudflareInterval)
	eventually(t, "the 429 reported", func() bool { return p.Status()[0].LastErr != "" })
	if s := p.Status()[0].LastErr; !strings.Contains(s, "429") {
		t.Errorf("last error %q", s)
	}
	eventually(t, "the wait", func() bool { return clock.Waiting() == 1 })
	if d := clock.LastAsked(); d != 7*time.Second {
		t.Errorf("waited %v after Retry-After: 7, want 7s", d)
	}
	p.Add([]string{"shop-product-2"}, clock.Now())
	clock.Advance(6 * time.Second)
	eventually(t, "the purger waits", func() bool { return clock.Waiting() == 1 })
	if api.count() != 1 {
		t.Errorf("%d requests before Retry-After passed", api.count())
	}
	clock.Advance(time.Second)
	eventually(t, "the retry acknowledged", func() bool { return p.Status()[0].LastErr == "" && api.count() == 2 })
	if tags := decode[map[string][]string](t, api.requests()[1].Body)["tags"]; !slices.Equal(tags, []string{"shop-product-1", "shop-product-2"}) {
		t.Errorf("retry purged %v, want the refused tag and the new one", tags)
	}
	if problems.any() {
		t.Errorf("requests Cloudflare's API would refuse: %v", problems.list())
	}
}

// A 200 whose envelope says success:false is a failure, reported.
func TestCloudflareStandInEnvelopeFailure(t *testing.T) {
	api, _ := cloudflareStandIn(t, func(int) (int, http.Header, string) {
		return http.StatusOK, nil, "Purge by tag is not enabled for this zone"
	})
	clock := newFakeClock()
	p, _ := run(t, clock, Options{}, NewCloudflare(api.URL+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 0, 0, nil))
	p.Add([]string{"shop-product-1"}, clock.Now())
	step(t, clock, CloudflareInterval)
	eventually(t, "the failure reported", func() bool { return p.Status()[0].LastErr != "" })
	if s := p.Status()[0].LastErr; !strings.Contains(s, "10000 Purge by tag is not enabled") {
		t.Errorf("last error %q, want Cloudflare's message", s)
	}
}

// 5xx and network errors: exponential backoff (jitter off here), the tags
// kept; the first success resets it.
func TestBackoffOnServerErrors(t *testing.T) {
	fails := 4
	api, _ := cloudflareStandIn(t, func(n int) (int, http.Header, string) {
		if n < fails {
			return http.StatusBadGateway, nil, "bad gateway"
		}
		return http.StatusOK, nil, ""
	})
	clock := newFakeClock()
	p, logs := run(t, clock, Options{Backoff: time.Second, MaxBackoff: 5 * time.Second},
		NewCloudflare(api.URL+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 0, 0, nil))
	p.Add([]string{"shop-product-1"}, clock.Now())
	step(t, clock, CloudflareInterval)
	var waits []time.Duration
	for i := range fails {
		eventually(t, "a failure", func() bool { return api.count() == i+1 })
		eventually(t, "the backoff", func() bool { return clock.Waiting() == 1 })
		d := clock.LastAsked()
		waits = append(waits, d)
		clock.Advance(d)
	}
	eventually(t, "the success", func() bool { return api.count() == fails+1 && p.Status()[0].LastErr == "" })
	if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second}; !slices.Equal(waits, want) {
		t.Errorf("backoff %v, want %v", waits, want)
	}
	if !strings.Contains(logs.String(), "edge purge works again") {
		t.Errorf("no recovery line in the log:\n%s", logs.String())
	}
	if strings.Count(logs.String(), "level=WARN") != 1 {
		t.Errorf("want one warning for the outage, got:\n%s", logs.String())
	}
}

// An unreachable target (connection refused) is retried the same way.
func TestBackoffOnNetworkError(t *testing.T) {
	api, _ := cloudflareStandIn(t, nil)
	url := api.URL
	api.Close() // nothing listens there now
	clock := newFakeClock()
	p, _ := run(t, clock, Options{Backoff: time.Second}, NewCloudflare(url+"/client/v4", cloudflareZone, FixedToken(cloudflareToken), 0, 0, nil))
	p.Add([]string{"shop-product-1"}, clock.Now())
	step(t, clock, CloudflareInterval)
	eventually(t, "the failure reported", func() bool { return p.Status()[0].LastErr != "" })
	eventually(t, "the backoff", func() bool { return clock.Waiting() == 1 })
	if d := clock.LastAsked(); d != time.Second {
		t.Errorf("backoff %v, want 1s", d)
	}
	if s := p.Status()[0]; s.Pending != 1 {
		t.Errorf("%d tags waiting, want the unsent one", s.Pending)
	}
}

func productTags(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("shop-product-%d", 1000+i)
	}
	return out
}
