package wpfixture

import (
	phpserialize "github.com/trim21/go-phpserialize"
)

// SEO plugins' main files, as active_plugins lists them.
const (
	YoastPlugin    = "wordpress-seo/wp-seo.php"
	RankMathPlugin = "seo-by-rank-math/rank-math.php"
)

// EnableYoast activates Yoast SEO with its wpseo settings array as Yoast
// stores it (a few of its keys; enable_xml_sitemap a PHP bool, on unless
// switched off in Settings → Site features).
func (s *Shop) EnableYoast(sitemap bool) {
	s.SetOption("wpseo", Serialize(map[string]any{
		"tracking": false, "enable_xml_sitemap": sitemap, "enable_index_now": true, "version": "23.9",
	}, "tracking", "enable_xml_sitemap", "enable_index_now", "version"))
	s.ActivatePlugin(YoastPlugin)
}

// EnableRankMath activates Rank Math with its rank_math_modules list as the
// setup wizard stores it; the sitemap module is among them unless switched
// off (which array_diff()s it out, leaving a gap in the keys).
func (s *Shop) EnableRankMath(sitemap bool) {
	modules := map[int]string{0: "link-counter", 1: "analytics", 2: "seo-analysis", 3: "sitemap", 4: "rich-snippet"}
	if !sitemap {
		delete(modules, 3)
	}
	b, err := phpserialize.Marshal(modules)
	if err != nil {
		panic(err)
	}
	s.SetOption("rank_math_modules", string(b))
	s.ActivatePlugin(RankMathPlugin)
}
