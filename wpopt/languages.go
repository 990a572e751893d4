package wpopt

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Plugin settings live in these serialized options.
const (
	OptionWPML           = "icl_sitepress_settings"
	OptionPolylang       = "polylang"
	OptionTranslatePress = "trp_settings"
)

// DefaultLanguage reads a plugin's default language from its serialized
// settings: WPML's default_language, Polylang's default_lang,
// TranslatePress's default-language (a locale).
func DefaultLanguage(option, raw string) (string, error) {
	key := map[string]string{OptionWPML: "default_language", OptionPolylang: "default_lang",
		OptionTranslatePress: "default-language"}[option]
	var m map[string]any
	if err := unserialize(raw, &m); err != nil {
		return "", fmt.Errorf("%s: %w", option, err)
	}
	v, _ := m[key].(string)
	if v == "" {
		return "", fmt.Errorf("%s: no %s", option, key)
	}
	return v, nil
}

// PolylangSettings are the parts of the polylang option that decide what
// the storefront shows and its URLs (Polylang 3.8's option registry).
type PolylangSettings struct {
	DefaultLang string
	// ForceLang is the URL mode: 0 language set from the content (no
	// language in URLs), 1 directory, 2 subdomain, 3 a domain per language.
	ForceLang   int
	HideDefault bool              // no language in the default language's URLs
	Rewrite     bool              // false: directories are /language/{code}/
	Domains     map[string]string // ForceLang 3: language → home URL
	PostTypes   []string          // custom post types translated ("product")
	Taxonomies  []string          // custom taxonomies translated ("product_cat")
}

// ParsePolylang decodes the polylang option. Missing keys take Polylang's
// defaults (force_lang 1, hide_default and rewrite true).
func ParsePolylang(raw string) (PolylangSettings, error) {
	var m map[string]any
	if err := unserialize(raw, &m); err != nil {
		return PolylangSettings{}, fmt.Errorf("%s: %w", OptionPolylang, err)
	}
	s := PolylangSettings{ForceLang: 1, HideDefault: true, Rewrite: true}
	s.DefaultLang, _ = m["default_lang"].(string)
	if v, ok := m["force_lang"]; ok {
		s.ForceLang = phpInt(v)
	}
	if v, ok := m["hide_default"]; ok {
		s.HideDefault = phpInt(v) != 0
	}
	if v, ok := m["rewrite"]; ok {
		s.Rewrite = phpInt(v) != 0
	}
	s.Domains = phpStringMap(m["domains"])
	s.PostTypes = phpStrings(m["post_types"])
	s.Taxonomies = phpStrings(m["taxonomies"])
	return s, nil
}

// WPMLSettings are the parts of icl_sitepress_settings that decide what the
// storefront shows and its URLs.
type WPMLSettings struct {
	DefaultLanguage string
	// Negotiation is language_negotiation_type: 1 directory, 2 a domain
	// per language, 3 the lang parameter.
	Negotiation int
	// DirectoryForDefault is urls[directory_for_default_language]: the
	// default language has its directory too.
	DirectoryForDefault bool
	Domains             map[string]string // language_domains: language → host
	// PostTypes and Taxonomies are custom_posts_sync_option and
	// taxonomies_sync_option: 0 not translatable, 1 translatable, 2
	// translatable with the default language as fallback.
	PostTypes, Taxonomies map[string]int
}

// ParseWPML decodes icl_sitepress_settings.
func ParseWPML(raw string) (WPMLSettings, error) {
	var m map[string]any
	if err := unserialize(raw, &m); err != nil {
		return WPMLSettings{}, fmt.Errorf("%s: %w", OptionWPML, err)
	}
	s := WPMLSettings{Negotiation: phpInt(m["language_negotiation_type"]),
		Domains: phpStringMap(m["language_domains"])}
	s.DefaultLanguage, _ = m["default_language"].(string)
	if urls, ok := m["urls"].(map[any]any); ok {
		s.DirectoryForDefault = phpInt(urls["directory_for_default_language"]) != 0
	}
	s.PostTypes = phpIntMap(m["custom_posts_sync_option"])
	s.Taxonomies = phpIntMap(m["taxonomies_sync_option"])
	return s, nil
}

// phpInt reads an integer PHP stored as an int, a bool or a numeric string
// ("1"): settings screens save all three.
func phpInt(v any) int {
	switch x := v.(type) {
	case int64:
		return int(x)
	case bool:
		if x {
			return 1
		}
	case string:
		n, _ := strconv.Atoi(strings.TrimSpace(x))
		return n
	case float64:
		return int(x)
	}
	return 0
}

// phpStrings reads the string values of a PHP list, in key order.
func phpStrings(v any) []string {
	m, _ := v.(map[any]any)
	type kv struct {
		k int64
		v string
	}
	var items []kv
	for k, x := range m {
		if s, ok := x.(string); ok {
			ki, _ := k.(int64)
			items = append(items, kv{ki, s})
		}
	}
	slices.SortFunc(items, func(a, b kv) int { return cmp.Compare(a.k, b.k) })
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.v)
	}
	return out
}

func phpStringMap(v any) map[string]string {
	out := map[string]string{}
	m, _ := v.(map[any]any)
	for k, x := range m {
		ks, ok1 := k.(string)
		xs, ok2 := x.(string)
		if ok1 && ok2 {
			out[ks] = xs
		}
	}
	return out
}

func phpIntMap(v any) map[string]int {
	out := map[string]int{}
	m, _ := v.(map[any]any)
	for k, x := range m {
		if ks, ok := k.(string); ok {
			out[ks] = phpInt(x)
		}
	}
	return out
}

// ParseTranslationGroup decodes a Polylang post_translations term's
// description: language code → post ID.
func ParseTranslationGroup(raw string) (map[string]int64, error) {
	var m map[string]any
	if err := unserialize(raw, &m); err != nil {
		return nil, fmt.Errorf("post_translations: %w", err)
	}
	out := make(map[string]int64, len(m))
	for lang, v := range m {
		if id := int64(phpInt(v)); id > 0 {
			out[lang] = id
		}
	}
	return out, nil
}
