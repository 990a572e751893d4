package catalog_test

import (
	"catalogd/wpopt"
	"context"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/internal/wpfixture"
)

// TestIndexLinksTheSitemapTheShopServes: the index's sitemap is the one
// WordPress really answers for the shop's settings, as stored in the
// database: an active SEO plugin's /sitemap_index.xml while its sitemap is
// on, else WordPress's /wp-sitemap.xml (?sitemap=index under plain
// permalinks) while search engines are welcome, else none; the setting
// overrides.
func TestIndexLinksTheSitemapTheShopServes(t *testing.T) {
	t.Parallel()
	const home = "https://shop.example"
	tests := []struct {
		name       string
		setup      func(s *wpfixture.Shop)
		configured string
		want       string
	}{
		{"WordPress core", func(s *wpfixture.Shop) {}, "", home + "/wp-sitemap.xml"},
		{"WordPress core, plain permalinks", func(s *wpfixture.Shop) { s.SetOption("permalink_structure", "") }, "", home + "/?sitemap=index"},
		{"search engines discouraged: WordPress serves none", func(s *wpfixture.Shop) { s.SetOption("blog_public", "0") }, "", ""},
		{"Yoast SEO", func(s *wpfixture.Shop) { s.EnableYoast(true) }, "", home + "/sitemap_index.xml"},
		{"Yoast SEO on a site hidden from search engines still serves its own", func(s *wpfixture.Shop) {
			s.EnableYoast(true)
			s.SetOption("blog_public", "0")
		}, "", home + "/sitemap_index.xml"},
		{"Yoast SEO with its sitemap off leaves WordPress's", func(s *wpfixture.Shop) { s.EnableYoast(false) }, "", home + "/wp-sitemap.xml"},
		{"Yoast SEO deactivated: its settings are leftovers", func(s *wpfixture.Shop) {
			s.EnableYoast(true)
			s.DeactivatePlugin(wpfixture.YoastPlugin)
		}, "", home + "/wp-sitemap.xml"},
		{"Rank Math", func(s *wpfixture.Shop) { s.EnableRankMath(true) }, "", home + "/sitemap_index.xml"},
		{"Rank Math with its sitemap module off leaves WordPress's", func(s *wpfixture.Shop) { s.EnableRankMath(false) }, "", home + "/wp-sitemap.xml"},
		{"configured", func(s *wpfixture.Shop) { s.EnableYoast(true) }, "https://cdn.example/sitemap.xml", "https://cdn.example/sitemap.xml"},
		{"configured none", func(s *wpfixture.Shop) { s.EnableYoast(true) }, catalog.SitemapNone, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			shop := newShop()
			tt.setup(shop)
			f := load(t, shop)
			cat := catalog.New(f.db, catalog.Config{Now: func() time.Time { return now }, SitemapURL: tt.configured})
			idx, err := cat.Index(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if idx.Sitemap != tt.want {
				t.Errorf("sitemap = %q, want %q", idx.Sitemap, tt.want)
			}
		})
	}
}

// TestSitemapFollowsTheSettings: switching Yoast's sitemap off in the admin
// is seen once the catalog is rebuilt after the change signature moved.
func TestSitemapFollowsTheSettings(t *testing.T) {
	t.Parallel()
	shop := newShop()
	shop.EnableYoast(true)
	f := load(t, shop)
	ctx := context.Background()
	sitemap := func() string {
		t.Helper()
		idx, err := f.cat.Index(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return idx.Sitemap
	}
	if got := sitemap(); got != "https://shop.example/sitemap_index.xml" {
		t.Fatalf("sitemap = %q", got)
	}
	applied := f.follow(t, 50*time.Millisecond)
	if _, err := f.raw.Exec(`UPDATE wp_options SET option_value = REPLACE(option_value, 's:18:"enable_xml_sitemap";b:1;', 's:18:"enable_xml_sitemap";b:0;') WHERE option_name = ?`, wpopt.OptionYoast); err != nil {
		t.Fatal(err)
	}
	// The poll source reads the SEO plugin's option by name.
	select {
	case a := <-applied:
		if !a.Everything {
			t.Errorf("the switch applied as %+v, want everything", a)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the poll source did not see the SEO plugin's sitemap switched off")
	}
	if got := sitemap(); got != "https://shop.example/wp-sitemap.xml" {
		t.Errorf("after the switch: sitemap = %q, want WordPress's", got)
	}
}
