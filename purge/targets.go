package purge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"catalogd/internal/redact"
)

// A purge request's documented limits, per target.
const (
	// VarnishMaxTags and VarnishMaxBytes keep the xkey header well under
	// Varnish's default http_req_hdr_len (8 KB): 400 tags or 6 000 bytes,
	// whichever comes first.
	VarnishMaxTags  = 400
	VarnishMaxBytes = 6000
	// FastlyMaxKeys: "Up to 256 surrogate keys can be purged in one batch
	// request" (Fastly API, POST /service/{id}/purge).
	FastlyMaxKeys = 256
	// CloudflareMaxTags: Cloudflare's purge limits allow 100 operations
	// (tags) per request on every plan; it is configurable
	// (--purge-cloudflare-batch).
	CloudflareMaxTags = 100
)

// Default intervals between two purge rounds per target. Varnish is the
// operator's own and local: a tenth of a second coalesces a burst and adds
// little to the freshness. Fastly does not rate-limit purges by key
// (100 000 an hour and customer), so four rounds a second from each
// replica is well within. Cloudflare's purge rate is 5 requests a second
// (Pro) to 50 (Enterprise), 5 a minute on Free (token buckets of 25 to
// 500): one round a second from each replica fits every paid plan; a 429
// (Free) is waited out as Retry-After says, the tags coalescing meanwhile.
const (
	VarnishInterval    = 100 * time.Millisecond
	FastlyInterval     = 250 * time.Millisecond
	CloudflareInterval = time.Second
)

// The CDNs' APIs, which a stand-in replaces in tests.
const (
	FastlyAPI     = "https://api.fastly.com"
	CloudflareAPI = "https://api.cloudflare.com/client/v4"
)

// DefaultClient is the HTTP client targets use unless given one: a purge
// that hangs holds back the next, so it has a deadline.
var DefaultClient = &http.Client{Timeout: 10 * time.Second}

// noRedirects is client (DefaultClient when nil) never following a
// redirect. A purge API has no business redirecting, and Go's client would
// carry a header it does not know for a credential (Fastly-Key) and the
// body to whatever host the answer names: the 3xx is the answer, and send
// makes it a failure.
func noRedirects(client *http.Client) *http.Client {
	if client == nil {
		client = DefaultClient
	}
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// messageMax is how much of what a target said a StatusError keeps.
const messageMax = 200

// EndpointURL parses a purge endpoint's base URL, a Varnish purge
// listener's or a CDN's API: http or https, a host, and no user:password@
// (the VCL lets purges in by address and secret, the CDNs by token, and a password in
// the URL would show wherever the URL does, so an error never quotes it).
// like is an example of the URL, for the error. The configuration checks
// its URLs with it, so that what it accepts the targets take.
func EndpointURL(base, like string) (*url.URL, error) {
	u, err := url.Parse(base)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, fmt.Errorf("want an http(s) URL like %s, got %q", like, base)
	case u.User != nil:
		return nil, fmt.Errorf("want an http(s) URL like %s without user:password@, got %q", like, u.Redacted())
	}
	return u, nil
}

// VarnishURL is EndpointURL for a Varnish purge listener (--purge-varnish).
func VarnishURL(base string) (*url.URL, error) { return EndpointURL(base, "http://127.0.0.1:6081") }

// Varnish purges one Varnish (with the xkey vmod) by its HTTP address:
// PURGE / with the tags, space-separated, in an xkey header, and the
// shared secret in VarnishSecretHeader, as the VCL in deploy/varnish
// accepts (xkey.purge of that header).
type Varnish struct {
	base   *url.URL
	client *http.Client
	name   string
	secret *Token // nil: none sent
}

// VarnishSecretHeader carries the secret the shipped VCL asks of every
// purge besides the address: an address alone is any process there.
const VarnishSecretHeader = "Purge-Secret"

// NewVarnish makes the target for a Varnish at base (http://host:port).
func NewVarnish(base string, client *http.Client) (*Varnish, error) {
	u, err := VarnishURL(base)
	if err != nil {
		return nil, err
	}
	return &Varnish{base: u, client: noRedirects(client), name: "varnish " + u.Host}, nil
}

// WithSecret has the target send the secret with every purge: a file's is
// read again when it changes, and after a 403, as a CDN's token is
// (withToken).
func (v *Varnish) WithSecret(secret *Token) *Varnish {
	v.secret = secret
	return v
}

func (v *Varnish) Name() string { return v.name }

// URL is the Varnish's base URL: its purge listener, which serves its
// cache's copies to a GET too.
func (v *Varnish) URL() string { return v.base.String() }

func (v *Varnish) Limits() Limits {
	return Limits{MaxTags: VarnishMaxTags, MaxBytes: VarnishMaxBytes, Interval: VarnishInterval}
}

