package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

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
