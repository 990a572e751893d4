package purge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"catalogd/internal/redact"
)

// A purge request's documented limits, per target.
const (
	// VarnishMaxTags and VarnishMaxBytes keep the xkey header well under
	// Varnish's default http_req_hdr_len (8 KB): 400 tags of about 15
	// bytes, or 6 000 bytes, whichever comes first.
	VarnishMaxTags  = 400
	VarnishMaxBytes = 6000
	// FastlyMaxKeys: "Up to 256 surrogate keys can be purged in one batch
	// request" (Fastly API, POST /service/{id}/purge).
	FastlyMaxKeys = 256
	// CloudflareMaxTags: Cloudflare's purge limits allow 100 operations
	// (tags) per request on every plan (30 before 2025); it is
	// configurable (--purge-cloudflare-batch).
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

// DefaultClient is the HTTP client targets use unless given one: a purge
// that hangs holds back the next, so it has a deadline.
var DefaultClient = &http.Client{Timeout: 10 * time.Second}

// VarnishURL parses a Varnish purge listener's base URL: http or https,
// a host, and no user:password@ (the VCL lets purges in by address, and a
// password in the URL would show wherever the URL does). The configuration
// checks --purge-varnish with it, so that what it accepts NewVarnish takes.
func VarnishURL(base string) (*url.URL, error) {
	u, err := url.Parse(base)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, fmt.Errorf("want an http(s) URL like http://127.0.0.1:6081, got %q", base)
	case u.User != nil:
		return nil, fmt.Errorf("want an http(s) URL like http://127.0.0.1:6081 without user:password@, got %q", u.Redacted())
	}
	return u, nil
}

// Varnish purges one Varnish (with the xkey vmod) by its HTTP address:
// PURGE / with the tags, space-separated, in an xkey header, as the VCL in
// deploy/varnish accepts (xkey.purge of that header).
type Varnish struct {
	base   *url.URL
	client *http.Client
	name   string
}

// NewVarnish makes the target for a Varnish at base (http://host:port).
func NewVarnish(base string, client *http.Client) (*Varnish, error) {
	u, err := VarnishURL(base)
	if err != nil {
		return nil, err
	}
	if client == nil {
		client = DefaultClient
	}
	return &Varnish{base: u, client: client, name: "varnish " + u.Host}, nil
}

func (v *Varnish) Name() string { return v.name }

func (v *Varnish) Limits() Limits {
	return Limits{MaxTags: VarnishMaxTags, MaxBytes: VarnishMaxBytes, Interval: VarnishInterval}
}

func (v *Varnish) Purge(ctx context.Context, tags []string) error {
	u := *v.base
	u.Path = "/"
	u.RawQuery = ""
	req, err := http.NewRequestWithContext(ctx, "PURGE", u.String(), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", v.name, err)
	}
	req.Header.Set("xkey", strings.Join(tags, " "))
	return send(v.client, req, v.name, "", nil)
}

// Fastly purges a Fastly service by surrogate key: POST
// {api}/service/{id}/purge with {"surrogate_keys": [...]} and the API token
// in Fastly-Key. Soft purges mark the objects stale instead of evicting
// them (Fastly-Soft-Purge: 1).
type Fastly struct {
	api     string
	service string
	token   string
	soft    bool
	client  *http.Client
}

// NewFastly makes the target for a Fastly service; api is
// https://api.fastly.com but for a stand-in.
func NewFastly(api, service, token string, soft bool, client *http.Client) *Fastly {
	if client == nil {
		client = DefaultClient
	}
	return &Fastly{api: strings.TrimRight(api, "/"), service: service, token: token, soft: soft, client: client}
}

func (f *Fastly) Name() string { return "fastly" }

func (f *Fastly) Limits() Limits { return Limits{MaxTags: FastlyMaxKeys, Interval: FastlyInterval} }

