package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
)

func TestAPICatalog(t *testing.T) {
	srv := serve(t, openDB(t, loadShop(t), "wp_", 5*time.Second), "shop")
	r := get(t, srv, "/.well-known/api-catalog")
	if r.status != 200 || r.header.Get("Content-Type") != "application/linkset+json" {
		t.Fatalf("status %d, Content-Type %q", r.status, r.header.Get("Content-Type"))
	}
	// RFC 9264 JSON: {"linkset": [{"anchor": ..., "<relation>": [{"href": ...}]}]}
	var ls struct {
		Linkset []map[string]json.RawMessage `json:"linkset"`
	}
	if err := json.Unmarshal(r.body, &ls); err != nil || len(ls.Linkset) != 1 {
		t.Fatalf("not a linkset: %v: %s", err, r.body)
	}
	ctx := ls.Linkset[0]
	var anchor string
	json.Unmarshal(ctx["anchor"], &anchor)
	if anchor != siteURL+base {
		t.Errorf("anchor = %q, want the API base %s", anchor, siteURL+base)
	}
	var desc []struct{ Href, Type string }
	if err := json.Unmarshal(ctx["service-desc"], &desc); err != nil {
		t.Fatalf("service-desc: %v", err)
	}
	hrefs := []string{}
	for _, d := range desc {
		hrefs = append(hrefs, d.Href)
	}
	if strings.Join(hrefs, " ") != siteURL+"/openapi.json "+siteURL+"/.well-known/openapi.json" {
		t.Errorf("service-desc = %v", hrefs)
	}
	for rel, targets := range ctx {
		if rel == "anchor" {
			continue
		}
		var ts []map[string]any
		if err := json.Unmarshal(targets, &ts); err != nil || len(ts) == 0 || ts[0]["href"] == nil {
			t.Errorf("relation %s is not an array of target objects: %s", rel, targets)
		}
	}
	h := do(t, srv, http.MethodHead, "/.well-known/api-catalog", nil)
	if h.status != 200 || len(h.body) != 0 || !strings.Contains(strings.Join(h.header.Values("Link"), ", "), `/.well-known/api-catalog>; rel="api-catalog"`) {
		t.Errorf("HEAD: %d, Link %q", h.status, h.header.Values("Link"))
	}
}

