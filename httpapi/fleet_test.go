package httpapi_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/internal/testdb"
)

// A shop-wide change (a setting, a term) purges every response it may have
// changed, whichever replica filled the edge with it: the replica that
// purges knows only its own cache, and a product page another replica
// served — one since stopped, say — is at the edge all the same. The
// reproduction of issue 32: replica B filled a product page, replica A
// applied a currency change and purged only the pages it held itself.
func TestShopWideChangePurgesEveryReplicasPages(t *testing.T) {
	dsn, _ := testdb.Load(t, newShop())
	db := openDB(t, dsn, "wp_", 2*time.Second)
	clock := func() time.Time { return now }
	replica := func() (*httptest.Server, *httpapi.Cache) {
		cache := newTestCache(clock)
		srv := httptest.NewServer(httpapi.NewServer(httpapi.Deps{Catalog: catalog.New(db, catalog.Config{Now: clock}),
			SiteURL: siteURL, Cache: cache, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
		t.Cleanup(srv.Close)
		return srv, cache
	}
	a, cacheA := replica()
	b, _ := replica()

	// What the edge holds, by who filled it: A a product page and the
	// index, B two other product pages and a list.
	edge := map[string][]string{} // path → its purge tags
	fill := func(srv *httptest.Server, path string) {
		t.Helper()
		r := get(t, srv, path)
		if r.status != 200 {
			t.Fatalf("%s: %d", path, r.status)
		}
		edge[path] = strings.Fields(r.header.Get("Surrogate-Key"))
	}
	fill(a, base+"/catalog/products/car-dealer")
	fill(a, base+"/catalog")
	fill(b, base+"/catalog/products/police-radar")
	fill(b, base+"/catalog/products/gun-shop")
	fill(b, base+"/catalog/products?category=jobs")

	// The currency changes: A applies it (a change of the settings makes
	// the catalog's whole read, and the cache's Invalidate).
	named := cacheA.Invalidate()
	for path, tags := range edge {
		if !slices.ContainsFunc(tags, func(t string) bool { return slices.Contains(named, t) }) {
			t.Errorf("%s (tags %q) stays at the edge in the old currency: the change purged %q", path, tags, named)
		}
	}
	// The kinds name every response: a change names nothing more.
	if want := httpapi.NewTags("shop").Kinds(); !slices.Equal(named, want) {
		t.Errorf("a shop-wide change named %q, want the kinds %q", named, want)
	}
}
