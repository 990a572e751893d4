// Package proxytest holds what the reverse-proxy tests (nginx, Apache,
// Caddy) share: the backends a proxy stands in front of (catalogd and a
// stand-in WordPress, both recording what reaches them), the routing facts
// every shipped configuration must honour, and the assertions over them.
// Each proxy's test only writes its configuration, starts the server on a
// free loopback port and calls Run.
package proxytest

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
)

// Binary finds a proxy's executable among candidates (absolute paths or
// names on PATH). A missing one skips the test loudly, and fails it under
// CI=true, where .ci/run installs it.
func Binary(t *testing.T, pkg string, candidates ...string) string {
	t.Helper()
	for _, c := range candidates {
		if path, err := exec.LookPath(c); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed (.ci/run installs Debian's %s)", candidates[0], pkg)
	}
	t.Skipf("SKIP: %s is not installed (apt-get install %s)", candidates[0], pkg)
	return ""
}

// AgentListMatches fails the test unless the AI-agent alternation a proxy
// configuration spells out (file, the first submatch of where) is
// catalogd's list, httpapi.AIAgents, no more, no less: the proxy's copy and
// catalogd's never drift apart.
func AgentListMatches(t *testing.T, file string, where *regexp.Regexp) {
	t.Helper()
	ListMatches(t, file, where, httpapi.AIAgents, "agents")
}

// ListMatches fails the test unless the alternation a configuration spells
// out (file, the first submatch of where: a|b|c) is want, in its order:
// a list of catalogd's (what) that a proxy must copy.
func ListMatches(t *testing.T, file string, where *regexp.Regexp, want []string, what string) {
	t.Helper()
	conf, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := where.FindSubmatch(conf)
	if m == nil {
		t.Fatalf("no list of %s in %s", what, file)
	}
	if got, want := string(m[1]), strings.Join(want, "|"); got != want {
		t.Errorf("%s's %s %s\ncatalogd's %s %s", file, what, got, what, want)
	}
}

// Backends are what a proxy stands in front of, on loopback ports.
type Backends struct {
	// Catalogd and WordPress are host:port addresses.
	Catalogd, WordPress string

	mu        sync.Mutex
	large     http.Handler // the large shop's catalogd, while a test uses it (useLargeShop)
	xff       []string     // X-Forwarded-For at catalogd
	wordpress []string     // "METHOD URI" at WordPress
}

// Start runs catalogd's handler (over a one-product shop, trusting the
// proxy on 127.0.0.1) and a stand-in WordPress: a page at / and /shop/, its
// REST API's JSON 404s in the three forms WordPress accepts, a plugin's JSON
// 404 outside the REST API (admin-ajax), HTML 404s elsewhere.
func Start(t *testing.T) *Backends {
	t.Helper()
	dsn, _ := testdb.Load(t, Shop())
	db, err := wpdb.Open(dsn, wpdb.Options{Prefix: "wp_"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := &Backends{}
	api := httpapi.NewServer(httpapi.Deps{
		Catalog: catalog.New(db, catalog.Config{}), SiteURL: "http://shop.test", RateLimit: 60,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil))})
	catalogd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(LargeShopHeader) != "" {
			b.mu.Lock()
			large := b.large
			b.mu.Unlock()
			if large == nil {
				http.Error(w, "proxytest: the large shop is not loaded (useLargeShop)", http.StatusInternalServerError)
				return
			}
			large.ServeHTTP(w, r)
			return
		}
		b.mu.Lock()
		b.xff = append(b.xff, r.Header.Get("X-Forwarded-For"))
		b.mu.Unlock()
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(catalogd.Close)

	wp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.wordpress = append(b.wordpress, r.Method+" "+r.URL.RequestURI())
		b.mu.Unlock()
		if r.URL.Query().Get("rest_route") != "" || strings.HasPrefix(r.URL.Path, "/wp-json/") ||
			strings.HasPrefix(r.URL.Path, "/index.php/wp-json/") {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"code":"rest_post_invalid_id","message":"Invalid post ID.","data":{"status":404}}`)
			return
		}
		if r.URL.Path == "/wp-admin/admin-ajax.php" {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"success":false,"data":"plugin: no such item"}`)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		if r.URL.Path == "/" || r.URL.Path == "/shop/" {
			// As WordPress's rest_output_link_header() sends on every page.
			w.Header().Add("Link", `<http://shop.test/wp-json/>; rel="https://api.w.org/"`)
			fmt.Fprint(w, "<html>WordPress home</html>")
			return
		}
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<html>WordPress: page not found</html>")
	}))
	t.Cleanup(wp.Close)
	b.Catalogd = strings.TrimPrefix(catalogd.URL, "http://")
	b.WordPress = strings.TrimPrefix(wp.URL, "http://")
	return b
}