// Edge is where the Varnish answers GETs: its own listener (the purge
// listener serves its copies too).
func (v *Varnish) Edge(string) string { return v.URL() }

// Cached: the shipped VCL says X-Cache: HIT. Age is any cache's on the
// way, so it is not read.
func (v *Varnish) Cached(h http.Header) bool {
	return strings.HasPrefix(strings.TrimSpace(h.Get("X-Cache")), "HIT")
}

func (v *Varnish) Purge(ctx context.Context, tags []string) error {
	if v.secret == nil {
		return v.purge(ctx, tags, "")
	}
	return withToken(v.secret, func(secret string) error { return v.purge(ctx, tags, secret) })
}

func (v *Varnish) purge(ctx context.Context, tags []string, secret string) error {
	u := *v.base
	u.Path = "/"
	u.RawQuery = ""
	req, err := http.NewRequestWithContext(ctx, "PURGE", u.String(), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", v.name, err)
	}
	req.Header.Set("xkey", strings.Join(tags, " "))
	if secret != "" {
		req.Header.Set(VarnishSecretHeader, secret)
	}
	return send(v.client, req, v.name, secret, nil)
}

// Fastly purges a Fastly service by surrogate key: POST
// {api}/service/{id}/purge with {"surrogate_keys": [...]} and the API token
// in Fastly-Key. Soft purges mark the objects stale instead of evicting
// them (Fastly-Soft-Purge: 1).
type Fastly struct {
	api     string
	service string
	token   *Token
	soft    bool
	client  *http.Client
}

// NewFastly makes the target for a Fastly service; api is FastlyAPI but
// for a stand-in.
func NewFastly(api, service string, token *Token, soft bool, client *http.Client) *Fastly {
	return &Fastly{api: strings.TrimRight(api, "/"), service: service, token: token, soft: soft, client: noRedirects(client)}
}

func (f *Fastly) Name() string { return "fastly" }

func (f *Fastly) Limits() Limits { return Limits{MaxTags: FastlyMaxKeys, Interval: FastlyInterval} }

// Edge is where Fastly answers GETs: the site.
func (f *Fastly) Edge(site string) string { return site }

// Cached: Fastly adds its own X-Cache entry last ("MISS, HIT": the shield
// missed, the edge hit). A Varnish below passes its X-Cache on, and
// Fastly's miss must not read as Varnish's hit.
func (f *Fastly) Cached(h http.Header) bool {
	parts := strings.Split(h.Get("X-Cache"), ",")
	return strings.HasPrefix(strings.TrimSpace(parts[len(parts)-1]), "HIT")
}

func (f *Fastly) Purge(ctx context.Context, tags []string) error {
	return withToken(f.token, func(token string) error {
		h := http.Header{"Fastly-Key": {token}, "Accept": {"application/json"}}
		if f.soft {
			h.Set("Fastly-Soft-Purge", "1")
		}
		return postJSON(ctx, f.client, "fastly", token, f.api+"/service/"+url.PathEscape(f.service)+"/purge", h,
			map[string][]string{"surrogate_keys": tags}, func(_ int, b []byte) string {
				// Fastly's errors: {"msg": "...", "detail": "..."}.
				var e struct{ Msg, Detail string }
				if json.Unmarshal(b, &e) == nil && e.Msg != "" {
					return strings.TrimSpace(e.Msg + " " + e.Detail)
				}
				return ""
			})
	})
}

// Cloudflare purges a Cloudflare zone by Cache-Tag: POST
// {api}/zones/{zone}/purge_cache with {"tags": [...]} and the API token as
// a bearer token (a token with the Zone / Cache Purge permission).
type Cloudflare struct {
	api, zone string
	token     *Token
	maxTags   int
	interval  time.Duration
	client    *http.Client
}

// NewCloudflare makes the target for a Cloudflare zone; api is
// CloudflareAPI but for a stand-in. maxTags and
// interval of 0 are the defaults.
func NewCloudflare(api, zone string, token *Token, maxTags int, interval time.Duration, client *http.Client) *Cloudflare {
	if maxTags <= 0 {
		maxTags = CloudflareMaxTags
	}
	if interval <= 0 {
		interval = CloudflareInterval
	}
	return &Cloudflare{api: strings.TrimRight(api, "/"), zone: zone, token: token, maxTags: maxTags,
		interval: interval, client: noRedirects(client)}
}

func (c *Cloudflare) Name() string { return "cloudflare" }

func (c *Cloudflare) Limits() Limits { return Limits{MaxTags: c.maxTags, Interval: c.interval} }

// Edge is where Cloudflare answers GETs: the site.
func (c *Cloudflare) Edge(site string) string { return site }

