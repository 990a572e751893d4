package wpdb

import (
	"context"
	"fmt"

	"catalogd/wpopt"
)

// Polylang keeps its translation groups as terms: a post_translations
// term per group, whose description is a serialized language → post ID
// array, related to every member.

// PolylangGroups returns Polylang's post_translations groups among the
// terms: term_taxonomy_id → language code → post ID (the group's
// description, a serialized array). A damaged group is left out, as
// Polylang finds no translation in it.
func (tx *Tx) PolylangGroups(ctx context.Context, ttids []int64) (map[int64]map[string]int64, error) {
	if len(ttids) == 0 {
		return map[int64]map[string]int64{}, nil
	}
	return tx.polylangGroups(ctx, ` AND term_taxonomy_id IN (?)`, ttids)
}

// PolylangAllGroups returns every post_translations group, as
// PolylangGroups does those among terms.
func (tx *Tx) PolylangAllGroups(ctx context.Context) (map[int64]map[string]int64, error) {
	return tx.polylangGroups(ctx, ``)
}

// polylangGroups reads the post_translations groups the condition (and
// its arguments) selects.
func (tx *Tx) polylangGroups(ctx context.Context, cond string, args ...any) (map[int64]map[string]int64, error) {
	var rows []struct {
		TTID        int64  `db:"term_taxonomy_id"`
		Description string `db:"description"`
	}
	if err := tx.Select(ctx, &rows, `SELECT term_taxonomy_id, description FROM {term_taxonomy}
		WHERE taxonomy = 'post_translations'`+cond, args...); err != nil {
		return nil, fmt.Errorf("wpdb: read Polylang translations: %w", err)
	}
	out := make(map[int64]map[string]int64, len(rows))
	for _, r := range rows {
		if g, err := wpopt.ParseTranslationGroup(r.Description); err == nil {
			out[r.TTID] = g
		}
	}
	return out, nil
}

// HasPolylangGroups reports whether any post_translations term exists: a
// shop that never ran Polylang has none, and its products' terms need not
// be looked up.
func (tx *Tx) HasPolylangGroups(ctx context.Context) (bool, error) {
	var n []int
	if err := tx.Select(ctx, &n, `SELECT 1 FROM {term_taxonomy} WHERE taxonomy = 'post_translations' LIMIT 1`); err != nil {
		return false, fmt.Errorf("wpdb: look for Polylang translations: %w", err)
	}
	return len(n) > 0, nil
}
