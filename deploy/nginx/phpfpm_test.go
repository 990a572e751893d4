package nginx_test

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/deploy/internal/proxytest"
	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
	"catalogd/internal/wptest"
)

// TestNginxPHPFPMSite runs site-php-fpm.conf as most shops run WordPress:
// Debian's nginx in front of Debian's WordPress on php-fpm (a site of its
// own on a private pool, internal/wptest), beside a real catalogd.
func TestNginxPHPFPMSite(t *testing.T) {
	bin := proxytest.Binary(t, "nginx", "/usr/sbin/nginx", "nginx")
	site := wptest.Install(t)
	fpm := wptest.StartFPM(t)
	catalogd := startCatalogd(t, site.URL)
	listen := proxytest.StartNginx(t, bin, ".", []string{"server 127.0.0.1:8080;", "server " + catalogd + ";",
		"unix:/run/php/php8.2-fpm.sock", "unix:" + fpm.Socket, "root /var/www/wordpress;", "root " + wptest.Root + ";"},
		"catalogd-http.conf", "catalogd-upstream.conf", "catalogd-locations.conf", "catalogd-proxy.conf",
		"wordpress-fastcgi.conf", "wordpress-php-fpm.conf", "site-php-fpm.conf")
	visitor := site.Visitor(listen)
	do, get := visitor.Do, visitor.Get
	isJSON := func(a wptest.Answer) bool { return strings.HasPrefix(a.Header.Get("Content-Type"), "application/json") }
	// WordPress's pages name it in their generator tag (wp_head).
	const byWordPress = `<meta name="generator" content="WordPress `
	answered := func(t *testing.T) []string {
		t.Helper()
		return fpm.Answered(t, visitor)
	}

	t.Run("WordPress's pages are WordPress's, through php-fpm", func(t *testing.T) {
		for _, c := range []struct{ path, want string }{
			{"/", byWordPress}, {"/hello-world/", "Hello world!"}, {"/wp-login.php", `name="loginform"`},
		} {
			if a := get(t, c.path, proxytest.Browser); a.Status != 200 || !strings.Contains(a.Body, c.want) {
				t.Errorf("%s: %d, want WordPress's page with %s:\n%.300s", c.path, a.Status, c.want, a.Body)
			}
		}
		log := answered(t)
		for _, r := range []string{"GET / 200", "GET /hello-world/ 200", "GET /wp-login.php 200"} {
			if !slices.Contains(log, r) {
				t.Errorf("php-fpm's log has no %q: %q", r, log)
			}
		}
		// The home page: WordPress's own Link header, and the API's
		// description beside it.
		links := strings.Join(get(t, "/", proxytest.Browser).Header.Values("Link"), ", ")
		if !strings.Contains(links, `rel="https://api.w.org/"`) || !strings.Contains(links, `</openapi.json>; rel="service-desc"`) {
			t.Errorf("/: Link %q, want WordPress's and the API's description", links)
		}
	})
	t.Run("WordPress's REST API is WordPress's, in every form", func(t *testing.T) {
		for _, client := range []map[string]string{proxytest.JSONClient, proxytest.Agent, proxytest.Browser} {
			if a := get(t, "/wp-json/wp/v2/posts/1", client); a.Status != 200 || !isJSON(a) || !strings.Contains(a.Body, `"rendered":"Hello world!"`) {
				t.Errorf("/wp-json/wp/v2/posts/1 (%v): %d %.300s", client, a.Status, a.Body)
			}
			for _, p := range proxytest.WordPressREST404s {
				// rest_post_invalid_id, or rest_no_route for WooCommerce's
				// Store API on a WordPress without WooCommerce.
				if a := get(t, p, client); a.Status != 404 || !isJSON(a) || !strings.Contains(a.Body, `"code":"rest_`) {
					t.Errorf("%s (%v): %d %.300s, want WordPress's own JSON 404", p, client, a.Status, a.Body)
				}
			}
		}
		// A JSON client's GET of a REST 404 is asked of WordPress once: the
		// JSON 404 is decided on the path the client sent, not on the
		// /index.php try_files hands WordPress.
		before := answered(t)
		get(t, "/wp-json/wp/v2/posts/999999", proxytest.JSONClient)
		if n := count(answered(t), "GET /wp-json/wp/v2/posts/999999 404") - count(before, "GET /wp-json/wp/v2/posts/999999 404"); n != 1 {
			t.Errorf("GET /wp-json/wp/v2/posts/999999 reached WordPress %d times, want once", n)
		}
	})
	t.Run("every form of an API URL and the companion documents reach catalogd", func(t *testing.T) {
		for _, p := range proxytest.CompanionPaths {
			if a := get(t, p, nil); a.Status != 200 || a.Header.Get("RateLimit-Limit") == "" {
				t.Errorf("%s: %d, RateLimit-Limit %q", p, a.Status, a.Header.Get("RateLimit-Limit"))
			}
		}
		for _, c := range proxytest.APIForms {
			for _, client := range []map[string]string{proxytest.Browser, proxytest.JSONClient} {
				if a := get(t, c.Path, client); !strings.Contains(a.Body, c.Want) || a.Header.Get("RateLimit-Limit") == "" || !isJSON(a) {
					t.Errorf("%s: %d %s %.300s, want catalogd's answer with %s", c.Path, a.Status, a.Header.Get("Content-Type"), a.Body, c.Want)
				}
			}
		}
	})
	t.Run("nginx serves the files that exist, to every client", func(t *testing.T) {
		const file = "/wp-includes/js/jquery/jquery.min.js"
		want, err := os.ReadFile(filepath.Join(wptest.Root, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, client := range []map[string]string{proxytest.Browser, proxytest.JSONClient, proxytest.Agent} {
			if a := get(t, file, client); a.Status != 200 || a.Body != string(want) || a.Header.Get("Content-Type") != "application/javascript" {
				t.Errorf("%s (%v): %d %s, %d bytes, want the file's %d", file, client, a.Status, a.Header.Get("Content-Type"), len(a.Body), len(want))
			}
		}
		if log := answered(t); slices.ContainsFunc(log, func(r string) bool { return strings.Contains(r, file) }) {
			t.Errorf("%s reached php-fpm: %q", file, log)
		}
	})
	t.Run("only scripts that exist reach php-fpm, for every client", func(t *testing.T) {
		// A file uploaded as an image, asked for as a script, and a
		// script that is not there: nginx's 404 for every client, as for
		// a browser; php-fpm never sees them.
		paths := []string{"/wp-includes/js/jquery/jquery.min.js/x.php", "/no-such-script.php"}
		for _, p := range paths {
			for _, client := range []map[string]string{proxytest.Browser, proxytest.JSONClient, proxytest.Agent} {
				if a := get(t, p, client); a.Status != 404 {
					t.Errorf("%s (%v): %d %.200s, want 404", p, client, a.Status, a.Body)
				}
			}
		}
		for _, r := range answered(t) {
			for _, p := range paths {
				if strings.Contains(r, p) {
					t.Errorf("%s reached php-fpm: %q", p, r)
				}
			}
		}
	})
	t.Run("missing page: JSON for JSON clients and AI agents, WordPress's page for browsers", func(t *testing.T) {
		for _, c := range []struct {
			name string
			hdr  map[string]string
			json bool
		}{{"Accept JSON", proxytest.JSONClient, true}, {"ClaudeBot", proxytest.Agent, true}, {"browser", proxytest.Browser, false}} {
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				a := do(t, method, "/no-such-page/", c.hdr)
				if a.Status != 404 || isJSON(a) != c.json {
					t.Errorf("%s %s: %d %s, want 404, JSON %v", method, c.name, a.Status, a.Header.Get("Content-Type"), c.json)
				}
				if method == http.MethodGet && c.json && !strings.Contains(a.Body, `"code":"shop_not_found"`) {
					t.Errorf("%s: not catalogd's JSON 404: %.300s", c.name, a.Body)
				}
				if method == http.MethodGet && !c.json && !strings.Contains(a.Body, byWordPress) {
					t.Errorf("%s: not WordPress's page: %.300s", c.name, a.Body)
				}
			}
		}
		// Another method keeps WordPress's answer, asked once.
		before := answered(t)
		if a := do(t, http.MethodPost, "/no-such-form/", proxytest.JSONClient); a.Status != 404 || isJSON(a) {
			t.Errorf("POST /no-such-form/: %d %s, want WordPress's 404", a.Status, a.Header.Get("Content-Type"))
		}
		if n := count(answered(t), "POST /no-such-form/ 404") - count(before, "POST /no-such-form/ 404"); n != 1 {
			t.Errorf("POST /no-such-form/ reached WordPress %d times, want once", n)
		}
	})
	t.Run("the admin paths are not reachable", func(t *testing.T) {
		for _, p := range proxytest.AdminPaths {
			if a := get(t, p, proxytest.JSONClient); a.Status == 200 || strings.Contains(a.Body, "go_goroutines") {
				t.Errorf("%s: %d %.300s", p, a.Status, a.Body)
			}
		}
	})
}

// startCatalogd runs catalogd, built from this tree, over the proxy tests'
// one-product shop, and returns its public listener's address once it is
// ready; it stops when the test ends.
func startCatalogd(t *testing.T, siteURL string) string {
	t.Helper()
	bins, remove, err := proctest.BuildTemp(map[string]string{"catalogd": "catalogd/cmd/catalogd"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
	dsn, _ := testdb.Load(t, proxytest.Shop())
	cd := proctest.MustStart(t, bins["catalogd"], proctest.Options{DSN: dsn, Env: []string{
		"CATALOG_SITE_URL=" + siteURL, "CATALOG_ACCESS_LOG=false"}})
	if _, _, err := cd.WaitReadyz(http.StatusOK, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	return cd.Public
}

// count is how many of log's lines are line.
func count(log []string, line string) int {
	n := 0
	for _, l := range log {
		if l == line {
			n++
		}
	}
	return n
}
