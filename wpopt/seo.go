package wpopt

import (
	"fmt"
	"slices"
)

// The settings of the SEO plugins whose XML sitemap replaces WordPress's
// own (/wp-sitemap.xml): both switch the core sitemap off while theirs is
// on, and serve theirs at /sitemap_index.xml.
const (
	// OptionYoast is Yoast SEO's main settings array; its
	// enable_xml_sitemap key switches the sitemap (default on).
	OptionYoast = "wpseo"
	// OptionRankMathModules is Rank Math's list of active modules; the
	// sitemap is the "sitemap" module.
	OptionRankMathModules = "rank_math_modules"
)

// YoastSitemapOn reads enable_xml_sitemap from Yoast SEO's wpseo option as
// WPSEO_Options::get() does: a missing option or key is Yoast's default,
// on; any PHP-falsy value is off.
func YoastSitemapOn(raw string) (bool, error) {
	if raw == "" {
		return true, nil
	}
	var m map[string]any
	if err := unserialize(raw, &m); err != nil {
		return true, fmt.Errorf("%s: %w", OptionYoast, err)
	}
	v, ok := m["enable_xml_sitemap"]
	if !ok {
		return true, nil
	}
	return phpTruthy(v), nil
}

// RankMathSitemapOn reports whether Rank Math's sitemap module is active:
// "sitemap" in the rank_math_modules list, as Helper::is_module_active()
// checks it. A missing option lists no module.
func RankMathSitemapOn(raw string) (bool, error) {
	if raw == "" {
		return false, nil
	}
	var m map[any]any
	if err := unserialize(raw, &m); err != nil {
		return false, fmt.Errorf("%s: %w", OptionRankMathModules, err)
	}
	return slices.Contains(phpStrings(m), "sitemap"), nil
}

// phpTruthy is PHP's boolean conversion of an unserialized scalar.
func phpTruthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case int64:
		return x != 0
	case float64:
		return x != 0
	case string:
		return x != "" && x != "0"
	case nil:
		return false
	}
	return true // a non-empty array
}
