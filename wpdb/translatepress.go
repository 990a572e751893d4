package wpdb

import (
	"context"
	"fmt"
	"strings"
)

// TranslatedSlugs returns TranslatePress's translated slugs and their
// originals: from the SEO Pack's slug tables (TranslatePress 2.x) when
// present, else from the post meta older versions kept
// (_trp_translated_slug_{locale}).
func (tx *Tx) TranslatedSlugs(ctx context.Context, tables bool) (map[string]string, error) {
	var rows []struct {
		Translated string `db:"translated"`
		Original   string `db:"original"`
	}
	q := `SELECT m.meta_value AS translated, p.post_name AS original FROM {postmeta} m JOIN {posts} p ON p.ID = m.post_id
		WHERE m.meta_key LIKE '\_trp\_translated\_slug\_%' AND p.post_type = 'product' AND p.post_status = 'publish'
		ORDER BY m.meta_id`
	if tables {
		q = `SELECT st.translated, so.original FROM {trp_slug_originals} so
			JOIN {trp_slug_translations} st ON st.original_id = so.id ORDER BY st.id`
	}
	if err := tx.Select(ctx, &rows, q); err != nil {
		return nil, fmt.Errorf("wpdb: read TranslatePress slugs: %w", err)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		if _, ok := out[r.Translated]; !ok && strings.TrimSpace(r.Translated) != "" {
			out[r.Translated] = r.Original
		}
	}
	return out, nil
}
