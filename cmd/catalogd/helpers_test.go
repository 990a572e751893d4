package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
)

// What the process tests share: the binary, the small shop, a running
// catalogd with the waits and reads made on it, and the shop's edits.

// binary is the catalogd built for these tests, by TestMain.
var binary string

func TestMain(m *testing.M) {
	bins, remove, err := proctest.BuildTemp(map[string]string{"catalogd": "."})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = bins["catalogd"]
	code := testdb.Run(m)
	testdb.StopServers()
	remove()
	os.Exit(code)
}

// jobsShop is the process tests' small shop: one category, jobs, holding
// two visible products and a hidden one. (catalog's and httpapi's tests
// build shops of their own, sized to what they check.)
func jobsShop() *wpfixture.Shop {
	s := wpfixture.New("wp_", "https://db-home.example")
	s.Category("Jobs", "jobs", "", 0)
	s.Add(wpfixture.Product{Title: "Police Radar", RegularPrice: "20", Categories: []string{"jobs"}, Frameworks: []string{"esx"}})
	s.Add(wpfixture.Product{Title: "Car Dealer", RegularPrice: "30", Categories: []string{"jobs"}})
	s.Add(wpfixture.Product{Title: "Hidden Gem", RegularPrice: "5", Visibility: "hidden", Categories: []string{"jobs"}})
	return s
}

func getJSON(t *testing.T, client *http.Client, url string) (int, map[string]any) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("GET %s: Content-Type = %q, want JSON; body %q", url, ct, body)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("GET %s: not a JSON object: %v: %q", url, err, body)
	}
	return resp.StatusCode, m
}

// running is a catalogd started for a test.
type running struct {
	*proctest.Catalogd
}

// launch starts catalogd on dsn with the settings and returns at once.
func launch(t *testing.T, dsn string, kv ...string) *running {
	t.Helper()
	return &running{proctest.MustLaunch(t, binary, proctest.Options{DSN: dsn, Env: kv})}
}

// start starts catalogd on dsn with the settings and waits until /healthz
// answers (not /readyz: the database may be down).
func start(t *testing.T, dsn string, kv ...string) *running {
	t.Helper()
	return &running{proctest.MustStart(t, binary, proctest.Options{DSN: dsn, Env: kv})}
}

const faultSite = "https://shop.example"

// startFaulty is start with the fault tests' settings.
func startFaulty(t *testing.T, dsn string, kv ...string) *running {
	t.Helper()
	// The tests poll every 100ms or so, and the cheap rounds alone would
	// spend the default budget: the product scan may use a whole core
	// here, so an edit shows within an interval or two.
	return start(t, dsn, append([]string{"CATALOG_SITE_URL=" + faultSite, "CATALOG_ACCESS_LOG=false",
		"CATALOG_POLL_BUDGET=1"}, kv...)...)
}

