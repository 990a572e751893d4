package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"catalogd/api"
)

const (
	// maxRetries is how often a 429 or 503 is retried before giving up.
	maxRetries = 3
	// maxWait caps one wait, whatever a header asks: a client that sleeps
	// for an hour on a bad header looks hung.
	maxWait = 60 * time.Second
	// maxBody bounds what is read of one answer; the largest page of the
	// list is far below it.
	maxBody = 32 << 20
)

// client talks to the catalog API.
type client struct {
	base      string // without a trailing slash
	http      *http.Client
	timeout   time.Duration
	userAgent string
	sleep     func(ctx context.Context, d time.Duration) error
	// now reads the clock a Retry-After date is measured from; tests
	// inject a fixed one so the wait does not depend on how long the test
	// took to get there.
	now     func() time.Time
	notices io.Writer // retries and waits are reported here (stderr)
}

func newClient(base string, timeout time.Duration, userAgent string,
	sleep func(context.Context, time.Duration) error, now func() time.Time, notices io.Writer) *client {
	return &client{
		base: base,
		// The timeout covers the whole exchange, the body included, so a
		// server that stalls mid-body cannot hang catalogctl either.
		http:      &http.Client{Timeout: timeout},
		timeout:   timeout,
		userAgent: userAgent,
		sleep:     sleep,
		now:       now,
		notices:   notices,
	}
}

// response is a 200 answer, read whole.
type response struct {
	url    string
	header http.Header
	body   []byte
}

// APIError is an answer other than 200. When the body is the contract's
// Error, Code, Message, Hint and Params come from it.
type APIError struct {
	URL     string
	Status  int
	Code    string
	Message string
	Hint    string
	Params  map[string]string
	Retries int // how often it was retried before giving up

	header http.Header // for the wait before a retry
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "GET %s: %d", e.URL, e.Status)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	} else {
		b.WriteString(" " + http.StatusText(e.Status))
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Retries > 0 {
		fmt.Fprintf(&b, " (gave up after %d retries)", e.Retries)
	}
	return b.String()
}

// get fetches path below the base URL. A 429 or 503 is retried after the
// wait the server asks for; any other answer but 200 is an *APIError.
func (cl *client) get(ctx context.Context, path string, query url.Values) (*response, error) {
	u := cl.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	return cl.getURL(ctx, u)
}

// getURL is get for a whole URL: one the server linked.
func (cl *client) getURL(ctx context.Context, u string) (*response, error) {
	for attempt := 0; ; attempt++ {
		resp, err := cl.once(ctx, u)
		var ae *APIError
		if !errors.As(err, &ae) || !retryable(ae.Status) {
			return resp, err
		}
		if attempt == maxRetries {
			ae.Retries = attempt
			return nil, err
		}
		wait := retryDelay(ae.header, cl.now(), attempt)
		fmt.Fprintf(cl.notices, "catalogctl: %d from the server; retry %d of %d in %v\n",
			ae.Status, attempt+1, maxRetries, wait)
		if err := cl.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("waiting to retry %s: %w", u, err)
		}
	}
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
}

