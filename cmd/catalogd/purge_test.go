package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/internal/edgetest"
	"catalogd/internal/testdb"
)

var kindTags = []string{"shop-index", "shop-categories", "shop-list", "shop-product", "shop-docs"}

// catalogd purges the edge itself: at start every kind (what changed while
// it was down is unknown), then each edit's product tag, within a second
// of the edit; /readyz names the target, and the metrics count it. Through
// either change source: the binary log (a private MariaDB writing one) and
// polling.
func TestEdgePurgedOnChange(t *testing.T) {
	private := testdb.BinlogServer(t)
	for _, source := range []string{"binlog", "poll"} {
		t.Run(source, func(t *testing.T) {
			var dsn string
			if source == "binlog" {
				dsn, _ = testdb.LoadOn(t, private, jobsShop())
			} else {
				dsn, _ = testdb.Load(t, jobsShop())
			}
			edgePurgedOnChange(t, dsn, source)
		})
	}
}

func edgePurgedOnChange(t *testing.T, dsn, source string) {
	raw := testdb.Open(t, dsn)
	varnish := edgetest.NewVarnish(t)
	r := startFaulty(t, dsn, "CATALOG_CHANGES="+source, "CATALOG_POLL_INTERVAL=100ms",
		"CATALOG_PURGE_VARNISH="+varnish.URL)
	r.waitBaseline(t)

	r.poll(t, 5*time.Second, "no purge by kind at start", func() bool { return varnish.Purged(kindTags...) })
	_, body := r.waitReadyz(t, http.StatusOK, 5*time.Second)
	host := strings.TrimPrefix(varnish.URL, "http://")
	if !strings.Contains(body, "purge varnish "+host+": ok") {
		t.Errorf("/readyz does not name the Varnish target as ok:\n%s", body)
	}

	var id int64
	if err := raw.QueryRow(`SELECT ID FROM wp_posts WHERE post_name = 'police-radar'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	tag := fmt.Sprintf("shop-product-%d", id)
	before := varnish.Count()
	edited := time.Now()
	editPrice(t, raw, "police-radar", "33")
	r.poll(t, 5*time.Second, "the edited product's tag not purged", func() bool { return varnish.Purged(tag) })
	t.Logf("%s: the edit's purge reached the recorder %v after the commit", source, time.Since(edited).Round(time.Millisecond))
	t.Logf("/readyz:\n%s", body)
	after, bad := varnish.Since(before), varnish.Bad()
	for _, p := range after {
		// A price edit moves no list: only the product's pages go.
		if slices.Contains(p, "shop-list") {
			t.Errorf("a price edit purged %v: every list page", p)
		}
	}
	if len(bad) > 0 {
		t.Errorf("requests other than PURGE / with xkey: %v", bad)
	}
	// The recorder has the edit's purge before catalogd has its answer
	// and counts it: wait for the counts, bounded.
	names := []string{"catalogd_edge_purge_requests_total", "catalogd_edge_purge_tags_total", "catalogd_edge_purge_lag_seconds_count"}
	m := r.metricsOf(t)
	_ = r.Poll(5*time.Second, func() bool {
		m = r.metricsOf(t)
		for _, name := range names {
			if m[name] < 2 {
				return false
			}
		}
		return true
	})
	for _, name := range names {
		if m[name] < 2 {
			t.Errorf("%s = %v after the start's and the edit's purges", name, m[name])
		}
	}
	if m["catalogd_edge_purge_failures_total"] != 0 {
		t.Errorf("catalogd_edge_purge_failures_total = %v", m["catalogd_edge_purge_failures_total"])
	}
}

// A purge target that fails is reported in /readyz — never a reason for
// catalogd to be unready — and the token of a CDN never shows, in the log,
// /readyz or /metrics.
func TestEdgePurgeFailureReportedNotUnready(t *testing.T) {
	const token = "cf-T0ken-s3cret-abcdef"
	dsn, _ := testdb.Load(t, jobsShop())
	// A stand-in for Cloudflare's API that refuses the token, as the real
	// one answers an invalid token.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"success":false,"errors":[{"code":10000,"message":"Authentication error for %s"}]}`, r.Header.Get("Authorization"))
	}))
	t.Cleanup(api.Close)
	r := startFaulty(t, dsn, "CATALOG_PURGE_CLOUDFLARE_ZONE=023e105f4ecef8ad9ca31a8372d0c353",
		"CATALOG_PURGE_CLOUDFLARE_TOKEN="+token, "CATALOG_PURGE_CLOUDFLARE_API="+api.URL, "CATALOG_LOG_LEVEL=debug")
	r.waitBaseline(t)
	var body string
	r.poll(t, 10*time.Second, "/readyz does not report the refused token", func() bool {
		var status int
		status, body, _ = r.Readyz()
		return status == http.StatusOK && strings.Contains(body, "purge cloudflare: failing") && strings.Contains(body, "401")
	})
	_, text, err := r.Get(r.AdminURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Stderr.String(), "edge purge refused") {
		t.Errorf("the log does not say the purge was refused:\n%s", r.Stderr.String())
	}
	noSecret(t, "/readyz", body, token)
	noSecret(t, "/metrics", text, token)
	noSecret(t, "the log", r.Stderr.String(), token)
	noSecret(t, "stdout", r.Stdout.String(), token)
}