// exitCode waits at most d for the process to exit and returns its exit
// code.
func (r *running) exitCode(t *testing.T, d time.Duration) int {
	t.Helper()
	code, err := r.Wait(d)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// alive fails the test when the process has exited: recovery must come
// without a restart.
func (r *running) alive(t *testing.T) {
	t.Helper()
	if err := r.Exited(); err != nil {
		t.Fatal(err)
	}
}

// ready reports the status of /readyz.
func (r *running) ready(t *testing.T) int {
	t.Helper()
	status, _, err := r.Readyz()
	if err != nil {
		t.Fatalf("/readyz: %v", err)
	}
	return status
}

// waitReadyz waits, bounded, until /readyz answers want (or, for
// proctest.Settled, until the first whole read has ended), and returns its
// status and text.
func (r *running) waitReadyz(t *testing.T, want int, within time.Duration) (int, string) {
	t.Helper()
	status, body, err := r.WaitReadyz(want, within)
	if err != nil {
		t.Fatal(err)
	}
	return status, body
}

// metricsOf scrapes the admin listener.
func (r *running) metricsOf(t *testing.T) proctest.Metrics {
	t.Helper()
	m, err := r.Metrics()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// poll waits, bounded, until done reports true, failing the test with
// what when it does not.
func (r *running) poll(t *testing.T, within time.Duration, what string, done func() bool) {
	t.Helper()
	if err := r.Poll(within, done); err != nil {
		t.Fatalf("%s: %v; stderr:\n%s", what, err, r.Stderr.String())
	}
}

// answer is one response as a client saw it.
type answer struct {
	status int
	header http.Header
	body   []byte
	took   time.Duration
	err    error
}

func (r *running) fetch(url string) answer {
	start := time.Now()
	resp, err := r.Client.Get(url)
	if err != nil {
		return answer{err: err, took: time.Since(start)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: body, took: time.Since(start), err: err}
}

// waitBaseline waits until the first snapshot is in and served: it is the
// change follower's first whole read, made after its source marked its
// place, so from then on every change in the shop is seen. Measuring
// statements, or editing the shop, before that would race with it.
func (r *running) waitBaseline(t *testing.T) {
	t.Helper()
	// Ready: the catalog's handler answers too, not the loading 503.
	// The first snapshot is the change follower's first whole read, made
	// after its source marked its place.
	r.poll(t, 10*time.Second, "catalogd_snapshot_version not 1 or more: the poller took no baseline", func() bool {
		return r.metricsOf(t)["catalogd_snapshot_version"] >= 1 && r.ready(t) == http.StatusOK
	})
}

// editPrice saves a product's price the way WordPress admin does: the
// price metas and the post's modified time, which the change poller's
// signature sums. Each call moves the modified time on, so a price set
// back to an earlier value is a change too. It writes to the database
// directly, never through a test's proxy.
func editPrice(t *testing.T, raw *sql.DB, slug, price string) {
	t.Helper()
	if _, err := raw.Exec(`UPDATE wp_postmeta m JOIN wp_posts p ON p.ID = m.post_id SET m.meta_value = ?
		WHERE p.post_name = ? AND m.meta_key IN ('_price', '_regular_price')`, price, slug); err != nil {
		t.Fatalf("edit the price of %s: %v", slug, err)
	}
	if _, err := raw.Exec(`UPDATE wp_posts SET post_modified = post_modified + INTERVAL 1 SECOND,
		post_modified_gmt = post_modified_gmt + INTERVAL 1 SECOND WHERE post_name = ?`, slug); err != nil {
		t.Fatalf("touch %s: %v", slug, err)
	}
}

// priceOf is the price a product's answer (or a list's item with the
// slug) shows, "" when the answer holds no such product.
func priceOf(t *testing.T, body []byte, slug string) string {
	t.Helper()
	var v struct {
		Slug     string `json:"slug"`
		Price    string `json:"price"`
		Products []struct {
			Slug  string `json:"slug"`
			Price string `json:"price"`
		} `json:"products"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("not JSON: %v: %.200q", err, body)
	}
	if v.Slug == slug {
		return v.Price
	}
	for _, p := range v.Products {
		if p.Slug == slug {
			return p.Price
		}
	}
	return ""
}

// waitPrice waits, bounded, until the product's page shows the price.
func (r *running) waitPrice(t *testing.T, slug, want string, within time.Duration) {
	t.Helper()
	var a answer
	r.poll(t, within, fmt.Sprintf("%s does not show the price %s after the edit", slug, want), func() bool {
		a = r.fetch(r.API + "/catalog/products/" + slug)
		return a.err == nil && a.status == http.StatusOK && priceOf(t, a.body, slug) == want
	})
}

// answers fetches each path once, every one of which must answer below
// 500.
func (r *running) answers(t *testing.T, paths []string) map[string]answer {
	t.Helper()
	out := map[string]answer{}
	for _, p := range paths {
		a := r.fetch(r.API + p)
		if a.err != nil || a.status >= 500 {
			t.Fatalf("%s: %d %v: %.300s", p, a.status, a.err, a.body)
		}
		out[p] = a
	}
	return out
}

// servedPaths are the requests the fault tests make once the catalog has
// loaded: the index, categories, lists with and without filters, single
// products (a hidden one, reachable by its slug), and 404s.
var servedPaths = []string{"/catalog", "/catalog/categories", "/catalog/products", "/catalog/products?per_page=1&page=2",
	"/catalog/products?framework=esx", "/catalog/products?category=jobs", "/catalog/products/police-radar",
	"/catalog/products/car-dealer", "/catalog/products/hidden-gem", "/catalog/products/no-such-product",
	"/catalog/products?page=9"}