// once sends one request and reads the whole answer.
func (cl *client) once(ctx context.Context, u string) (*response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	req.Header.Set("User-Agent", cl.userAgent)
	// The contract's JSON, also for a 404 outside the API's paths.
	req.Header.Set("Accept", "application/json")
	resp, err := cl.http.Do(req)
	if err != nil {
		// The http client's error repeats the method and the URL ("Get
		// \"http://…\": dial tcp …"); the line names them once.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Op == "dial" && !oe.Timeout() {
			return nil, &unreachableError{url: u, base: cl.base, err: err}
		}
		return nil, fmt.Errorf("GET %s: %s: %w", u, cl.describe(err), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		// A body cut short (the connection closed before Content-Length
		// bytes, a broken chunk) or stalled past the timeout.
		return nil, fmt.Errorf("GET %s: reading the answer: %s: %w", u, cl.describe(err), err)
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("GET %s: the answer is larger than %d MiB; this is not the catalog API", u, maxBody>>20)
	}
	if resp.StatusCode == http.StatusOK {
		return &response{url: u, header: resp.Header, body: body}, nil
	}
	ae := &APIError{URL: u, Status: resp.StatusCode, header: resp.Header}
	var eb api.Error
	if isJSON(resp.Header) && json.Unmarshal(body, &eb) == nil && eb.Code != "" {
		ae.Code, ae.Message, ae.Hint, ae.Params = eb.Code, eb.Message, eb.Data.Hint, eb.Data.Params
	} else {
		ae.Message = notAPIJSON(resp.Header, body) + " error"
		if resp.StatusCode == http.StatusNotFound {
			ae.Hint = "Check --base-url: it should end in /wp-json/shop/v1 (the namespace word may differ)."
		}
	}
	return nil, ae
}

// unreachableError is a request no server took: nothing listens at the
// base URL's address, or its name does not resolve. Most often catalogd
// runs elsewhere (the demo on another port), so the hint names the two
// settings that point catalogctl at it.
type unreachableError struct {
	url, base string
	err       error // the dial's
}

func (e *unreachableError) Error() string { return fmt.Sprintf("GET %s: %v", e.url, e.err) }
func (e *unreachableError) Unwrap() error { return e.err }

// hint is what the user does about it.
func (e *unreachableError) hint() string {
	return "is catalogd running at " + e.base + "? set --base-url or CATALOG_BASE_URL"
}

// describe says in words why a request failed; the wrapped error keeps
// the details.
func (cl *client) describe(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("no complete answer within --timeout %v", cl.timeout)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection closed before the answer was complete"
	}
	return "the request failed"
}

// retryDelay is how long to wait before retrying an answer with header h:
// Retry-After (seconds or a date), else the rate-limit window's reset,
// else a short doubling backoff; never more than maxWait.
func retryDelay(h http.Header, now time.Time, attempt int) time.Duration {
	d := time.Second << attempt
	if s := strings.TrimSpace(h.Get("Retry-After")); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			d = time.Duration(n) * time.Second
		} else if t, err := http.ParseTime(s); err == nil {
			d = t.Sub(now)
		}
	} else if n, ok := headerInt(h, "RateLimit-Reset"); ok {
		d = time.Duration(n) * time.Second
	}
	return min(max(d, 0), maxWait)
}

// headerInt reads an integer rate-limit header, or its X- twin.
func headerInt(h http.Header, name string) (int, bool) {
	for _, k := range []string{name, "X-" + name} {
		if n, err := strconv.Atoi(strings.TrimSpace(h.Get(k))); err == nil {
			return n, true
		}
	}
	return 0, false
}

// rateLimitWait is how long to wait before the next request when the
// window is used up (RateLimit-Remaining 0): the seconds until it resets.
func rateLimitWait(h http.Header) time.Duration {
	if n, ok := headerInt(h, "RateLimit-Remaining"); !ok || n > 0 {
		return 0
	}
	n, _ := headerInt(h, "RateLimit-Reset")
	return min(max(time.Duration(n)*time.Second, 0), maxWait)
}

func isJSON(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// notAPIJSON says what a body that is not the API's JSON looks like: a
// wrong --base-url typically gives the site's HTML page.
func notAPIJSON(h http.Header, body []byte) string {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return "the answer is empty, not the API's JSON"
	case mt == "text/html" || bytes.HasPrefix(trimmed, []byte("<")):
		return "the answer is an HTML page, not the API's JSON"
	case mt != "" && !isJSON(h):
		return "the answer is " + mt + ", not the API's JSON"
	}
	return "the answer is not the API's JSON"
}