// llms.txt is generated from the live catalog: a category added in the
// database shows once the cache is cleared.
func TestLLMsTxt(t *testing.T) {
	c := serveCached(t, newShop(), func() time.Time { return now })
	r := get(t, c.srv, "/llms.txt")
	body := string(r.body)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/markdown") {
		t.Fatalf("status %d, Content-Type %q", r.status, r.header.Get("Content-Type"))
	}
	for _, want := range []string{"# Script Shop\n", "\n> ", "## API", base + "/catalog/products", "per_page",
		"## Categories", "[Police](" + siteURL + "/product-category/jobs/police/): 1 product", "esx, qbcore, qbox, standalone",
		siteURL + "/openapi.json", "[Sitemap](" + siteURL + "/wp-sitemap.xml)", "one language the API serves",
		"## Finding products", "- `search`: ", "at most 200 characters", "`orderby`: id, relevance, date", "plain decimals in USD",
		"`facets=true`", base + "/catalog/products?search=radar&"} {
		if !strings.Contains(body, want) {
			t.Errorf("llms.txt lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "Empty") || strings.Contains(body, "Hidden Gem") {
		t.Errorf("llms.txt shows what a visitor cannot see:\n%s", body)
	}
	// Every link into the API answers 200: the single-product operation is
	// shown as a URI template in a code span, its link a real product's.
	links := regexp.MustCompile(`\]\(([^)]*)\)`).FindAllStringSubmatch(body, -1)
	one := 0
	for _, l := range links {
		if strings.ContainsAny(l[1], "{}") {
			t.Errorf("llms.txt links a URI template: %s", l[1])
		}
		path, ok := strings.CutPrefix(l[1], siteURL+base)
		if !ok {
			continue
		}
		if strings.HasPrefix(path, "/catalog/products/") {
			one++
		}
		if r := get(t, c.srv, base+path); r.status != 200 {
			t.Errorf("llms.txt links %s, which answers %d %s", l[1], r.status, r.body)
		}
	}
	if one != 1 || !strings.Contains(body, "`"+siteURL+base+"/catalog/products/{slug}`") {
		t.Errorf("llms.txt does not show the single-product template with one product's link (%d):\n%s", one, body)
	}

	// A new category holding a product appears once the caches are cleared
	// (the change poller does that in production; here the test does).
	for _, q := range []string{
		`INSERT INTO wp_terms (term_id, name, slug, term_group) VALUES (900, 'Heists', 'heists', 0)`,
		`INSERT INTO wp_term_taxonomy (term_taxonomy_id, term_id, taxonomy, description, parent, count) VALUES (900, 900, 'product_cat', '', 0, 1)`,
		`INSERT INTO wp_term_relationships (object_id, term_taxonomy_id) SELECT ID, 900 FROM wp_posts WHERE post_name = 'car-dealer'`,
	} {
		if _, err := c.raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(string(get(t, c.srv, "/llms.txt").body), "Heists") {
		t.Error("the cached llms.txt changed before the cache was cleared")
	}
	// What the change follower does when the feed reports a term change.
	if err := c.cat.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.cache.Invalidate()
	if body := string(get(t, c.srv, "/llms.txt").body); !strings.Contains(body, "[Heists]("+siteURL+"/product-category/heists/): 1 product") {
		t.Errorf("new category missing after the cache was cleared:\n%s", body)
	}
}

// The index links every companion document.
func TestIndexLinksDocuments(t *testing.T) {
	srv := serve(t, openDB(t, loadShop(t), "wp_", 5*time.Second), "shop")
	var idx map[string]any
	json.Unmarshal(get(t, srv, base+"/catalog").body, &idx)
	for key, want := range map[string]string{"openapi": siteURL + "/openapi.json", "llms_txt": siteURL + "/llms.txt",
		"sitemap": siteURL + "/wp-sitemap.xml"} {
		if idx[key] != want {
			t.Errorf("%s = %v, want %s", key, idx[key], want)
		}
		if key != "sitemap" {
			if r := get(t, srv, strings.TrimPrefix(want, siteURL)); r.status != 200 {
				t.Errorf("%s answers %d", want, r.status)
			}
		}
	}
}

// Shop-controlled text in llms.txt stays text: a category or shop name
// cannot add a link, a heading or a list item, and every link goes to an
// http(s) URL (or a site-relative one), whatever the home option holds.
func TestLLMsTxtEscapesShopText(t *testing.T) {
	const evil = "](javascript:alert(1)) [x"
	tests := []struct {
		name, home, site string
		wantPrefix       []string // every link destination starts with one
	}{
		{"site URL configured", siteURL, siteURL, []string{siteURL + "/"}},
		{"home option is javascript:", "javascript:alert(1)//", "", []string{"/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shop := wpfixture.New("wp_", tt.home)
			shop.Now = now
			shop.SetOption("blogname", "Evil"+evil+"\n# Owned\n- [y](javascript:alert(2))")
			shop.SetOption("blogdescription", "<script>alert(3)</script> *all* `scripts`")
			shop.Category(evil, "evil", "", 0)
			shop.Category("Space (and) more", "space-and-more", "", 1)
			shop.Add(wpfixture.Product{Title: "P", RegularPrice: "1", Categories: []string{"evil", "space-and-more"}})
			dsn, _ := testdb.Load(t, shop)
			cat := catalog.New(openDB(t, dsn, "wp_", 5*time.Second), catalog.Config{SiteURL: tt.site, Now: func() time.Time { return now }})
			srv := httptest.NewServer(httpapi.NewServer(httpapi.Deps{Catalog: cat, SiteURL: tt.site,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
			t.Cleanup(srv.Close)
			r := get(t, srv, "/llms.txt")
			body := string(r.body)
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, body)
			}
			dests := regexp.MustCompile(`(?:^|[^\\])\]\(([^)]*)\)`).FindAllStringSubmatch(body, -1)
			if len(dests) < 5 {
				t.Fatalf("only %d links:\n%s", len(dests), body)
			}
			for _, d := range dests {
				if !slices.ContainsFunc(tt.wantPrefix, func(p string) bool { return strings.HasPrefix(d[1], p) }) ||
					strings.HasPrefix(d[1], "//") {
					t.Errorf("link to %q:\n%s", d[1], body)
				}
			}
			for _, line := range strings.Split(body, "\n") {
				if strings.HasPrefix(line, "# ") && !strings.HasPrefix(line, "# Evil") || strings.Contains(line, "<script>") ||
					strings.HasPrefix(line, "- [y]") {
					t.Errorf("shop text became Markdown: %q", line)
				}
			}
			if !strings.Contains(body, `[\]\(javascript:alert\(1\)\) \[x](`) && !strings.Contains(body, `- \]\(javascript:alert\(1\)\) \[x:`) {
				t.Errorf("the evil category is not shown as escaped text:\n%s", body)
			}
		})
	}
}

// A shop that serves no sitemap (search engines discouraged, no SEO
// plugin) gets no sitemap link: not in the index, not in llms.txt.
func TestNoSitemapNoLink(t *testing.T) {
	shop := newShop()
	shop.SetOption("blog_public", "0")
	c := serveCached(t, shop, func() time.Time { return now })
	var idx map[string]any
	if err := json.Unmarshal(get(t, c.srv, base+"/catalog").body, &idx); err != nil {
		t.Fatal(err)
	}
	if v, ok := idx["sitemap"]; ok {
		t.Errorf("index sitemap = %v, want none", v)
	}
	if body := string(get(t, c.srv, "/llms.txt").body); strings.Contains(body, "Sitemap") || strings.Contains(body, "sitemap") {
		t.Errorf("llms.txt names a sitemap:\n%s", body)
	}
}
