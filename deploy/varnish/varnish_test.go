// Package varnish holds the shipped Varnish setup (catalogd.vcl and the
// systemd drop-in with its start parameters); its tests run Debian's
// varnishd with the xkey vmod (varnish-modules) in front of a real
// catalogd that follows a MariaDB binary log and purges this Varnish
// itself (CATALOG_PURGE_VARNISH), as a shop runs them.
package varnish_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"catalogd/deploy/internal/proxytest"
	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
)

// catalogdBin is the catalogd built for these tests, by TestMain.
var catalogdBin string

func TestMain(m *testing.M) {
	os.Exit(testdb.RunBuilt(m, map[string]string{"catalogd": "catalogd/cmd/catalogd"},
		func(bins map[string]string) { catalogdBin = bins["catalogd"] }))
}

// varnish is a running varnishd with the shipped VCL and start
// parameters.
type varnish struct{ *proctest.Varnish }

// startVarnish runs varnishd with the shipped VCL and the drop-in's
// parameters: on o's listeners, its backend catalogd (o.Backend), reading
// the purge secret from o.PurgeSecretFile, o.Edits applied to the VCL's
// text first.
func startVarnish(t *testing.T, o proctest.VarnishOptions) *varnish {
	t.Helper()
	o.Bin = proxytest.Binary(t, "varnish", "/usr/sbin/varnishd", "varnishd")
	if matches, _ := filepath.Glob("/usr/lib/*/varnish/vmods/libvmod_xkey.so"); len(matches) == 0 {
		testdb.Lacking(t, "the xkey vmod is not installed (.ci/run installs Debian's varnish-modules)")
	}
	o.VCL, o.DropIn = "catalogd.vcl", "varnish.service.d/catalogd.conf"
	v, err := proctest.StartVarnish(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		v.Stop()
		if t.Failed() {
			t.Logf("varnishd's output:\n%s", v.Output.String())
		}
	})
	return &varnish{v}
}

// purgeSecret writes a purge secret for the test's Varnish and catalogd:
// the file, and catalogd's setting naming it.
func purgeSecret(t *testing.T) (file, env string) {
	t.Helper()
	file, err := proctest.PurgeSecret(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return file, "CATALOG_PURGE_VARNISH_SECRET_FILE=" + file
}

// answer is what a client of Varnish saw.
type answer struct {
	status int
	header http.Header
	body   string
}

var client = &http.Client{Timeout: 10 * time.Second}

func (v *varnish) get(t *testing.T, path string) answer {
	t.Helper()
	return v.getFor(t, "", path)
}

// getFor is get with the Host a visitor of the site sends ("": Varnish's
// address).
func (v *varnish) getFor(t *testing.T, host, path string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, v.URL+path, nil)
	if host != "" {
		req.Host = host
	}
	// Go's transport asks for gzip, as browsers do, and unzips.
	req.Header.Set("Cookie", "wordpress_logged_in_abc=visitor")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return answer{resp.StatusCode, resp.Header, string(b)}
}