// decode reads a 200 answer into v, after checking that it is JSON and
// has the fields the contract requires: a JSON object that merely decodes
// (an empty {}, another API's answer) would otherwise print zeros.
func decode(r *response, v any, required ...string) error {
	if h := r.header.Get("Content-Type"); h != "" && !isJSON(r.header) {
		return fmt.Errorf("GET %s: %s; check --base-url (it ends in /wp-json/shop/v1)",
			r.url, notAPIJSON(r.header, r.body))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(r.body, &fields); err != nil {
		return fmt.Errorf("GET %s: %s: %w", r.url, notAPIJSON(r.header, r.body), err)
	}
	if err := requireFields(fields, required); err != nil {
		return fmt.Errorf("GET %s: the answer is not the API's JSON: %w", r.url, err)
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		return fmt.Errorf("GET %s: the answer is not the API's JSON: %w", r.url, err)
	}
	return nil
}

func requireFields(fields map[string]json.RawMessage, required []string) error {
	for _, f := range required {
		if _, ok := fields[f]; !ok {
			return fmt.Errorf("field %q is missing", f)
		}
	}
	return nil
}

// Required fields of the contract's resources.
var (
	indexFields   = []string{"name", "currency", "product_count", "category_count", "endpoints"}
	listFields    = []string{"products", "page", "per_page", "total", "total_pages"}
	productFields = []string{"slug", "name", "url", "price", "currency", "in_stock", "purchasable"}
)

func (cl *client) index(ctx context.Context) (*api.Index, *response, error) {
	return fetch[api.Index](ctx, cl, "/catalog", indexFields)
}

func (cl *client) categories(ctx context.Context) (*api.CategoryList, *response, error) {
	return fetch[api.CategoryList](ctx, cl, "/catalog/categories", []string{"categories"})
}

func (cl *client) product(ctx context.Context, slug string) (*api.Product, *response, error) {
	return fetch[api.Product](ctx, cl, "/catalog/products/"+url.PathEscape(slug), productFields)
}

// fetch gets the resource at path, below the base URL, and decodes it into
// a T that must have the required fields.
func fetch[T any](ctx context.Context, cl *client, path string, required []string) (*T, *response, error) {
	r, err := cl.get(ctx, path, nil)
	if err != nil {
		return nil, nil, err
	}
	var v T
	if err := decode(r, &v, required...); err != nil {
		return nil, nil, err
	}
	return &v, r, nil
}

// productPage is one page of the product list, decoded and raw.
type productPage struct {
	*response
	list      api.ProductList
	raw       []json.RawMessage // the products as the API sent them
	rawFacets json.RawMessage   // the facets as the API sent them, if it did
}

func (cl *client) products(ctx context.Context, q url.Values) (*productPage, error) {
	u := cl.base + "/catalog/products"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return cl.productsAt(ctx, u)
}

// productsAt fetches the page of the product list at u.
func (cl *client) productsAt(ctx context.Context, u string) (*productPage, error) {
	r, err := cl.getURL(ctx, u)
	if err != nil {
		return nil, err
	}
	pg := &productPage{response: r}
	if err := decode(r, &pg.list, listFields...); err != nil {
		return nil, err
	}
	var raw struct {
		Products []map[string]json.RawMessage `json:"products"`
		Facets   json.RawMessage              `json:"facets"`
	}
	if err := json.Unmarshal(r.body, &raw); err != nil {
		return nil, fmt.Errorf("GET %s: the answer is not the API's JSON: %w", r.url, err)
	}
	pg.rawFacets = raw.Facets
	for i, p := range raw.Products {
		if err := requireFields(p, productFields); err != nil {
			return nil, fmt.Errorf("GET %s: the answer is not the API's JSON: product %d: %w", r.url, i+1, err)
		}
		b, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("GET %s: product %d: %w", r.url, i+1, err)
		}
		pg.raw = append(pg.raw, b)
	}
	return pg, nil
}

