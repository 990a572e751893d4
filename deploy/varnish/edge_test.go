package varnish_test

// The shipped edge cannot be walked around: one object per answer, the
// tags a CDN above needs, the API description purgeable, and purges that
// need the shared secret as well as the address.

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"catalogd/deploy/internal/proxytest"
	"catalogd/httpapi"
	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
	"catalogd/purge"
)

// fetch GETs path through Varnish with the Host given ("": the listener's
// address) and the query as written.
func (v *varnish) fetch(t *testing.T, host, path string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, v.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

// purge sends PURGE / with the tags to base (a listener's URL), with the
// secret in Purge-Secret unless it is "", and returns the status.
func (v *varnish) purge(t *testing.T, base, secret string, tags ...string) int {
	t.Helper()
	req, _ := http.NewRequest("PURGE", base+"/", nil)
	req.Header.Set("xkey", strings.Join(tags, " "))
	if secret != "" {
		req.Header.Set(purge.VarnishSecretHeader, secret)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// readSecret is the secret a file holds, as the VCL and catalogd read it.
func readSecret(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// edge is catalogd (following a shop's changes, purging Varnish with the
// secret in the file secret) and the shipped Varnish in front of it.
type edge struct {
	cd          *proctest.Catalogd
	v           *varnish
	secret, dsn string
}

// smallEdge starts an edge, with more settings for catalogd and more
// environment for varnishd.
func smallEdge(t *testing.T, catalogdEnv, varnishEnv []string) edge {
	t.Helper()
	s := wpfixture.New("wp_", "https://shop.example")
	s.Category("Police", "police", "", 1)
	s.Category("Vehicles", "vehicles", "", 2)
	s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5", Categories: []string{"police"}})
	s.Add(wpfixture.Product{Title: "Dispatch", RegularPrice: "7", Categories: []string{"police"}})
	s.Add(wpfixture.Product{Title: "Garage", RegularPrice: "9", Categories: []string{"vehicles"}})
	dsn, _ := testdb.Load(t, s)
	return startEdge(t, dsn, append([]string{"CATALOG_CHANGES=poll"}, catalogdEnv...), varnishEnv)
}

// startEdge starts catalogd on the shop at dsn (its change feed among
// catalogdEnv), purging the shipped Varnish in front of it, and waits
// until its first purge reached Varnish.
func startEdge(t *testing.T, dsn string, catalogdEnv, varnishEnv []string) edge {
	t.Helper()
	listen, purgeAddr := proctest.FreeAddr(t), proctest.FreeAddr(t)
	secret, secretEnv := purgeSecret(t)
	cd := proctest.MustStart(t, catalogdBin, proctest.Options{DSN: dsn, Env: append([]string{
		"CATALOG_PURGE_VARNISH=http://" + purgeAddr, secretEnv, "CATALOG_ACCESS_LOG=false",
		"CATALOG_SITE_URL=https://shop.example", "CATALOG_RATE_LIMIT=1000000"}, catalogdEnv...)})
	if _, _, err := cd.WaitReadyz(http.StatusOK, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	v := startVarnish(t, proctest.VarnishOptions{Listen: listen, PurgeListen: purgeAddr, Backend: cd.Public,
		PurgeSecretFile: secret, Env: varnishEnv})
	purgesSettled(t, cd)
	return edge{cd, v, secret, dsn}
}

// The VCL's list of the query parameters it keeps is catalogd's
// (httpapi.QueryParams), in both shipped VCLs: a parameter catalogd
// starts to read is never dropped at the edge, nor one it ignores kept.
func TestVCLKeepsCatalogdsQueryParams(t *testing.T) {
	kept := regexp.MustCompile(`\(\?!\(\?:([a-z_|]+)\)`)
	twice := regexp.MustCompile(`\[\?&\]\(([a-z_|]+)\)=`) // the rule that passes one given twice
	for _, f := range []string{"catalogd.vcl", "../kubernetes/varnish/catalogd.vcl"} {
		proxytest.ListMatches(t, f, kept, httpapi.QueryParams, "query parameters")
		proxytest.ListMatches(t, f, twice, httpapi.QueryParams, "query parameters given twice")
	}
}

// Fifteen requests for one product page — ten utm_source values, five
// Host values — are one object and one backend fetch; so are a list
// page's spellings (parameters reordered, marketing ones added), while
// the parameters catalogd reads still choose the answer.
func TestVarnishOneObjectPerAnswer(t *testing.T) {
	v := smallEdge(t, nil, nil).v
	page := api + "/products/radar"
	misses, first := 0, ""
	for i := range 10 {
		a := v.fetch(t, "", fmt.Sprintf("%s?utm_source=mail-%d&utm_medium=email", page, i))
		if a.header.Get("X-Cache") == "MISS" {
			misses++
		}
		if first == "" {
			first = a.body
		}
		if a.status != 200 || a.body != first {
			t.Fatalf("%d, the answer differs: %.200s", a.status, a.body)
		}
	}
	for i := range 5 {
		a := v.fetch(t, fmt.Sprintf("shop-%d.example", i), page+"?gclid=abc&fbclid="+fmt.Sprint(i))
		if a.header.Get("X-Cache") == "MISS" {
			misses++
		}
		if a.body != first {
			t.Errorf("Host shop-%d.example: another answer: %.200s", i, a.body)
		}
	}
	if misses != 1 {
		t.Errorf("15 spellings of one product page: %d backend fetches, want 1", misses)
	}
	// The answer names the site's URLs whatever Host asked.
	if !strings.Contains(first, "https://shop.example/") || strings.Contains(first, "shop-0.example") {
		t.Errorf("the product page does not name the site's URLs: %.300s", first)
	}

	list := []string{api + "/products?per_page=1&category=police", api + "/products?category=police&per_page=1",
		api + "/products?utm_campaign=x&category=police&_=123&per_page=1", api + "/products?per_page=1&&category=police&utm_term="}
	misses = 0
	for _, p := range list {
		a := v.fetch(t, "", p)
		if a.header.Get("X-Cache") == "MISS" {
			misses++
		}
		if a.status != 200 || !strings.Contains(a.body, `"total":2`) || strings.Count(a.body, `"slug":`) != 1 {
			t.Errorf("%s: %d %.300s, want one of the two police products", p, a.status, a.body)
		}
	}
	if misses != 1 {
		t.Errorf("%d spellings of one list page: %d backend fetches, want 1", len(list), misses)
	}
	// What catalogd reads still tells answers apart: a page, a filter, the
	// REST route of a plain-permalink URL.
	for _, p := range []string{api + "/products?per_page=1&category=police&page=2", api + "/products?per_page=1&category=vehicles",
		"/?rest_route=/shop/v1/catalog/products&per_page=1&category=vehicles&utm_source=x"} {
		a := v.fetch(t, "", p)
		if a.header.Get("X-Cache") != "MISS" || a.status != 200 {
			t.Errorf("%s: %s %d, want an answer of its own", p, a.header.Get("X-Cache"), a.status)
		}
	}
	if a := v.fetch(t, "", "/?utm_source=x&rest_route=/shop/v1/catalog/products&category=vehicles&per_page=1"); a.header.Get("X-Cache") != "HIT" ||
		!strings.Contains(a.body, `"slug":"garage"`) {
		t.Errorf("the REST route's spelling reordered: %s %.200s, want the same object", a.header.Get("X-Cache"), a.body)
	}
}

// With CATALOG_TAG_HEADER=both for Cloudflare above Varnish, Cache-Tag
// reaches the CDN once CATALOGD_PASS_CACHE_TAG=true says one is there;
// by default it is stripped. Surrogate-Key, Varnish's own, never leaves.
func TestVarnishPassesCacheTagToTheCDNAbove(t *testing.T) {
	both := []string{"CATALOG_TAG_HEADER=both"}
	p := api + "/products/radar"
	t.Run("by default, stripped", func(t *testing.T) {
		v := smallEdge(t, both, nil).v
		for range 2 { // the miss and the hit
			if a := v.get(t, p); a.header.Get("Cache-Tag") != "" || a.header.Get("Surrogate-Key") != "" {
				t.Errorf("tags reached the client: Cache-Tag %q, Surrogate-Key %q", a.header.Get("Cache-Tag"), a.header.Get("Surrogate-Key"))
			}
		}
	})
	t.Run("a CDN above", func(t *testing.T) {
		v := smallEdge(t, both, []string{"CATALOGD_PASS_CACHE_TAG=true"}).v
		for _, want := range []string{"MISS", "HIT"} {
			a := v.get(t, p)
			ct := a.header.Get("Cache-Tag")
			if a.header.Get("X-Cache") != want || !strings.HasPrefix(ct, "shop-product,shop-product-") {
				t.Errorf("%s: Cache-Tag %q, want catalogd's, for the CDN", a.header.Get("X-Cache"), ct)
			}
			if a.header.Get("Surrogate-Key") != "" || a.header.Get("Xkey") != "" {
				t.Errorf("Varnish's own tags passed on")
			}
		}
	})
}

// The API description and the API catalog are purged by shop-docs, as
// llms.txt is: after a --site-url change or an upgrade, the start-up purge
// by kind reaches their copies.
func TestVarnishPurgesTheAPIDescription(t *testing.T) {
	e := smallEdge(t, nil, nil)
	v, secret := e.v, e.secret
	docs := []string{"/openapi.json", "/.well-known/openapi.json", "/.well-known/api-catalog", "/llms.txt"}
	for _, p := range docs {
		v.get(t, p)
		if a := v.get(t, p); a.status != 200 || a.header.Get("X-Cache") != "HIT" {
			t.Fatalf("%s: %d %s, want a cached copy", p, a.status, a.header.Get("X-Cache"))
		}
	}
	if code := v.purge(t, v.Purge, readSecret(t, secret), "shop-docs"); code != 200 {
		t.Fatalf("PURGE shop-docs: %d", code)
	}
	for _, p := range docs {
		if a := v.get(t, p); a.header.Get("X-Cache") != "MISS" {
			t.Errorf("%s is still cached after a shop-docs purge", p)
		}
	}
}

// A purge needs the secret besides the purge listener's address: without
// it, or with another, it is refused (403) and purges nothing; with it,
// it purges. catalogd given a wrong secret says so in /readyz, and the
// secret it sent shows in no log and no report.
func TestVarnishPurgeNeedsTheSecret(t *testing.T) {
	e := smallEdge(t, nil, nil)
	v, secret := e.v, e.secret
	good := readSecret(t, secret)
	cached := func() bool { return v.get(t, api).header.Get("X-Cache") == "HIT" }
	v.get(t, api)
	for _, c := range []struct{ name, secret string }{
		{"no secret", ""}, {"another secret", "not-" + good}, {"the secret and more", good + "x"},
		{"the secret's start", good[:len(good)-1]}, {"a space", " "},
	} {
		if code := v.purge(t, v.Purge, c.secret, "shop-index"); code != http.StatusForbidden {
			t.Errorf("%s: PURGE %d, want 403", c.name, code)
		}
		if !cached() {
			t.Fatalf("%s: a refused PURGE purged the index", c.name)
		}
	}
	if code := v.purge(t, v.Purge, good, "shop-index"); code != http.StatusOK {
		t.Errorf("with the secret: PURGE %d, want 200", code)
	}
	if cached() {
		t.Error("the index is still cached after its purge")
	}
	// Rotated as docs/edge-purge.md says: the file, then a restart of
	// Varnish (std.fileread keeps a file's content for as long as any VCL
	// that read it is loaded: a reload is not enough).
	rotated := "rotated-" + good
	if err := os.WriteFile(secret, []byte(rotated+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := v.Options
	v.Stop()
	v = startVarnish(t, o)
	v.get(t, api)
	if code := v.purge(t, v.Purge, good, "shop-index"); code != http.StatusForbidden || !cached() {
		t.Errorf("the old secret after the rotation: PURGE %d; want 403 and nothing purged", code)
	}
	if code := v.purge(t, v.Purge, rotated, "shop-index"); code != http.StatusOK || cached() {
		t.Errorf("the rotated secret: PURGE %d; want 200 and the index purged", code)
	}
	good = rotated

	// catalogd with a wrong secret: its purges are refused, /readyz says
	// why, and the secret shows nowhere.
	wrong := "wrong-" + good
	wrongFile := secret + ".wrong"
	if err := os.WriteFile(wrongFile, []byte(wrong+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The edge must not hold the index this catalogd would answer: it
	// would then find nothing to purge at start (cmd/catalogd's
	// startpurge.go) and send no purge to be refused.
	if code := v.purge(t, v.Purge, good, "shop-index"); code != http.StatusOK {
		t.Fatalf("with the secret: PURGE %d, want 200", code)
	}
	bad := proctest.MustStart(t, catalogdBin, proctest.Options{DSN: e.dsn, Env: []string{"CATALOG_CHANGES=poll",
		"CATALOG_PURGE_VARNISH=" + v.Purge, "CATALOG_PURGE_VARNISH_SECRET_FILE=" + wrongFile}})
	var report string
	poll(t, "the refused purge in /readyz", 30*time.Second, func() bool {
		_, body, _ := bad.Readyz()
		report = body
		return strings.Contains(body, "failing")
	})
	if !strings.Contains(report, "Purge-Secret is missing or wrong") {
		t.Errorf("/readyz does not say why:\n%s", report)
	}
	for what, text := range map[string]string{"/readyz": report, "the log": bad.Stderr.String()} {
		if leaks := proctest.Leaks(text, wrong); len(leaks) > 0 {
			t.Errorf("%s holds %q of the secret sent:\n%s", what, leaks, text)
		}
	}
}

// Without its secret file, the VCL refuses every purge, whatever is sent.
func TestVarnishWithoutSecretFileRefusesPurges(t *testing.T) {
	s := wpfixture.New("wp_", "https://shop.example")
	s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5"})
	dsn, _ := testdb.Load(t, s)
	cd := proctest.MustStart(t, catalogdBin, proctest.Options{DSN: dsn, Env: []string{"CATALOG_CHANGES=poll"}})
	if _, _, err := cd.WaitReadyz(http.StatusOK, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	v := startVarnish(t, proctest.VarnishOptions{Listen: proctest.FreeAddr(t), PurgeListen: proctest.FreeAddr(t), Backend: cd.Public})
	v.get(t, api)
	for _, secret := range []string{"", "anything", " "} {
		if code := v.purge(t, v.Purge, secret, "shop-index"); code != http.StatusForbidden {
			t.Errorf("secret %q, no secret file: PURGE %d, want 403", secret, code)
		}
	}
	if a := v.get(t, api); a.header.Get("X-Cache") != "HIT" {
		t.Error("a purge without a secret file purged the index")
	}
}

// A query the VCL cannot normalise by its text, a parameter catalogd reads
// spelt with a percent escape or given twice (catalogd takes the last;
// sorting would move it), reaches catalogd as it came: Varnish answers
// what catalogd answers to that very URL.
func TestVarnishPassesWhatItCannotNormalise(t *testing.T) {
	e := smallEdge(t, nil, nil)
	for _, p := range []string{
		api + "/products?per%5Fpage=1&category=police",
		api + "/products?category=vehicles&category=police&per_page=1",
		"/?rest_route=/shop/v1/catalog/products&rest_route=/shop/v1/catalog/categories",
	} {
		_, direct, err := e.cd.Get("http://" + e.cd.Public + p)
		if err != nil {
			t.Fatal(err)
		}
		if a := e.v.fetch(t, "", p); a.body != direct {
			t.Errorf("%s: Varnish answered %.200s\nwhere catalogd answers %.200s", p, a.body, direct)
		}
	}
}