func (f *Fastly) Purge(ctx context.Context, tags []string) error {
	h := http.Header{"Fastly-Key": {f.token}, "Accept": {"application/json"}}
	if f.soft {
		h.Set("Fastly-Soft-Purge", "1")
	}
	return postJSON(ctx, f.client, "fastly", f.token, f.api+"/service/"+url.PathEscape(f.service)+"/purge", h,
		map[string][]string{"surrogate_keys": tags}, func(b []byte) string {
			// Fastly's errors: {"msg": "...", "detail": "..."}.
			var e struct{ Msg, Detail string }
			if json.Unmarshal(b, &e) == nil && e.Msg != "" {
				return strings.TrimSpace(e.Msg + " " + e.Detail)
			}
			return ""
		})
}

// Cloudflare purges a Cloudflare zone by Cache-Tag: POST
// {api}/zones/{zone}/purge_cache with {"tags": [...]} and the API token as
// a bearer token (a token with the Zone / Cache Purge permission).
type Cloudflare struct {
	api, zone, token string
	maxTags          int
	interval         time.Duration
	client           *http.Client
}

// NewCloudflare makes the target for a Cloudflare zone; api is
// https://api.cloudflare.com/client/v4 but for a stand-in. maxTags and
// interval of 0 are the defaults.
func NewCloudflare(api, zone, token string, maxTags int, interval time.Duration, client *http.Client) *Cloudflare {
	if client == nil {
		client = DefaultClient
	}
	if maxTags <= 0 {
		maxTags = CloudflareMaxTags
	}
	if interval <= 0 {
		interval = CloudflareInterval
	}
	return &Cloudflare{api: strings.TrimRight(api, "/"), zone: zone, token: token, maxTags: maxTags,
		interval: interval, client: client}
}

func (c *Cloudflare) Name() string { return "cloudflare" }

func (c *Cloudflare) Limits() Limits { return Limits{MaxTags: c.maxTags, Interval: c.interval} }

// cloudflareAnswer is the API's envelope.
type cloudflareAnswer struct {
	Success bool `json:"success"`
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
	var answer cloudflareAnswer
	err := postJSON(ctx, c.client, "cloudflare", c.token, c.api+"/zones/"+url.PathEscape(c.zone)+"/purge_cache",
		http.Header{"Authorization": {"Bearer " + c.token}}, map[string][]string{"tags": tags}, func(b []byte) string {
			if json.Unmarshal(b, &answer) == nil {
				return answer.message()
			}
			return ""
		})
	if err != nil {
		return err
	}
	if !answer.Success {
		// A 200 that says it failed: the API's envelope is the truth.
		return &StatusError{Target: "cloudflare", Status: http.StatusOK,
			Message: redactText("success is not true: "+answer.message(), c.token)}
	}
	return nil
}

// postJSON posts body as JSON to a CDN's API with the headers, and sends it
// as send does.
func postJSON(ctx context.Context, client *http.Client, name, token, endpoint string, h http.Header, body any,
	explain func([]byte) string) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%s: %w", name, redactErr(err, token))
	}
	req.Header = h
	req.Header.Set("Content-Type", "application/json")
	return send(client, req, name, token, explain)
}

// send does the request; an answer other than 2xx is a *StatusError with
// what the target said (read by explain, or the body's start) and its
// Retry-After. Nothing of token is ever in the error.
func send(client *http.Client, req *http.Request, name, token string, explain func([]byte) string) error {
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", name, redactErr(err, token))
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	msg := ""
	if explain != nil {
		msg = explain(b) // also fills a success's envelope
	}
	if ok {
		return nil
	}
	if msg == "" {
		msg = strings.Join(strings.Fields(string(b)), " ")
	}
	return &StatusError{Target: name, Status: resp.StatusCode,
		RetryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now()), Message: redactText(shorten(msg, 200), token)}
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

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// redactText takes the token out of s, should a target or a library ever
// echo it.
func redactText(s, token string) string { return redact.String(s, token) }

func redactErr(err error, token string) error {
	return redact.Error(err, func(s string) string { return redact.String(s, token) })
}
