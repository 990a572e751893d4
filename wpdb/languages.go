package wpdb

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// Translation plugins store translations in three ways; these reads serve
// the default language only and find the default-language product behind a
// translated slug.

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

// WPMLElements returns the element IDs of one type in one language:
// post IDs for post_product, term_taxonomy_ids for tax_product_cat.
func (tx *Tx) WPMLElements(ctx context.Context, elementType, lang string) (map[int64]bool, error) {
	var ids []int64
	if err := tx.selectx(ctx, &ids, `SELECT element_id FROM {icl_translations}
		WHERE element_type = ? AND language_code = ? AND element_id IS NOT NULL`, elementType, lang); err != nil {
		return nil, fmt.Errorf("wpdb: read WPML translations: %w", err)
	}
	set := make(map[int64]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return set, nil
}

// ObjectsOf returns the objects related to a term (Polylang relates a
// category's term_id to its term_language term).
func (tx *Tx) ObjectsOf(ctx context.Context, ttid int64) (map[int64]bool, error) {
	var ids []int64
	if err := tx.selectx(ctx, &ids, `SELECT object_id FROM {term_relationships} WHERE term_taxonomy_id = ?`, ttid); err != nil {
		return nil, fmt.Errorf("wpdb: read term objects: %w", err)
	}
	set := make(map[int64]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return set, nil
}

// WPMLSource finds, for the slug of a published product in another
// language, the slug of its translation in lang.
func (tx *Tx) WPMLSource(ctx context.Context, slug, lang string) (string, bool, error) {
	var out string
	err := tx.getx(ctx, &out, `
		SELECT d.post_name FROM {posts} p
		JOIN {icl_translations} t ON t.element_id = p.ID AND t.element_type = 'post_product'
		JOIN {icl_translations} dt ON dt.trid = t.trid AND dt.element_type = 'post_product' AND dt.language_code = ?
		JOIN {posts} d ON d.ID = dt.element_id AND d.post_type = 'product' AND d.post_status = 'publish'
		WHERE p.post_name = ? AND p.post_type = 'product' AND p.post_status = 'publish' AND t.language_code <> ?
		LIMIT 1`, lang, slug, lang)
	return found(out, err, "WPML translation")
}

// PolylangSource does the same through the product's post_translations
// group, whose description maps language codes to post IDs.
func (tx *Tx) PolylangSource(ctx context.Context, slug, lang string, langTTID int64) (string, bool, error) {
	var groups []string
	if err := tx.selectx(ctx, &groups, `
		SELECT tt.description FROM {posts} p
		JOIN {term_relationships} tr ON tr.object_id = p.ID
		JOIN {term_taxonomy} tt ON tt.term_taxonomy_id = tr.term_taxonomy_id AND tt.taxonomy = 'post_translations'
		WHERE p.post_name = ? AND p.post_type = 'product' AND p.post_status = 'publish'
		  AND p.ID NOT IN (SELECT object_id FROM {term_relationships} WHERE term_taxonomy_id = ?)`, slug, langTTID); err != nil {
		return "", false, fmt.Errorf("wpdb: read Polylang translations: %w", err)
	}
	for _, g := range groups {
		var m map[string]any
		if unserialize(g, &m) != nil {
			continue
		}
		id, ok := m[lang].(int64)
		if !ok {
			continue
		}
		var out string
		err := tx.getx(ctx, &out, `SELECT post_name FROM {posts}
			WHERE ID = ? AND post_type = 'product' AND post_status = 'publish'`, id)
		if s, ok, err := found(out, err, "Polylang translation"); ok || err != nil {
			return s, ok, err
		}
	}
	return "", false, nil
}

// TranslatePressSource finds the original slug of a translated slug: in the
// SEO Pack's slug tables (TranslatePress 2.x), else in the post meta older
// versions kept (_trp_translated_slug_{locale}).
func (tx *Tx) TranslatePressSource(ctx context.Context, slug string) (string, bool, error) {
	var out string
	err := tx.getx(ctx, &out, `
		SELECT so.original FROM {trp_slug_originals} so
		JOIN {trp_slug_translations} st ON st.original_id = so.id
		WHERE st.translated = ? LIMIT 1`, slug)
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1146 { // no such table: an older TranslatePress
		err = tx.getx(ctx, &out, `
			SELECT p.post_name FROM {postmeta} m JOIN {posts} p ON p.ID = m.post_id
			WHERE m.meta_key LIKE '\_trp\_translated\_slug\_%' AND m.meta_value = ?
			  AND p.post_type = 'product' AND p.post_status = 'publish' LIMIT 1`, slug)
	}
	return found(out, err, "TranslatePress slug")
}

func found(s string, err error, what string) (string, bool, error) {
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("wpdb: read %s: %w", what, err)
	}
	return s, s != "", nil
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

// Language is one language a translation plugin has set up.
type Language struct {
	Code string `db:"code"`
	Name string `db:"name"`
}

// WPMLLanguages returns WPML's active languages ({prefix}icl_languages),
// by code.
func (tx *Tx) WPMLLanguages(ctx context.Context) ([]Language, error) {
	var out []Language
	if err := tx.selectx(ctx, &out, `SELECT code, english_name AS name FROM {icl_languages}
		WHERE active = 1 ORDER BY code`); err != nil {
		return nil, fmt.Errorf("wpdb: read WPML languages: %w", err)
	}
	return out, nil
}
