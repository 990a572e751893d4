package wpdb

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"catalogd/catalog"
)

// WPML's own tables: its active languages ({prefix}icl_languages), and
// the language and translation group (trid) it files each product and
// product category under ({prefix}icl_translations).

// WPMLLanguages returns WPML's active languages ({prefix}icl_languages),
// by code.
func (tx *Tx) WPMLLanguages(ctx context.Context) ([]catalog.Language, error) {
	var out []catalog.Language
	if err := tx.Select(ctx, &out, `SELECT code, english_name AS name FROM {icl_languages}
		WHERE active = 1 ORDER BY code`); err != nil {
		return nil, fmt.Errorf("wpdb: read WPML languages: %w", err)
	}
	return out, nil
}

// WPMLPosts returns the language and translation group WPML files each of
// the posts under (element_type post_product).
func (tx *Tx) WPMLPosts(ctx context.Context, ids []int64) (map[int64]catalog.WPMLElement, error) {
	out := make(map[int64]catalog.WPMLElement, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		ID   int64  `db:"element_id"`
		Lang string `db:"language_code"`
		TRID int64  `db:"trid"`
	}
	if err := tx.Select(ctx, &rows, `SELECT element_id, language_code, trid FROM {icl_translations}
		WHERE element_type = 'post_product' AND element_id IN (?)`, ids); err != nil {
		return nil, fmt.Errorf("wpdb: read WPML translations: %w", err)
	}
	for _, r := range rows {
		out[r.ID] = catalog.WPMLElement{Language: r.Lang, TRID: r.TRID}
	}
	return out, nil
}

// WPMLAllPosts returns the language and translation group of every product
// WPML files (element_type post_product).
func (tx *Tx) WPMLAllPosts(ctx context.Context) (map[int64]catalog.WPMLElement, error) {
	out := map[int64]catalog.WPMLElement{}
	err := tx.Each(ctx, `SELECT element_id, COALESCE(language_code, ''), trid FROM {icl_translations}
		WHERE element_type = 'post_product' AND element_id IS NOT NULL`, nil, func(rows *sqlx.Rows) error {
		var id, trid int64
		var lang string
		if err := rows.Scan(&id, &lang, &trid); err != nil {
			return err
		}
		out[id] = catalog.WPMLElement{Language: lang, TRID: trid}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("wpdb: read WPML translations: %w", err)
	}
	return out, nil
}

// WPMLTerms returns the language WPML files each product category under,
// by term_taxonomy_id (element_type tax_product_cat).
func (tx *Tx) WPMLTerms(ctx context.Context) (map[int64]string, error) {
	var rows []struct {
		ID   int64  `db:"element_id"`
		Lang string `db:"language_code"`
	}
	if err := tx.Select(ctx, &rows, `SELECT element_id, language_code FROM {icl_translations}
		WHERE element_type = 'tax_product_cat' AND element_id IS NOT NULL`); err != nil {
		return nil, fmt.Errorf("wpdb: read WPML category languages: %w", err)
	}
	out := make(map[int64]string, len(rows))
	for _, r := range rows {
		out[r.ID] = r.Lang
	}
	return out, nil
}
