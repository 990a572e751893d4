package catalog

import "catalogd/wpopt"

// SitemapNone is the SitemapURL setting that links no sitemap.
const SitemapNone = "none"

// seoSitemaps are the SEO plugins whose sitemap index, at
// /sitemap_index.xml (the contract's path), replaces WordPress's own: each
// switches the core sitemap off (the wp_sitemaps_enabled filter) while its
// own is on, and leaves it on when its own is switched off.
var seoSitemaps = []struct {
	label  string
	files  []string
	option string
	on     func(raw string) (bool, error)
}{
	{"Yoast SEO", []string{"wordpress-seo/wp-seo.php"}, wpopt.OptionYoast, wpopt.YoastSitemapOn},
	{"Rank Math", []string{"seo-by-rank-math/rank-math.php"}, wpopt.OptionRankMathModules, wpopt.RankMathSitemapOn},
}

// sitemapURL is the sitemap index the shop really serves, for the index to
// link: the configured one; else an active SEO plugin's with its sitemap
// on; else WordPress's own (WP_Sitemaps_Index::get_index_url():
// /wp-sitemap.xml, ?sitemap=index under plain permalinks), which WordPress
// serves only while search engines are welcome (blog_public, a missing
// option being off as get_option() gives false); else none: "" (the
// field is optional; a link to a 404 is worse than none).
func (b *builder) sitemapURL(sh *shop, opts map[string]string, active *activePlugins) string {
	switch b.cfg.SitemapURL {
	case "":
	case SitemapNone:
		return ""
	default:
		return b.cfg.SitemapURL
	}
	for _, p := range seoSitemaps {
		if !active.has(p.files) {
			continue
		}
		on, err := p.on(opts[p.option])
		if err != nil {
			// The plugin falls back to its defaults for a damaged option,
			// and so does the parse.
			b.warn(p.label+" settings damaged; taking its default", err)
		}
		if on {
			return sh.home + "/sitemap_index.xml"
		}
	}
	if v, ok := opts["blog_public"]; !ok || v == "0" || v == "" {
		return ""
	}
	if sh.plainPermalinks {
		return sh.home + "/?sitemap=index"
	}
	return sh.home + "/wp-sitemap.xml"
}