// poll tries cond every 20 ms until it holds, for at most within, and
// returns how long it took; the test fails when it never holds.
func poll(t *testing.T, what string, within time.Duration, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > within {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(start)
}

const api = "/wp-json/shop/v1/catalog"

// largeShop is the 1 000-category shop with six-digit post IDs, 450
// products (more purge tags than one PURGE carries), and a draft about to
// be published.
func largeShop() *wpfixture.Shop {
	s := wpfixture.ManyCategories("https://shop.example", 1000, 450)
	s.Add(wpfixture.Product{Title: "Coming Soon", Slug: "coming-soon", Status: "draft", RegularPrice: "9",
		Categories: []string{"kind-0001"}})
	return s
}

func productPath(i int) string { return fmt.Sprintf("%s/products/server-script-%05d", api, i) }

// TestVarnishInFront: catalogd follows the binary log and purges Varnish
// itself; every edit shows through Varnish at once, and only what it
// touched is fetched again.
func TestVarnishInFront(t *testing.T) {
	dsn, raw := testdb.LoadOn(t, testdb.BinlogServer(t), largeShop())
	listen, purge := proctest.FreeAddr(t), proctest.FreeAddr(t)
	secret, secretEnv := purgeSecret(t)
	cd := proctest.MustStart(t, catalogdBin, proctest.Options{DSN: dsn, Env: []string{
		"CATALOG_CHANGES=binlog", "CATALOG_PURGE_VARNISH=http://" + purge, secretEnv, "CATALOG_ACCESS_LOG=false",
		"CATALOG_SITE_URL=https://shop.example", "CATALOG_RATE_LIMIT=1000000"}})
	if _, _, err := cd.WaitReadyz(http.StatusOK, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	v := startVarnish(t, proctest.VarnishOptions{Listen: listen, PurgeListen: purge, Backend: cd.Public, PurgeSecretFile: secret})
	purgesSettled(t, cd)

	const products = 450
	lists := []string{}
	for page := 1; page <= (products+49)/50; page++ {
		lists = append(lists, fmt.Sprintf("%s/products?per_page=50&page=%d", api, page))
	}
	every := append([]string{api, api + "/categories", api + "/products/no-such-script"}, lists...)
	for i := range products {
		every = append(every, productPath(i))
	}
	// warm fetches every URL until Varnish holds it.
	warm := func(t *testing.T, paths []string) {
		t.Helper()
		for _, p := range paths {
			if a := v.get(t, p); a.status >= 500 {
				t.Fatalf("%s: %d %s", p, a.status, a.body)
			}
			if a := v.get(t, p); a.header.Get("X-Cache") != "HIT" {
				t.Fatalf("%s: %s on the second fetch, want HIT", p, a.header.Get("X-Cache"))
			}
		}
	}
	// misses fetches every URL once and returns those Varnish had to ask
	// catalogd for.
	misses := func(t *testing.T, paths []string) map[string]bool {
		t.Helper()
		out := map[string]bool{}
		for _, p := range paths {
			if a := v.get(t, p); a.header.Get("X-Cache") != "HIT" {
				out[p] = true
			}
		}
		return out
	}

	t.Run("no 5xx for the 1 000-category shop, and no tag reaches the client", func(t *testing.T) {
		for _, p := range every {
			a := v.get(t, p)
			if a.status >= 500 {
				t.Errorf("%s: %d %s", p, a.status, a.body)
			}
			for _, h := range []string{"Surrogate-Key", "Cache-Tag", "Xkey"} {
				if a.header.Get(h) != "" {
					t.Errorf("%s: %s reached the client", p, h)
				}
			}
			if x := a.header.Get("X-Cache"); x != "MISS" && x != "HIT" {
				t.Errorf("%s: X-Cache %q, want Varnish's own HIT or MISS", p, x)
			}
		}
		warm(t, every)
		if a := v.get(t, api+"/categories"); !strings.Contains(a.body, "kind-0999") {
			t.Errorf("the categories list lacks the 1 000th category: %.200s", a.body)
		}
	})

	t.Run("only the purge listener purges", func(t *testing.T) {
		warm(t, []string{api})
		// A visitor's PURGE through the public listener (from loopback,
		// as nginx in front forwards it) is refused and purges nothing,
		// secret or not.
		if code := v.purge(t, v.URL, readSecret(t, secret), "shop-index"); code != http.StatusForbidden {
			t.Errorf("PURGE on the public listener: %d, want 403", code)
		}
		if a := v.get(t, api); a.header.Get("X-Cache") != "HIT" {
			t.Errorf("a refused PURGE purged the index")
		}
		if code := v.purge(t, v.Purge, readSecret(t, secret), "shop-index"); code != http.StatusOK {
			t.Errorf("PURGE on the purge listener: %d, want 200", code)
		}
		if a := v.get(t, api); a.header.Get("X-Cache") != "MISS" {
			t.Errorf("the index is still cached after its purge")
		}
	})

	t.Run("a price edit is fresh at once, every unaffected URL still a hit", func(t *testing.T) {
		warm(t, every)
		edited := productPath(42)
		if _, err := raw.Exec(`UPDATE wp_postmeta m JOIN wp_posts p ON p.ID = m.post_id SET m.meta_value = '77'
			WHERE p.post_name = 'server-script-00042' AND m.meta_key IN ('_price', '_regular_price')`); err != nil {
			t.Fatal(err)
		}
		took := poll(t, "the new price through Varnish", 10*time.Second, func() bool {
			return strings.Contains(v.get(t, edited).body, `"price":"77.00"`)
		})
		t.Logf("DB commit to a fresh answer from Varnish: %v", took.Round(time.Millisecond))
		if a := v.get(t, lists[0]); !strings.Contains(a.body, `"price":"77.00"`) {
			t.Errorf("the list page showing it is still stale")
		}
		missed := misses(t, every)
		for p := range missed {
			// The index goes with every change (it names the snapshot, for
			// a starting replica), and catalogd has the edge fetch it
			// again: a miss or a hit, either is right.
			if p != edited && p != lists[0] && p != api {
				t.Errorf("%s was purged by an edit of another product", p)
			}
		}
		t.Logf("%d of %d URLs fetched again after the edit", len(missed), len(every))
	})

	t.Run("a just-published product's cached 404 is gone", func(t *testing.T) {
		p := api + "/products/coming-soon"
		v.get(t, p)
		if a := v.get(t, p); a.status != 404 || a.header.Get("X-Cache") != "HIT" {
			t.Fatalf("draft: %d %s, want a cached 404", a.status, a.header.Get("X-Cache"))
		}
		if _, err := raw.Exec(`UPDATE wp_posts SET post_status = 'publish', post_modified = NOW(), post_modified_gmt = UTC_TIMESTAMP()
			WHERE post_name = 'coming-soon'`); err != nil {
			t.Fatal(err)
		}
		took := poll(t, "the published product through Varnish", 10*time.Second, func() bool { return v.get(t, p).status == 200 })
		t.Logf("published to 200 from Varnish: %v (the 404 was kept for a minute)", took.Round(time.Millisecond))
	})

	t.Run("a category rename", func(t *testing.T) {
		warm(t, []string{api + "/categories"})
		if _, err := raw.Exec(`UPDATE wp_terms SET name = 'Renamed scripts' WHERE slug = 'kind-0007'`); err != nil {
			t.Fatal(err)
		}
		took := poll(t, "the new name through Varnish", 10*time.Second, func() bool {
			return strings.Contains(v.get(t, api+"/categories").body, "Renamed scripts")
		})
		t.Logf("rename to a fresh categories list from Varnish: %v", took.Round(time.Millisecond))
	})

	t.Run("a shop-name change is purged completely", func(t *testing.T) {
		warm(t, every)
		before := metric(t, cd, "catalogd_edge_purge_requests_total")
		if _, err := raw.Exec(`UPDATE wp_options SET option_value = 'Renamed Shop' WHERE option_name = 'blogname'`); err != nil {
			t.Fatal(err)
		}
		took := poll(t, "the new name through Varnish", 10*time.Second, func() bool {
			return strings.Contains(v.get(t, api).body, `"name":"Renamed Shop"`)
		})
		t.Logf("shop renamed to a fresh index from Varnish: %v", took.Round(time.Millisecond))
		// Every response catalogd served is purged: each is fetched again
		// (the PURGE requests may still be on their way for some).
		pending := map[string]bool{}
		for _, p := range every[1:] { // the index was fetched again above
			pending[p] = true
		}
		poll(t, "every URL purged", 10*time.Second, func() bool {
			for p := range pending {
				if v.get(t, p).header.Get("X-Cache") == "MISS" {
					delete(pending, p)
				}
			}
			return len(pending) == 0
		})
		// By the kind tags, which every response carries: one PURGE, not
		// one tag per page held (TestShopWideChangePurgesEveryReplicasPages).
		n := metric(t, cd, "catalogd_edge_purge_requests_total") - before
		if n < 1 || n > 2 { // a round may have been under way
			t.Errorf("%v PURGE requests for a shop-wide change, want one of the kind tags", n)
		}
		t.Logf("%v PURGE request(s) for the shop-wide change, %d responses purged", n, len(every))
	})
}

// purgesSettled waits until catalogd's purges reached Varnish: its purge
// by kind at start (what changed while it was down is unknown) was sent
// before Varnish listened, and is retried until Varnish takes it; a copy
// cached before then would be dropped under the test's feet.
func purgesSettled(t *testing.T, cd *proctest.Catalogd) {
	t.Helper()
	poll(t, "catalogd's first purge acknowledged", 30*time.Second, func() bool {
		m, err := cd.Metrics()
		return err == nil && m["catalogd_edge_purge_requests_total"] > m["catalogd_edge_purge_failures_total"] &&
			m["catalogd_edge_purge_pending_tags"] == 0
	})
}

func metric(t *testing.T, cd *proctest.Catalogd, name string) float64 {
	t.Helper()
	m, err := cd.Metrics()
	if err != nil {
		t.Fatal(err)
	}
	return m[name]
}

// TestVarnishStaleIfError: with catalogd down, Varnish serves its copies
// past their lifetime and past stale-while-revalidate, within
// stale-if-error, as the probe says catalogd is sick; a URL it never held
// gets the contract's JSON 503.
func TestVarnishStaleIfError(t *testing.T) {
	s := wpfixture.New("wp_", "https://shop.example")
	s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5"})
	dsn, _ := testdb.Load(t, s)
	listen, purge := proctest.FreeAddr(t), proctest.FreeAddr(t)
	secret, secretEnv := purgeSecret(t)
	// Short lifetimes, so the test need not wait ten minutes: 2 s fresh, 1 s
	// of stale-while-revalidate, an hour of stale-if-error.
	cd := proctest.MustStart(t, catalogdBin, proctest.Options{DSN: dsn, Env: []string{
		"CATALOG_CHANGES=poll", "CATALOG_PURGE_VARNISH=http://" + purge, secretEnv, "CATALOG_ACCESS_LOG=false",
		"CATALOG_S_MAXAGE=2s", "CATALOG_MAX_AGE=2s", "CATALOG_STALE_WHILE_REVALIDATE=1s", "CATALOG_STALE_IF_ERROR=1h"}})
	if _, _, err := cd.WaitReadyz(http.StatusOK, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	// The VCL's healthy grace follows catalogd's stale-while-revalidate, as
	// its comment asks.
	v := startVarnish(t, proctest.VarnishOptions{Listen: listen, PurgeListen: purge, Backend: cd.Public, PurgeSecretFile: secret,
		Edits: []string{"set req.grace = 60s;", "set req.grace = 1s;"}})
	purgesSettled(t, cd)
	p := api + "/products/radar"
	first := v.get(t, p)
	if first.status != 200 {
		t.Fatalf("%d %s", first.status, first.body)
	}
	cd.Kill()
	var last answer
	took := poll(t, "a stale copy served with catalogd down, past its lifetime and grace", 20*time.Second, func() bool {
		last = v.get(t, p)
		var age int
		fmt.Sscan(last.header.Get("Age"), &age)
		return last.status == 200 && age > 3
	})
	t.Logf("catalogd down: the copy served stale %v later (Age %s)", took.Round(time.Millisecond), last.header.Get("Age"))
	if last.body != first.body {
		t.Errorf("the stale copy differs from the one cached")
	}
	a := v.get(t, api+"/products/never-asked")
	var e struct {
		Code string `json:"code"`
	}
	if a.status != 503 || json.Unmarshal([]byte(a.body), &e) != nil || e.Code != "shop_unavailable" {
		t.Errorf("a URL never cached, catalogd down: %d %s, want the JSON 503", a.status, a.body)
	}
}

// TestVarnishProbeKeepsTheLogQuiet: the shipped VCL's probe, a HEAD of the
// index (sent every 100 ms here instead of every second), writes an access-log
// line at catalogd only when its answer changes, from the start on (the
// probe may meet the 503 before the first snapshot, which is no warning),
// while a visitor's request through Varnish has its line.
func TestVarnishProbeKeepsTheLogQuiet(t *testing.T) {
	s := wpfixture.New("wp_", "https://shop.example")
	s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5"})
	dsn, _ := testdb.Load(t, s)
	listen, purge := proctest.FreeAddr(t), proctest.FreeAddr(t)
	secret, secretEnv := purgeSecret(t)
	cd := proctest.MustStart(t, catalogdBin, proctest.Options{DSN: dsn, Env: []string{
		"CATALOG_CHANGES=poll", "CATALOG_PURGE_VARNISH=http://" + purge, secretEnv}})
	// Not waiting for /readyz: Varnish starts probing as a shop's does.
	v := startVarnish(t, proctest.VarnishOptions{Listen: listen, PurgeListen: purge, Backend: cd.Public, PurgeSecretFile: secret,
		Edits: []string{".interval = 1s;", ".interval = 100ms;"}})
	const probes = 30
	poll(t, "catalogd answered the probe", 30*time.Second, func() bool {
		return metric(t, cd, "catalogd_http_requests_total") >= probes
	})
	if a := v.get(t, api+"/products?per_page=1"); a.status != 200 {
		t.Fatalf("a visitor's list through Varnish: %d %s", a.status, a.body)
	}
	poll(t, "the visitor's line in catalogd's log", 10*time.Second, func() bool {
		return strings.Contains(cd.Stderr.String(), `query="per_page=1"`)
	})
	log := cd.Stderr.String()
	var lines []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "ua=varnish-probe") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 || len(lines) > 2 || !strings.Contains(lines[len(lines)-1], "method=HEAD path=/wp-json/shop/v1/catalog query=\"\" status=200") ||
		(len(lines) == 2 && !strings.Contains(lines[0], "status=503")) {
		t.Errorf("%d or more probes wrote these access-log lines:\n%s\nwant the first 200's, after the first 503's if the probe met one",
			probes, strings.Join(lines, "\n"))
	}
	if strings.Contains(log, "catalog unavailable") {
		t.Errorf("the probes before the first snapshot were warned about:\n%s", log)
	}
}