// Cached: Cloudflare says CF-Cache-Status; a Varnish's X-Cache and Age
// passed on are not its word.
func (c *Cloudflare) Cached(h http.Header) bool {
	switch h.Get("CF-Cache-Status") {
	case "HIT", "STALE", "UPDATING", "REVALIDATED":
		return true
	}
	return false
}

// cloudflareAnswer is the API's envelope; Success is nil when the answer
// had none.
type cloudflareAnswer struct {
	Success *bool `json:"success"`
	Errors  []struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"errors"`
}

func (a cloudflareAnswer) message() string {
	var parts []string
	for _, e := range a.Errors {
		parts = append(parts, strconv.Itoa(e.Code)+" "+e.Message)
	}
	return strings.Join(parts, "; ")
}

func (c *Cloudflare) Purge(ctx context.Context, tags []string) error {
	return withToken(c.token, func(token string) error { return c.purge(ctx, tags, token) })
}

func (c *Cloudflare) purge(ctx context.Context, tags []string, token string) error {
	var answer cloudflareAnswer
	var status int
	var body []byte
	err := postJSON(ctx, c.client, "cloudflare", token, c.api+"/zones/"+url.PathEscape(c.zone)+"/purge_cache",
		http.Header{"Authorization": {"Bearer " + token}}, map[string][]string{"tags": tags}, func(code int, b []byte) string {
			status, body = code, b
			if json.Unmarshal(b, &answer) == nil {
				return answer.message()
			}
			return ""
		})
	switch {
	case err != nil:
		return err
	case answer.Success == nil:
		// Not the API's envelope: a proxy's or a captive portal's page
		// in its place, a cut answer. Nothing says the purge was done,
		// nor refused: tried again, as a 5xx is.
		return &StatusError{Target: "cloudflare", Status: status, Garbled: true,
			Message: redact.Shorten("not Cloudflare's JSON answer: "+strings.Join(strings.Fields(string(body)), " "), messageMax, token)}
	case !*answer.Success:
		// A 200 that says it failed: the API's envelope is the truth.
		return &StatusError{Target: "cloudflare", Status: status,
			Message: redact.Shorten("success is not true: "+answer.message(), messageMax, token)}
	}
	return nil
}

// withToken sends with the token's value. A 401 or 403 reads the token
// again and, when it changed (rotated meanwhile, unseen by its stat), sends
// once more with the new one.
func withToken(t *Token, send func(token string) error) error {
	err := send(t.Value())
	var se *StatusError
	if errors.As(err, &se) && (se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden) {
		if v, changed := t.Reread(); changed {
			return send(v)
		}
	}
	return err
}

// postJSON posts body as JSON to a CDN's API with the headers, and sends it
// as send does.
func postJSON(ctx context.Context, client *http.Client, name, token, endpoint string, h http.Header, body any,
	explain func(status int, body []byte) string) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%s: %w", name, redact.ErrorOf(err, token))
	}
	req.Header = h
	req.Header.Set("Content-Type", "application/json")
	return send(client, req, name, token, explain)
}

// send does the request; an answer other than 2xx is a *StatusError with
// what the target said (read by explain, or the body's start) and its
// Retry-After, a redirect one saying where to. Nothing of token is ever in
// the error.
func send(client *http.Client, req *http.Request, name, token string, explain func(int, []byte) string) error {
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", name, redact.ErrorOf(err, token))
	}
	defer resp.Body.Close()
	q := noteQuota(req.Context(), resp.Header, time.Now())
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return &StatusError{Target: name, Status: resp.StatusCode, Message: redact.Shorten(redirected(resp), messageMax, token)}
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	msg := ""
	if explain != nil {
		msg = explain(resp.StatusCode, b) // also fills a success's envelope
	}
	if ok {
		return nil
	}
	if msg == "" {
		msg = strings.Join(strings.Fields(string(b)), " ")
	}
	wait := retryAfter(resp.Header.Get("Retry-After"), time.Now())
	if wait == 0 && q.spent {
		wait = q.reset // a 429 without Retry-After, but a quota's reset
	}
	return &StatusError{Target: name, Status: resp.StatusCode, RetryAfter: wait, Message: redact.Shorten(msg, messageMax, token)}
}

// redirected says where a 3xx sent the request, without the query (which
// may carry anything), and what to do.
func redirected(resp *http.Response) string {
	to := "no Location"
	if u, err := resp.Location(); err == nil {
		u.User, u.RawQuery, u.ForceQuery, u.Fragment = nil, "", false, ""
		to = u.String()
	}
	return "redirected to " + to + ": purge APIs do not redirect; check the URL"
}

// retryAfter reads Retry-After: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
