// Package nginx holds the shipped reverse-proxy configuration; its test runs
// real nginx with it in front of catalogd and a stand-in WordPress.
package nginx_test

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
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/internal/testdb"
	"catalogd/internal/testnet"
	"catalogd/wpdb"
	"catalogd/wpdb/wpfixture"
)

// nginxBinary finds nginx; under CI=true a missing one fails the test.
func nginxBinary(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/sbin/nginx", "nginx"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("nginx is not installed (.ci/run installs Debian's nginx)")
	}
	t.Skip("SKIP: nginx is not installed (apt-get install nginx)")
	return ""
}

// The AI agents nginx recognizes are catalogd's list, no more, no less.
func TestAgentListMatchesCatalogd(t *testing.T) {
	conf, err := os.ReadFile("catalogd-http.conf")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"~\*\(([^)]*)\)" 1;`).FindSubmatch(conf)
	if m == nil {
		t.Fatal("no user-agent map in catalogd-http.conf")
	}
	got := strings.Split(string(m[1]), "|")
	if strings.Join(got, "|") != strings.Join(httpapi.AIAgents, "|") {
		t.Errorf("nginx agents %v\ncatalogd agents %v", got, httpapi.AIAgents)
	}
}

// traffic records what reached catalogd and the stand-in WordPress.
type traffic struct {
	mu        sync.Mutex
	xff       []string // X-Forwarded-For at catalogd
	wordpress []string // "METHOD URI" at WordPress
}

// wordpressHits counts the requests WordPress got for method and URI.
func (s *traffic) wordpressHits(method, uri string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.wordpress {
		if r == method+" "+uri {
			n++
		}
	}
	return n
}

func TestNginxInFront(t *testing.T) {
	bin := nginxBinary(t)

	// catalogd's handler on a loopback port, trusting nginx (loopback).
	s := wpfixture.New("wp_", "http://shop.test")
	s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5"})
	dsn, _ := testdb.Load(t, s)
	db, err := wpdb.Open(dsn, wpdb.Options{Prefix: "wp_"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	seen := &traffic{}
	catalogd := httptest.NewServer(recordXFF(seen, httpapi.NewServer(httpapi.Deps{
		Catalog: catalog.New(db, catalog.Config{}), SiteURL: "http://shop.test", RateLimit: 60,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})))
	defer catalogd.Close()

	// A stand-in WordPress: a page at /, its REST API's JSON 404s (in the
	// three forms WordPress accepts), a plugin's JSON 404 outside the REST
	// API (admin-ajax), HTML 404s elsewhere. It counts the requests it gets.
	wp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.mu.Lock()
		seen.wordpress = append(seen.wordpress, r.Method+" "+r.URL.RequestURI())
		seen.mu.Unlock()
		if route := r.URL.Query().Get("rest_route"); route != "" || strings.HasPrefix(r.URL.Path, "/wp-json/") ||
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
			fmt.Fprint(w, "<html>WordPress home</html>")
			return
		}
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<html>WordPress: page not found</html>")
	}))
	defer wp.Close()

	dir := t.TempDir()
	listen := testnet.FreeAddr(t)
	for _, f := range []string{"catalogd-http.conf", "catalogd-upstream.conf", "catalogd-locations.conf", "catalogd-proxy.conf", "wordpress-location.conf", "site.conf"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := strings.ReplaceAll(string(b), "/etc/nginx/", dir+"/")
		c = strings.ReplaceAll(c, "server 127.0.0.1:8080;", "server "+strings.TrimPrefix(catalogd.URL, "http://")+";")
		c = strings.ReplaceAll(c, "server wordpress:80;", "server "+strings.TrimPrefix(wp.URL, "http://")+";")
		c = strings.ReplaceAll(c, "listen 80;", "listen "+listen+";")
		if err := os.WriteFile(filepath.Join(dir, f), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	main := fmt.Sprintf(`daemon off; pid %[1]s/nginx.pid; error_log %[1]s/error.log warn; worker_processes 1;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path %[1]s/body; proxy_temp_path %[1]s/proxy; fastcgi_temp_path %[1]s/fcgi;
  uwsgi_temp_path %[1]s/uwsgi; scgi_temp_path %[1]s/scgi;
  include %[1]s/site.conf;
}
`, dir)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	if out, err := exec.Command(bin, "-t", "-c", filepath.Join(dir, "nginx.conf")).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-c", filepath.Join(dir, "nginx.conf"))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if c, err := net.Dial("tcp", listen); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("nginx did not listen within 5s")
		}
		time.Sleep(20 * time.Millisecond)
	}

	site := "http://" + listen
	do := func(method, path string, hdr map[string]string) (int, http.Header, string) {
		t.Helper()
		req, _ := http.NewRequest(method, site+path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	get := func(path string, hdr map[string]string) (int, http.Header, string) {
		t.Helper()
		return do(http.MethodGet, path, hdr)
	}
	browser := map[string]string{"Accept": "text/html,application/xhtml+xml,*/*;q=0.8", "User-Agent": "Mozilla/5.0 Firefox/130"}

	t.Run("API paths reach catalogd", func(t *testing.T) {
		for _, p := range []string{"/wp-json/shop/v1/catalog", "/wp-json/shop/v1/catalog/products/radar",
			"/openapi.json", "/.well-known/openapi.json", "/.well-known/api-catalog", "/llms.txt"} {
			if code, h, _ := get(p, nil); code != 200 || h.Get("RateLimit-Limit") == "" {
				t.Errorf("%s: %d, RateLimit-Limit %q", p, code, h.Get("RateLimit-Limit"))
			}
		}
		if code, _, body := get("/wp-json/shop/v1/nope", nil); code != 404 || !strings.Contains(body, "shop_no_route") {
			t.Errorf("unknown API path: %d %s", code, body)
		}
	})
	t.Run("other paths reach WordPress", func(t *testing.T) {
		if code, _, body := get("/shop/", browser); code != 200 || !strings.Contains(body, "WordPress home") {
			t.Errorf("/shop/: %d %s", code, body)
		}
	})
	t.Run("missing page: JSON for JSON clients and AI agents, WordPress's page for browsers", func(t *testing.T) {
		cases := []struct {
			name string
			hdr  map[string]string
			json bool
		}{
			{"Accept JSON", map[string]string{"Accept": "application/json"}, true},
			{"GPTBot", map[string]string{"User-Agent": "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2)", "Accept": "text/html"}, true},
			{"ClaudeBot", map[string]string{"User-Agent": "Mozilla/5.0 (compatible; ClaudeBot/1.0)"}, true},
			{"browser", browser, false},
			{"curl", map[string]string{"User-Agent": "curl/8", "Accept": "*/*"}, false},
		}
		for _, c := range cases {
			code, h, body := get("/no-such-page/", c.hdr)
			if code != 404 {
				t.Errorf("%s: status %d", c.name, code)
			}
			isJSON := strings.HasPrefix(h.Get("Content-Type"), "application/json") && strings.Contains(body, `"code":"shop_not_found"`)
			if isJSON != c.json {
				t.Errorf("%s: JSON %v, want %v: %s %s", c.name, isJSON, c.json, h.Get("Content-Type"), body)
			}
			if !c.json && !strings.Contains(body, "WordPress: page not found") {
				t.Errorf("%s: not WordPress's page: %s", c.name, body)
			}
		}
	})
	jsonClient := map[string]string{"Accept": "application/json"}
	agent := map[string]string{"User-Agent": "Mozilla/5.0 (compatible; ClaudeBot/1.0)", "Accept": "*/*"}
	t.Run("WordPress's REST API keeps its own JSON 404s, in every form", func(t *testing.T) {
		for _, p := range []string{"/wp-json/wp/v2/posts/999999", "/?rest_route=/wp/v2/posts/999999",
			"/index.php?rest_route=%2Fwp%2Fv2%2Fposts%2F999999", "/shop/?rest_route=/wp/v2/posts/999999&context=view",
			"/index.php/wp-json/wp/v2/posts/999999", "/wp-json/wc/store/v1/products/999999"} {
			for _, c := range []map[string]string{jsonClient, agent, browser} {
				code, h, body := get(p, c)
				if code != 404 || !strings.Contains(body, `"code":"rest_post_invalid_id"`) ||
					!strings.HasPrefix(h.Get("Content-Type"), "application/json") {
					t.Errorf("%s (%s): %d %s, want WordPress's own JSON 404", p, c["User-Agent"]+c["Accept"], code, body)
				}
			}
		}
		// The block checkout's requests reach WordPress once, answered by it.
		p := "/wp-json/wc/store/v1/cart/add-item?id=999999"
		if code, _, body := do(http.MethodPost, p, jsonClient); code != 404 || !strings.Contains(body, "rest_post_invalid_id") {
			t.Errorf("POST %s: %d %s", p, code, body)
		}
		if n := seen.wordpressHits(http.MethodPost, p); n != 1 {
			t.Errorf("POST %s reached WordPress %d times, want once", p, n)
		}
	})
	t.Run("a JSON 404 outside the REST API is WordPress's too", func(t *testing.T) {
		p := "/wp-admin/admin-ajax.php?action=plugin_item&id=7"
		code, h, body := get(p, jsonClient)
		if code != 404 || !strings.Contains(body, "plugin: no such item") || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %s, want the plugin's own JSON 404", p, code, body)
		}
	})
	t.Run("a POST to a missing page keeps WordPress's answer and is sent once", func(t *testing.T) {
		p := "/no-such-form/"
		if code, _, body := do(http.MethodPost, p, jsonClient); code != 404 || !strings.Contains(body, "WordPress: page not found") {
			t.Errorf("POST %s: %d %s", p, code, body)
		}
		if n := seen.wordpressHits(http.MethodPost, p); n != 1 {
			t.Errorf("POST %s reached WordPress %d times, want once", p, n)
		}
	})
	t.Run("every form WordPress accepts for an API URL reaches catalogd", func(t *testing.T) {
		cases := []struct{ path, want string }{
			{"/wp-json/shop/v1", `"code":"shop_no_route"`},
			{"/index.php/wp-json/shop/v1", `"code":"shop_no_route"`},
			{"/index.php/wp-json/shop/v1/catalog", `"endpoints"`},
			{"/index.php/wp-json/shop/v1/catalog/products/radar", `"slug":"radar"`},
			{"/?rest_route=/shop/v1/catalog", `"endpoints"`},
			{"/index.php?rest_route=%2Fshop%2Fv1%2Fcatalog%2Fproducts%2Fradar", `"slug":"radar"`},
			{"/shop/?rest_route=/shop/v1/catalog/products&per_page=1", `"total":1`},
			{"/?rest_route=/shop/v1/nope", `"code":"shop_no_route"`},
		}
		for _, c := range cases {
			for _, client := range []map[string]string{browser, jsonClient} {
				code, h, body := get(c.path, client)
				if !strings.Contains(body, c.want) || h.Get("RateLimit-Limit") == "" ||
					!strings.HasPrefix(h.Get("Content-Type"), "application/json") {
					t.Errorf("%s: %d %s %s, want catalogd's answer with %s", c.path, code, h.Get("Content-Type"), body, c.want)
				}
			}
		}
	})
	t.Run("X-Forwarded-For carries the client's address, not a forged one", func(t *testing.T) {
		_, h1, _ := get("/wp-json/shop/v1/catalog/categories", map[string]string{"X-Forwarded-For": "203.0.113.9"})
		_, h2, _ := get("/wp-json/shop/v1/catalog/categories", map[string]string{"X-Forwarded-For": "198.51.100.1"})
		seen.mu.Lock()
		last := seen.xff[len(seen.xff)-1]
		seen.mu.Unlock()
		if last != "127.0.0.1" {
			t.Errorf("X-Forwarded-For at catalogd = %q, want the client's own address", last)
		}
		// Both requests count in the one client's window at catalogd.
		if r1, r2 := h1.Get("RateLimit-Remaining"), h2.Get("RateLimit-Remaining"); r1 == r2 {
			t.Errorf("forged addresses got separate windows: remaining %s then %s", r1, r2)
		}
	})
	t.Run("the admin paths are not reachable", func(t *testing.T) {
		for _, p := range []string{"/metrics", "/readyz", "/healthz", "/wp-json/shop/v1/../../metrics"} {
			code, _, body := get(p, map[string]string{"Accept": "application/json"})
			if code == 200 || strings.Contains(body, "go_goroutines") {
				t.Errorf("%s: %d %s", p, code, body)
			}
		}
	})
	t.Run("the edge answers 429 in the contract's JSON past the limit", func(t *testing.T) {
		var code int
		var h http.Header
		var body string
		for i := 0; i < 150 && code != 429; i++ {
			code, h, body = get("/wp-json/shop/v1/catalog", nil)
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
		if !strings.HasPrefix(h.Get("Content-Type"), "application/json") || h.Get("Retry-After") == "" || h.Get("RateLimit-Remaining") != "0" {
			t.Errorf("429 headers: %v", h)
		}
		// Everything catalogd answers shares the one window: a path the
		// limit missed would never answer 429 (a request may slip through
		// as the window refills, one a second).
		for _, p := range []string{"/openapi.json", "/.well-known/openapi.json", "/.well-known/api-catalog", "/llms.txt",
			"/wp-json/shop/v1", "/index.php/wp-json/shop/v1/catalog", "/?rest_route=/shop/v1/catalog", "/no-such-page/"} {
			limited := false
			for i := 0; i < 3 && !limited; i++ {
				code, _, body := get(p, jsonClient)
				limited = code == 429 && strings.Contains(body, "shop_rate_limited")
			}
			if !limited {
				t.Errorf("%s: not rate-limited at the edge", p)
			}
		}
	})
}

// recordXFF remembers the X-Forwarded-For catalogd receives.
func recordXFF(w *traffic, next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.xff = append(w.xff, r.Header.Get("X-Forwarded-For"))
		w.mu.Unlock()
		next.ServeHTTP(rw, r)
	})
}
