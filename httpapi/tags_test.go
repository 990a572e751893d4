package httpapi_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
)

// rawHeader sends a GET and returns the response's status line and header
// block as they crossed the wire: what nginx's proxy_buffer_size, Apache's
// ResponseFieldSize and Varnish's http_resp_hdr_len/http_resp_size measure.
func rawHeader(t *testing.T, srv *httptest.Server, path string) (block string, h http.Header) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// As a proxy forwards a browser's request: gzip accepted (one more
	// header in the answer), the client's address in X-Forwarded-For.
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: shop.example\r\nAccept-Encoding: gzip\r\nX-Forwarded-For: 203.0.113.9\r\nConnection: close\r\n\r\n", path)
	var b strings.Builder
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: reading the header: %v", path, err)
		}
		b.WriteString(line)
		if line == "\r\n" {
			break
		}
	}
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(b.String())), nil)
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), resp.Header
}

// changeTags applies a change the way the follower does and returns the
// purge tags it named on /changes.
func changeTags(t *testing.T, cat *catalog.Catalog, cache *httpapi.Cache, ch catalog.Change) []string {
	t.Helper()
	a, err := cat.Apply(t.Context(), ch)
	if err != nil {
		t.Fatal(err)
	}
	cache.Apply(a)
	w := httptest.NewRecorder()
	cache.ChangesHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/changes", nil))
	var p struct {
		Changes []struct {
			Tags []string `json:"tags"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || len(p.Changes) == 0 {
		t.Fatalf("/changes after the change: %v %s", err, w.Body)
	}
	return p.Changes[len(p.Changes)-1].Tags
}

// On a shop of 1 000 categories with six-digit post IDs, every response's
// tag header stays within the 2 KB budget and its whole header block
// within nginx's default 4 KB buffer; the categories list is tagged by its
// kind alone. The sizes are logged per kind of response (go test -v).
func TestTagHeadersFitEveryProxy(t *testing.T) {
	shop := wpfixture.ManyCategories(siteURL, 1000, 250)
	dsn, _ := testdb.Load(t, shop)
	db := openDB(t, dsn, "wp_", 10*time.Second)
	for _, mode := range []struct {
		name   string
		header httpapi.TagHeader
		fields []string
	}{
		{"Surrogate-Key", httpapi.TagSurrogateKey, []string{"Surrogate-Key"}},
		{"Cache-Tag", httpapi.TagCacheTag, []string{"Cache-Tag"}},
		{"both", httpapi.TagBoth, []string{"Surrogate-Key", "Cache-Tag"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			cat := catalog.New(db, catalog.Config{Now: func() time.Time { return now }})
			srv := httptest.NewServer(httpapi.NewServer(httpapi.Deps{Catalog: cat, SiteURL: siteURL,
				Cache: httpapi.NewCache(httpapi.DefaultCacheConfig), TagHeader: mode.header,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
			t.Cleanup(srv.Close)
			for _, c := range []struct{ kind, path string }{
				{"index", base + "/catalog"},
				{"categories", base + "/catalog/categories"},
				{"list per_page=50 (the largest)", base + "/catalog/products?per_page=50"},
				{"list per_page=50, a category", base + "/catalog/products?per_page=50&category=kind-0001"},
				{"list per_page=50, sorted, facets", base + "/catalog/products?per_page=50&orderby=price&facets=true"},
				{"product", base + "/catalog/products/server-script-00249"},
				{"404", base + "/catalog/products/no-such-script"},
				{"400", base + "/catalog/products?category=no-such-kind"},
				{"llms.txt", "/llms.txt"},
			} {
				block, h := rawHeader(t, srv, c.path)
				if status := block[9:12]; status != "200" && c.kind != "404" && c.kind != "400" {
					t.Errorf("%s: %s", c.kind, block)
				}
				tags := 0
				for _, f := range []string{"Surrogate-Key", "Cache-Tag"} {
					v := h.Get(f)
					if want := slices.Contains(mode.fields, f); (v != "") != want {
						t.Errorf("%s: %s %q; want it sent: %v", c.kind, f, v, want)
					}
					tags += len(v)
				}
				t.Logf("%-30s tag header(s) %4d bytes, header block %4d bytes", c.kind, tags, len(block))
				if tags > 2048 {
					t.Errorf("%s: %d bytes of tags, past the 2 KB budget", c.kind, tags)
				}
				// nginx's proxy_buffer_size holds the status line and every
				// header; half a kilobyte is left for a longer site URL
				// (three Link headers spell it) and namespace.
				if len(block) > 4096-512 {
					t.Errorf("%s: a header block of %d bytes leaves nginx's 4 KB buffer no room:\n%s", c.kind, len(block), block)
				}
			}
			if got := get(t, srv, base+"/catalog/categories").header.Get(mode.fields[0]); got != "shop-categories" {
				t.Errorf("categories tagged %q, want its kind alone", got)
			}
		})
	}
}

// A list whose product tags would pass the budget carries its kind and the
// overflow tag instead, and a change to any product on it names the
// overflow tag: the page is purged, not left to its TTL. 50 six-digit IDs
// under the longest namespace (32 characters) pass 2 KB.
func TestTagOverflowIsPurged(t *testing.T) {
	shop := wpfixture.ManyCategories(siteURL, 1000, 150)
	dsn, raw := testdb.Load(t, shop)
	db := openDB(t, dsn, "wp_", 10*time.Second)
	cat := catalog.New(db, catalog.Config{Now: func() time.Time { return now }})
	cache := httpapi.NewCache(httpapi.DefaultCacheConfig)
	const ns = "a-long-namespace-of-32-character"
	srv := httptest.NewServer(httpapi.NewServer(httpapi.Deps{Catalog: cat, SiteURL: siteURL, Cache: cache,
		Namespace: ns, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	list := "/wp-json/" + ns + "/v1/catalog/products"

	page := get(t, srv, list+"?per_page=50")
	carried := strings.Fields(page.header.Get("Surrogate-Key"))
	if !slices.Equal(carried, []string{ns + "-list", ns + "-overflow"}) {
		t.Fatalf("list of 50: %d, Surrogate-Key %q, want the kind and the overflow tag", page.status, carried)
	}
	// A smaller page still names its products: a change to another
	// product leaves it at the edge.
	small := strings.Fields(get(t, srv, list+"?per_page=10").header.Get("Surrogate-Key"))
	if len(small) != 11 || slices.Contains(small, ns+"-overflow") {
		t.Errorf("list of 10: Surrogate-Key %q, want its kind and ten products", small)
	}
	// A finding page names no product, so it never overflows.
	sorted := strings.Fields(get(t, srv, list+"?per_page=50&orderby=price").header.Get("Surrogate-Key"))
	if !slices.Equal(sorted, []string{ns + "-list", ns + "-query"}) {
		t.Errorf("sorted list of 50: Surrogate-Key %q, want the kind and the query tag", sorted)
	}

	var id int64
	if err := raw.QueryRow(`SELECT ID FROM wp_posts WHERE post_name = 'server-script-00042'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE wp_postmeta SET meta_value = '99' WHERE post_id = ? AND meta_key IN ('_price', '_regular_price')`, id); err != nil {
		t.Fatal(err)
	}
	named := changeTags(t, cat, cache, catalog.Change{Posts: []int64{id}, Kind: catalog.KindProduct})
	hit := slices.ContainsFunc(carried, func(tag string) bool { return slices.Contains(named, tag) })
	if !hit {
		t.Errorf("a price edit on the list's 43rd product named %q; none is among the list's %q: it stays stale at the edge", named, carried)
	}
	if !slices.Contains(named, ns+"-query") {
		t.Errorf("a price edit named %q: the sorted list stays stale at the edge", named)
	}
	if slices.Contains(named, ns+"-list") {
		t.Errorf("a price edit named every list (%q): the pages without the product are purged too", named)
	}
}

// A 404 carries the miss tag, which publishing a product names: the slug's
// cached 404 is purged at the edge, not served for its minute.
func TestMissIsPurgedWhenPublished(t *testing.T) {
	s := newShop()
	draft := s.Add(wpfixture.Product{Title: "Coming Soon", Slug: "coming-soon", Status: "draft", RegularPrice: "9"})
	dsn, raw := testdb.Load(t, s)
	cat := catalog.New(openDB(t, dsn, "wp_", 5*time.Second), catalog.Config{Now: func() time.Time { return now }})
	cache := httpapi.NewCache(httpapi.DefaultCacheConfig)
	srv := httptest.NewServer(httpapi.NewServer(httpapi.Deps{Catalog: cat, SiteURL: siteURL, Cache: cache,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)

	for _, p := range []string{base + "/catalog/products/coming-soon", base + "/catalog/products?category=nope", base + "/nope"} {
		r := get(t, srv, p)
		if r.status != 404 && r.status != 400 || r.header.Get("Surrogate-Key") != "shop-miss" {
			t.Errorf("%s: %d with Surrogate-Key %q, want a 4xx tagged shop-miss", p, r.status, r.header.Get("Surrogate-Key"))
		}
	}
	if _, err := raw.Exec(`UPDATE wp_posts SET post_status = 'publish' WHERE ID = ?`, draft); err != nil {
		t.Fatal(err)
	}
	named := changeTags(t, cat, cache, catalog.Change{Posts: []int64{draft}, Products: []int64{draft}, Kind: catalog.KindProduct})
	if !slices.Contains(named, "shop-miss") {
		t.Errorf("publishing a product named %q, not shop-miss: its cached 404 stays at the edge", named)
	}
	if r := get(t, srv, base+"/catalog/products/coming-soon"); r.status != 200 {
		t.Errorf("published: %d", r.status)
	}
}

// What a change purges, one answer for the cache and the edge: a change
// to the settings or terms purges every kind; a product's change its own
// tag, the overflow tag, the finding pages' and the index; one that moves
// the lists every list's kind too; a change that altered nothing,
// nothing. The cache drops, and logs, exactly that set.
func TestInvalidatedTags(t *testing.T) {
	kinds := []string{"shop-index", "shop-categories", "shop-list", "shop-product", "shop-docs", "shop-miss", "shop-overflow", "shop-query"}
	tests := []struct {
		name string
		a    catalog.Applied
		want []string
	}{
		{"the settings or terms moved", catalog.Applied{Everything: true}, kinds},
		{"a price", catalog.Applied{Products: []int64{7}}, []string{"shop-product-7", "shop-overflow", "shop-query", "shop-index"}},
		{"a product published", catalog.Applied{Products: []int64{7, 9}, Lists: true},
			[]string{"shop-product-7", "shop-product-9", "shop-overflow", "shop-query", "shop-index", "shop-categories", "shop-list", "shop-docs", "shop-miss"}},
		{"the lists alone", catalog.Applied{Lists: true},
			[]string{"shop-query", "shop-index", "shop-categories", "shop-list", "shop-docs", "shop-miss"}},
		{"nothing that shows", catalog.Applied{}, nil},
	}
	tags := httpapi.NewTags("shop")
	if got := tags.Kinds(); !slices.Equal(got, kinds) {
		t.Errorf("Kinds() = %v, want %v", got, kinds)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tags.Invalidated(tt.a); !slices.Equal(got, tt.want) {
				t.Errorf("Invalidated = %v, want %v", got, tt.want)
			}
			cfg := httpapi.DefaultCacheConfig
			cfg.Namespace = "shop"
			if got := httpapi.NewCache(cfg).Apply(tt.a); !slices.Equal(got, tt.want) {
				t.Errorf("the cache dropped %v, want %v", got, tt.want)
			}
		})
	}
}
