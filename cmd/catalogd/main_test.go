package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"catalogd/internal/testdb"
	"catalogd/internal/testnet"
	"catalogd/wpdb/wpfixture"
)

// binary is the catalogd built for these tests, by TestMain.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "catalogd-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "catalogd")
	if err := testnet.Build(dir, map[string]string{"catalogd": "."}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is a running catalogd.
type proc struct {
	cmd    *exec.Cmd
	stdout *testnet.SyncBuffer
	stderr *testnet.SyncBuffer
	done   chan struct{}
	err    error // of Wait, once done is closed
}

// start starts the binary with the environment; the process is killed when
// the test ends, if it still runs.
func start(t *testing.T, env []string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(binary), stdout: &testnet.SyncBuffer{}, stderr: &testnet.SyncBuffer{}, done: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stdout = p.stdout
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start catalogd: %v", err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits at most d for the process to exit and returns its exit code.
func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		t.Fatalf("catalogd did not exit within %v; stderr:\n%s", d, p.stderr.String())
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatalf("wait: %v", p.err)
	}
	return 0
}

func newShop() *wpfixture.Shop {
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

func TestServesAndStopsOnSIGTERM(t *testing.T) {
	dsn, raw := testdb.Load(t, newShop())
	public, admin := testnet.FreeAddr(t), testnet.FreeAddr(t)
	const site = "https://shop.example"
	p := start(t, testnet.Environ("CATALOG_DSN="+dsn, "CATALOG_LISTEN="+public, "CATALOG_ADMIN_LISTEN="+admin,
		"CATALOG_SITE_URL="+site, "CATALOG_S_MAXAGE=5m", "CATALOG_POLL_INTERVAL=200ms"))
	client := &http.Client{Timeout: 5 * time.Second}

	// Wait, bounded, until the admin listener says ready.
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := client.Get("http://" + admin + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-p.done:
			t.Fatalf("catalogd exited before it was ready: %v; stderr:\n%s", p.err, p.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz not 200 within 10s (last error %v); stderr:\n%s", err, p.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	api := "http://" + public + "/wp-json/shop/v1"
	t.Run("index", func(t *testing.T) {
		status, m := getJSON(t, client, api+"/catalog")
		if status != 200 {
			t.Fatalf("status %d: %v", status, m)
		}
		if m["product_count"] != float64(2) {
			t.Errorf("product_count = %v, want 2", m["product_count"])
		}
		eps, _ := m["endpoints"].(map[string]any)
		if want := site + "/wp-json/shop/v1/catalog"; eps["catalog"] != want {
			t.Errorf("endpoints.catalog = %v, want %s (CATALOG_SITE_URL)", eps["catalog"], want)
		}
	})
	t.Run("categories", func(t *testing.T) {
		status, m := getJSON(t, client, api+"/catalog/categories")
		if status != 200 {
			t.Fatalf("status %d: %v", status, m)
		}
		cats, _ := m["categories"].([]any)
		if len(cats) != 1 {
			t.Fatalf("categories = %v, want one", m["categories"])
		}
		if c, _ := cats[0].(map[string]any); c["slug"] != "jobs" || c["count"] != float64(2) {
			t.Errorf("category = %v, want jobs with count 2", c)
		}
	})
	t.Run("products", func(t *testing.T) {
		status, m := getJSON(t, client, api+"/catalog/products")
		if status != 200 {
			t.Fatalf("status %d: %v", status, m)
		}
		if m["total"] != float64(2) {
			t.Errorf("total = %v, want 2", m["total"])
		}
	})
	t.Run("product", func(t *testing.T) {
		status, m := getJSON(t, client, api+"/catalog/products/police-radar")
		if status != 200 {
			t.Fatalf("status %d: %v", status, m)
		}
		if m["price"] != "20.00" || m["url"] != site+"/product/police-radar/" {
			t.Errorf("price, url = %v, %v; want 20.00, %s/product/police-radar/", m["price"], m["url"], site)
		}
	})
	t.Run("metrics are scraped and move", func(t *testing.T) {
		before := scrape(t, client, "http://"+admin+"/metrics")
		for _, name := range []string{"catalogd_http_requests_total", "catalogd_http_request_duration_seconds_count",
			"catalogd_cache_hits_total", "catalogd_cache_misses_total", "catalogd_cache_evictions_total",
			"catalogd_cache_bytes", "catalogd_cache_entries", "catalogd_cache_stale_served_total",
			"catalogd_db_queries_total", "catalogd_db_query_duration_seconds_count", "catalogd_db_connections_open",
			"catalogd_db_connections_idle", "go_goroutines", "process_resident_memory_bytes"} {
			if _, ok := before[name]; !ok {
				t.Errorf("series %s missing", name)
			}
		}
		getJSON(t, client, api+"/catalog/products/police-radar") // cached by the subtest above: a hit
		getJSON(t, client, api+"/catalog/products?per_page=1")   // a miss: database statements
		after := scrape(t, client, "http://"+admin+"/metrics")
		for _, name := range []string{"catalogd_http_requests_total", "catalogd_cache_hits_total",
			"catalogd_cache_misses_total", "catalogd_db_queries_total", "catalogd_db_query_duration_seconds_count"} {
			if after[name] <= before[name] {
				t.Errorf("%s did not move: %v → %v", name, before[name], after[name])
			}
		}
		if after["catalogd_cache_bytes"] <= 0 {
			t.Errorf("catalogd_cache_bytes = %v", after["catalogd_cache_bytes"])
		}
	})
	t.Run("a change's purge tags on /changes and /metrics", func(t *testing.T) {
		resp, err := client.Get(api + "/catalog/products/police-radar")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "s-maxage=300,") {
			t.Errorf("Cache-Control %q, want the configured s-maxage=300", cc)
		}
		var id int64
		if err := raw.QueryRow(`SELECT ID FROM wp_posts WHERE post_name = 'police-radar'`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("shop-product-%d", id)
		if tags := resp.Header.Get("Surrogate-Key"); !strings.Contains(tags+" ", want+" ") {
			t.Errorf("Surrogate-Key %q lacks %s", tags, want)
		}
		before := scrape(t, client, "http://"+admin+"/metrics")
		if _, err := raw.Exec(`UPDATE wp_posts SET post_modified_gmt = post_modified_gmt + INTERVAL 1 MINUTE WHERE ID = ?`, id); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			_, m := getJSON(t, client, "http://"+admin+"/changes?since=0")
			if changes, _ := m["changes"].([]any); len(changes) > 0 {
				c, _ := changes[0].(map[string]any)
				if tags := fmt.Sprint(c["tags"]); !strings.Contains(tags, want) || !strings.Contains(tags, "shop-list") {
					t.Errorf("change tags %s, want %s and shop-list", tags, want)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no change on /changes 5s after an edit: %v", m)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if after := scrape(t, client, "http://"+admin+"/metrics"); after["catalogd_purge_tags_total"] <= before["catalogd_purge_tags_total"] {
			t.Errorf("catalogd_purge_tags_total did not move: %v → %v", before["catalogd_purge_tags_total"], after["catalogd_purge_tags_total"])
		}
	})
	for _, path := range []string{"/readyz", "/healthz", "/metrics", "/changes"} {
		t.Run("no "+path+" on the public port", func(t *testing.T) {
			status, m := getJSON(t, client, "http://"+public+path)
			if status != http.StatusNotFound || m["code"] != "shop_not_found" {
				t.Errorf("GET %s on the public port = %d %v, want 404 shop_not_found", path, status, m)
			}
		})
	}

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	if code := p.wait(t, 10*time.Second); code != 0 {
		t.Errorf("exit code after SIGTERM = %d, want 0; stderr:\n%s", code, p.stderr.String())
	}
}

func TestBadSettingExitsNonZero(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary)
	cmd.Env = testnet.Environ("CATALOG_DSN=catalog:pw@tcp(127.0.0.1:1)/wordpress", "CATALOG_NAMESPACE=Bad!",
		"CATALOG_LISTEN="+testnet.FreeAddr(t), "CATALOG_ADMIN_LISTEN="+testnet.FreeAddr(t))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("catalogd with a bad setting still ran after 10s")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Fatalf("exit: %v, want a non-zero exit code; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "CATALOG_NAMESPACE") {
		t.Errorf("stderr does not name CATALOG_NAMESPACE:\n%s", stderr.String())
	}
}

// scrape reads a Prometheus text page into series name → summed value.
func scrape(t *testing.T, client *http.Client, url string) map[string]float64 {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		name, _, _ := strings.Cut(fields[0], "{")
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err == nil {
			out[name] += v
		}
	}
	return out
}