// allResult is every product of the list.
type allResult struct {
	products []api.Product
	raw      []json.RawMessage
	total    int
	// facets are the last page's (every page has the same, over the
	// whole list), when asked for.
	facets    *api.Facets
	rawFacets json.RawMessage
}

// allProducts pages through the list with the largest page, following
// each page's Link rel="next" until a page has none, as a client of
// WordPress's REST collections does; it waits out the rate-limit window
// whenever the server says it is used up. progress, if not nil, is told
// each page read and the pages the server says there are. A server that
// sends no paging links (an older catalogd, a proxy that drops Link) is
// paged by number instead. So that a wrong server cannot keep catalogctl
// paging for ever or send it elsewhere, each fails: a next link that
// leaves the API (another origin, unless it names the list's own path,
// which is then read at catalogctl's address), one to a page already read,
// more pages than total_pages says; an empty page ends the list.
func (cl *client) allProducts(ctx context.Context, q url.Values, progress func(page, pages int)) (*allResult, error) {
	q = cloneValues(q)
	q.Set("per_page", strconv.Itoa(api.MaxPerPage))
	q.Set("page", "1")
	origin, err := url.Parse(cl.base)
	if err != nil {
		return nil, err
	}
	next := cl.base + "/catalog/products?" + q.Encode()
	seen := map[string]bool{}
	res := &allResult{products: []api.Product{}, raw: []json.RawMessage{}}
	for read := 1; ; read++ {
		seen[next] = true
		pg, err := cl.productsAt(ctx, next)
		if err != nil {
			return nil, err
		}
		if progress != nil {
			progress(read, pg.list.TotalPages)
		}
		res.products = append(res.products, pg.list.Products...)
		res.raw = append(res.raw, pg.raw...)
		res.total = pg.list.Total
		res.facets, res.rawFacets = pg.list.Facets, pg.rawFacets
		if len(pg.list.Products) == 0 {
			return res, nil
		}
		links, err := pagingLinks(pg.header, pg.url)
		if err != nil {
			return nil, err
		}
		if links == nil {
			// No paging links: by number, as far as total_pages says.
			if pg.list.Page >= pg.list.TotalPages {
				return res, nil
			}
			q.Set("page", strconv.Itoa(pg.list.Page+1))
			u, err := url.Parse(cl.base + "/catalog/products?" + q.Encode())
			if err != nil {
				return nil, err
			}
			links = map[string]*url.URL{"next": u}
		}
		link, ok := links["next"]
		if !ok {
			return res, nil
		}
		// A next page is the list's own path, on any origin: nothing else
		// is followed at all.
		if link.Path != origin.Path+"/catalog/products" {
			return nil, fmt.Errorf("GET %s: the next page's link %s leaves the API at %s; not following it",
				pg.url, link, cl.base)
		}
		if link.Scheme != origin.Scheme || link.Host != origin.Host {
			// catalogd links on the site URL it is configured with; a
			// client may reach it at another address (the demo at
			// 127.0.0.1 for localhost, a port-forward, the upstream behind
			// the proxy): the list is read at catalogctl's address.
			rebased := *origin
			rebased.Path, rebased.RawPath, rebased.RawQuery = link.Path, link.RawPath, link.RawQuery
			link = &rebased
		}
		switch {
		case seen[link.String()]:
			return nil, fmt.Errorf("GET %s: the next page's link %s names a page already read; the server's paging loops",
				pg.url, link)
		case read >= pg.list.TotalPages:
			return nil, fmt.Errorf("GET %s: a next page after %d pages, but total_pages is %d; the server's paging is inconsistent",
				pg.url, read, pg.list.TotalPages)
		}
		next = link.String()
		if d := rateLimitWait(pg.header); d > 0 {
			fmt.Fprintf(cl.notices, "catalogctl: rate-limit window used up; waiting %v before page %d\n", d, read+1)
			if err := cl.sleep(ctx, d); err != nil {
				return nil, fmt.Errorf("waiting for the rate-limit window: %w", err)
			}
		}
	}
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}