// Shop is the one-product shop catalogd serves behind the proxies: the
// answers APIForms name are its.
func Shop() *wpfixture.Shop {
	s := wpfixture.New("wp_", "http://shop.test")
	s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5"})
	return s
}

// LargeShopHeader, sent through the proxy, has catalogd answer from the
// large shop (LargeShop) rather than the one-product shop: the proxies have
// no cache, so one backend serves both. The test that sends it loads the
// large shop first (useLargeShop).
const LargeShopHeader = "X-Proxytest-Shop"

// LargeShop is catalogd's handler over a shop of 1 000 categories and 250
// products in four categories each, with six-digit post IDs: its list
// pages carry the largest headers catalogd sends (a Surrogate-Key of 1 009
// bytes, a header block of about 2.2 KB).
func LargeShop(t *testing.T) http.Handler {
	t.Helper()
	dsn, _ := testdb.Load(t, wpfixture.ManyCategories("http://shop.test", 1000, 250))
	db, err := wpdb.Open(dsn, wpdb.Options{Prefix: "wp_", QueryTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return httpapi.NewServer(httpapi.Deps{Catalog: catalog.New(db, catalog.Config{}), SiteURL: "http://shop.test",
		RateLimit: 1 << 20, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// useLargeShop loads the large shop for t, the one test that asks for it:
// seeding its 1 000 categories is most of a proxy test's database work.
// It is dropped when t ends.
func (b *Backends) useLargeShop(t *testing.T) {
	t.Helper()
	h := LargeShop(t)
	b.mu.Lock()
	b.large = h
	b.mu.Unlock()
	t.Cleanup(func() {
		b.mu.Lock()
		b.large = nil
		b.mu.Unlock()
	})
}

// LargePaths are the large shop's answers with the largest headers, one
// per kind of response: the list pages (50 products, the most a page
// holds), the categories (1 000), the index, a product, a 404.
var LargePaths = []string{"/wp-json/shop/v1/catalog", "/wp-json/shop/v1/catalog/categories",
	"/wp-json/shop/v1/catalog/products?per_page=50", "/wp-json/shop/v1/catalog/products?per_page=50&page=5",
	"/wp-json/shop/v1/catalog/products/server-script-00249", "/wp-json/shop/v1/catalog/products/no-such-script"}

// lastXFF is the X-Forwarded-For of the latest request catalogd got.
func (b *Backends) lastXFF() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.xff) == 0 {
		return ""
	}
	return b.xff[len(b.xff)-1]
}

// wordpressHits counts the requests WordPress got for method and URI.
func (b *Backends) wordpressHits(method, uri string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, r := range b.wordpress {
		if r == method+" "+uri {
			n++
		}
	}
	return n
}

// WaitListening waits until something accepts connections at addr; the
// proxy's process is given as proc, for the error message.
func WaitListening(t *testing.T, proc, addr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not listen on %s within 10s", proc, addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Options say what a proxy's configuration can do beyond the common facts.
type Options struct {
	// EdgeRateLimit: the proxy answers the contract's JSON 429 past the
	// advertised rate, for everything it sends to catalogd.
	EdgeRateLimit bool
}

// The clients the assertions send.
var (
	Browser    = map[string]string{"Accept": "text/html,application/xhtml+xml,*/*;q=0.8", "User-Agent": "Mozilla/5.0 Firefox/130"}
	JSONClient = map[string]string{"Accept": "application/json"}
	Agent      = map[string]string{"User-Agent": "Mozilla/5.0 (compatible; ClaudeBot/1.0)", "Accept": "*/*"}
)

// The routing facts every shipped configuration honours.
var (
	// CompanionPaths are catalogd's documents outside the namespace.
	CompanionPaths = []string{"/openapi.json", "/.well-known/openapi.json", "/.well-known/api-catalog", "/llms.txt"}
	// APIForms are WordPress's spellings of an API URL, each with a piece
	// of catalogd's answer to it.
	APIForms = []struct{ Path, Want string }{
		{"/wp-json/shop/v1/catalog", `"endpoints"`},
		{"/wp-json/shop/v1/catalog/products/radar", `"slug":"radar"`},
		{"/wp-json/shop/v1/nope", `"code":"shop_no_route"`},
		{"/wp-json/shop/v1", `"code":"shop_no_route"`},
		{"/index.php/wp-json/shop/v1", `"code":"shop_no_route"`},
		{"/index.php/wp-json/shop/v1/catalog", `"endpoints"`},
		{"/index.php/wp-json/shop/v1/catalog/products/radar", `"slug":"radar"`},
		{"/?rest_route=/shop/v1/catalog", `"endpoints"`},
		{"/index.php?rest_route=%2Fshop%2Fv1%2Fcatalog%2Fproducts%2Fradar", `"slug":"radar"`},
		{"/shop/?rest_route=/shop/v1/catalog/products&per_page=1", `"total":1`},
		{"/?rest_route=/shop/v1/nope", `"code":"shop_no_route"`},
	}
	// WordPressREST404s are WordPress's own REST 404s, in every form: they
	// reach WordPress and come back untouched, whoever asks.
	WordPressREST404s = []string{"/wp-json/wp/v2/posts/999999", "/?rest_route=/wp/v2/posts/999999",
		"/index.php?rest_route=%2Fwp%2Fv2%2Fposts%2F999999", "/shop/?rest_route=/wp/v2/posts/999999&context=view",
		"/index.php/wp-json/wp/v2/posts/999999", "/wp-json/wc/store/v1/products/999999"}
	// AdminPaths are catalogd's admin listener's; no proxy ever serves them.
	AdminPaths = []string{"/metrics", "/readyz", "/healthz", "/wp-json/shop/v1/../../metrics"}
)

// Run sends the shared assertions through the proxy at site (http://host:port).
func Run(t *testing.T, site string, b *Backends, o Options) {
	do := func(t *testing.T, method, path string, hdr map[string]string) (int, http.Header, string) {
		t.Helper()
		req, err := http.NewRequest(method, site+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(body)
	}
	get := func(t *testing.T, path string, hdr map[string]string) (int, http.Header, string) {
		t.Helper()
		return do(t, http.MethodGet, path, hdr)
	}
	isJSON := func(h http.Header) bool { return strings.HasPrefix(h.Get("Content-Type"), "application/json") }

	t.Run("every form of an API URL and the companion documents reach catalogd", func(t *testing.T) {
		for _, p := range CompanionPaths {
			if code, h, _ := get(t, p, nil); code != 200 || h.Get("RateLimit-Limit") == "" {
				t.Errorf("%s: %d, RateLimit-Limit %q", p, code, h.Get("RateLimit-Limit"))
			}
		}
		for _, c := range APIForms {
			for _, client := range []map[string]string{Browser, JSONClient} {
				code, h, body := get(t, c.Path, client)
				if !strings.Contains(body, c.Want) || h.Get("RateLimit-Limit") == "" || !isJSON(h) {
					t.Errorf("%s: %d %s %s, want catalogd's answer with %s", c.Path, code, h.Get("Content-Type"), body, c.Want)
				}
			}
		}
	})
	t.Run("the largest answers of a 1 000-category shop pass whole", func(t *testing.T) {
		b.useLargeShop(t)
		for _, p := range LargePaths {
			hdr := map[string]string{LargeShopHeader: "1", "Accept": "application/json", "Accept-Encoding": "gzip"}
			code, h, _ := get(t, p, hdr)
			// The same request straight to catalogd: what the proxy must
			// pass on.
			req, _ := http.NewRequest(http.MethodGet, "http://"+b.Catalogd+p, nil)
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if code != resp.StatusCode || code >= 500 {
				t.Errorf("%s: %d through the proxy, %d from catalogd", p, code, resp.StatusCode)
			}
			if got, want := h.Get("Surrogate-Key"), resp.Header.Get("Surrogate-Key"); got != want || want == "" {
				t.Errorf("%s: Surrogate-Key of %d bytes through the proxy, %d from catalogd", p, len(got), len(want))
			}
		}
	})
	t.Run("other paths reach WordPress", func(t *testing.T) {
		if code, _, body := get(t, "/shop/", Browser); code != 200 || !strings.Contains(body, "WordPress home") {
			t.Errorf("/shop/: %d %s", code, body)
		}
	})
	t.Run("the home page advertises the API's description, no other WordPress page does", func(t *testing.T) {
		// serviceDescs counts the rel="service-desc" links of an answer.
		serviceDescs := func(h http.Header) (n int, toOpenAPI bool) {
			for _, v := range h.Values("Link") {
				for _, l := range strings.Split(v, ",") {
					if strings.Contains(l, `rel="service-desc"`) {
						n++
						toOpenAPI = toOpenAPI || strings.Contains(l, "/openapi.json>")
					}
				}
			}
			return n, toOpenAPI
		}
		for _, c := range []struct {
			method, path string
			hdr          map[string]string
		}{
			{http.MethodGet, "/", Browser}, {http.MethodHead, "/", Browser}, {http.MethodGet, "/", JSONClient},
			{http.MethodGet, "/", Agent}, {http.MethodGet, "/?utm_source=newsletter", Browser},
		} {
			code, h, _ := do(t, c.method, c.path, c.hdr)
			wpLink := strings.Contains(strings.Join(h.Values("Link"), ","), `rel="https://api.w.org/"`)
			if n, ok := serviceDescs(h); code != 200 || n != 1 || !ok || !wpLink {
				t.Errorf("%s %s (%s): %d, Link %q; want WordPress's home page with its own link and one </openapi.json>; rel=\"service-desc\"",
					c.method, c.path, c.hdr["User-Agent"]+" "+c.hdr["Accept"], code, h.Values("Link"))
			}
		}
		for _, p := range []string{"/shop/", "/no-such-page/", "/?rest_route=/wp/v2/posts/999999", "/wp-json/wp/v2/posts/999999"} {
			if _, h, _ := get(t, p, Browser); h.Values("Link") != nil {
				if n, _ := serviceDescs(h); n > 0 {
					t.Errorf("%s: Link %q; only the home page advertises the description", p, h.Values("Link"))
				}
			}
		}
		// The API on the home page's path is catalogd's answer, with its
		// own link, once.
		if _, h, _ := get(t, "/?rest_route=/shop/v1/catalog", JSONClient); func() bool { n, _ := serviceDescs(h); return n != 1 }() {
			t.Errorf("/?rest_route=/shop/v1/catalog: Link %q, want catalogd's one service-desc", h.Values("Link"))
		}
	})
	t.Run("missing page: JSON for JSON clients and AI agents, WordPress's page for browsers", func(t *testing.T) {
		cases := []struct {
			name string
			hdr  map[string]string
			json bool
		}{
			{"Accept JSON", JSONClient, true},
			{"GPTBot", map[string]string{"User-Agent": "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2)", "Accept": "text/html"}, true},
			{"ClaudeBot", map[string]string{"User-Agent": "Mozilla/5.0 (compatible; ClaudeBot/1.0)"}, true},
			{"browser", Browser, false},
			{"curl", map[string]string{"User-Agent": "curl/8", "Accept": "*/*"}, false},
		}
		for _, c := range cases {
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				code, h, body := do(t, method, "/no-such-page/", c.hdr)
				if code != 404 {
					t.Errorf("%s %s: status %d", method, c.name, code)
				}
				if got := isJSON(h); got != c.json {
					t.Errorf("%s %s: JSON %v, want %v: %s", method, c.name, got, c.json, h.Get("Content-Type"))
				}
				if method == http.MethodHead {
					continue
				}
				if c.json && !strings.Contains(body, `"code":"shop_not_found"`) {
					t.Errorf("%s: not catalogd's JSON 404: %s", c.name, body)
				}
				if !c.json && !strings.Contains(body, "WordPress: page not found") {
					t.Errorf("%s: not WordPress's page: %s", c.name, body)
				}
			}
		}
	})
	t.Run("WordPress's REST API keeps its own JSON 404s, in every form", func(t *testing.T) {
		for _, p := range WordPressREST404s {
			for _, c := range []map[string]string{JSONClient, Agent, Browser} {
				code, h, body := get(t, p, c)
				if code != 404 || !strings.Contains(body, `"code":"rest_post_invalid_id"`) || !isJSON(h) {
					t.Errorf("%s (%s): %d %s, want WordPress's own JSON 404", p, c["User-Agent"]+c["Accept"], code, body)
				}
			}
		}
		// The block checkout's requests reach WordPress once, answered by it.
		p := "/wp-json/wc/store/v1/cart/add-item?id=999999"
		if code, _, body := do(t, http.MethodPost, p, JSONClient); code != 404 || !strings.Contains(body, "rest_post_invalid_id") {
			t.Errorf("POST %s: %d %s", p, code, body)
		}
		if n := b.wordpressHits(http.MethodPost, p); n != 1 {
			t.Errorf("POST %s reached WordPress %d times, want once", p, n)
		}
	})
	t.Run("a JSON 404 outside the REST API is WordPress's too", func(t *testing.T) {
		p := "/wp-admin/admin-ajax.php?action=plugin_item&id=7"
		code, h, body := get(t, p, JSONClient)
		if code != 404 || !strings.Contains(body, "plugin: no such item") || !isJSON(h) {
			t.Errorf("%s: %d %s, want the plugin's own JSON 404", p, code, body)
		}
	})
	t.Run("a POST to a missing page keeps WordPress's answer and is sent once", func(t *testing.T) {
		p := "/no-such-form/"
		if code, _, body := do(t, http.MethodPost, p, JSONClient); code != 404 || !strings.Contains(body, "WordPress: page not found") {
			t.Errorf("POST %s: %d %s", p, code, body)
		}
		if n := b.wordpressHits(http.MethodPost, p); n != 1 {
			t.Errorf("POST %s reached WordPress %d times, want once", p, n)
		}
	})
	t.Run("X-Forwarded-For carries the client's address, not a forged one", func(t *testing.T) {
		_, h1, _ := get(t, "/wp-json/shop/v1/catalog/categories", map[string]string{"X-Forwarded-For": "203.0.113.9"})
		_, h2, _ := get(t, "/wp-json/shop/v1/catalog/categories", map[string]string{"X-Forwarded-For": "198.51.100.1"})
		if last := b.lastXFF(); last != "127.0.0.1" {
			t.Errorf("X-Forwarded-For at catalogd = %q, want the client's own address, replacing the sent one", last)
		}
		// Both requests count in the one client's window at catalogd.
		if r1, r2 := h1.Get("RateLimit-Remaining"), h2.Get("RateLimit-Remaining"); r1 == r2 {
			t.Errorf("forged addresses got separate windows: remaining %s then %s", r1, r2)
		}
	})
	t.Run("the admin paths are not reachable", func(t *testing.T) {
		for _, p := range AdminPaths {
			code, _, body := get(t, p, JSONClient)
			if code == 200 || strings.Contains(body, "go_goroutines") {
				t.Errorf("%s: %d %s", p, code, body)
			}
		}
	})
	// Last: it spends the client's window.
	t.Run("the edge answers 429 in the contract's JSON past the limit", func(t *testing.T) {
		if !o.EdgeRateLimit {
			t.Skip("this proxy has no per-client rate limit: see its configuration's comments")
		}
		var code int
		var h http.Header
		var body string
		for i := 0; i < 150 && code != 429; i++ {
			code, h, body = get(t, "/wp-json/shop/v1/catalog", nil)
		}
		if code != 429 {
			t.Fatalf("no 429 after 150 requests")
		}
		var e struct {
			Code string `json:"code"`
			Data struct {
				Status int    `json:"status"`
				Hint   string `json:"hint"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(body), &e); err != nil || e.Code != "shop_rate_limited" || e.Data.Status != 429 || e.Data.Hint == "" {
			t.Errorf("429 body %q: %v", body, err)
		}
		if !isJSON(h) || h.Get("Retry-After") == "" || h.Get("RateLimit-Remaining") != "0" ||
			!strings.Contains(h.Get("Link"), `rel="service-desc"`) {
			t.Errorf("429 headers: %v", h)
		}
		// Everything catalogd answers shares the one window: a path the
		// limit missed would never answer 429 (a request may slip through
		// as the window refills, one a second).
		for _, p := range append(append([]string{}, CompanionPaths...), "/wp-json/shop/v1",
			"/index.php/wp-json/shop/v1/catalog", "/?rest_route=/shop/v1/catalog", "/no-such-page/") {
			limited := false
			for i := 0; i < 3 && !limited; i++ {
				code, _, body := get(t, p, JSONClient)
				limited = code == 429 && strings.Contains(body, "shop_rate_limited")
			}
			if !limited {
				t.Errorf("%s: not rate-limited at the edge", p)
			}
		}
	})
}
