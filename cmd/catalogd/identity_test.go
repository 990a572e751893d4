package main

import (
	"net/http"
	"testing"
	"time"

	"catalogd/httpapi"
	"catalogd/internal/testdb"
)

// Two replicas of one shop given the site URL with and without a trailing
// slash answer alike, so they send one Catalog-Snapshot identity: else
// each start of one beside the other would purge every kind at the edge.
func TestSiteURLSpellingKeepsTheIdentity(t *testing.T) {
	dsn, _ := testdb.Load(t, jobsShop())
	identity := func(site string) string {
		t.Helper()
		r := startFaulty(t, dsn, "CATALOG_SITE_URL="+site)
		r.waitReadyz(t, http.StatusOK, 20*time.Second)
		resp, err := r.Client.Get(r.API + "/catalog")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		id := resp.Header.Get(httpapi.SnapshotHeader)
		if resp.StatusCode != http.StatusOK || id == "" {
			t.Fatalf("the index with --site-url %s: %d, identity %q", site, resp.StatusCode, id)
		}
		return id
	}
	if bare, slashed := identity("https://shop.example"), identity("https://shop.example/"); bare != slashed {
		t.Errorf("--site-url https://shop.example sends identity %s, https://shop.example/ %s: want one", bare, slashed)
	}
}
