package wpdb

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"catalogd/internal/wpdbtest"
	"catalogd/internal/wpfixture"
)

// polylangShop is wpdbtest's Polylang shop, with its translation groups'
// term_taxonomy_ids (a category's group is a term_translations term, not
// a post group), known once flushed.
type polylangShop struct {
	*wpdbtest.Polylang
	radarGroup, cuffsGroup, catGroup int64
}

func newPolylangShop() *polylangShop { return &polylangShop{Polylang: wpdbtest.NewPolylang()} }

// open loads the shop and learns the groups' term_taxonomy_ids, which
// Polylang's groups get when the shop is written.
func (p *polylangShop) open(t *testing.T) (*DB, func(query string, args ...any)) {
	t.Helper()
	db, raw := openShop(t, p.Shop)
	group := func(taxonomy, key string) int64 { return p.Shop.TermRef(taxonomy, "pll_"+key).TTID }
	p.radarGroup = group("post_translations", fmt.Sprintf("post_%d", p.Radar))
	p.cuffsGroup = group("post_translations", fmt.Sprintf("post_%d", p.Cuffs))
	p.catGroup = group("term_translations", fmt.Sprintf("tax_%d", p.Shop.TermRef("product_cat", "alpha").TTID))
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := raw.ExecContext(context.Background(), query, args...); err != nil {
			t.Fatal(err)
		}
	}
	return db, exec
}

func TestPolylangGroups(t *testing.T) {
	t.Parallel()
	p := newPolylangShop()
	db, exec := p.open(t)
	// A group whose description was cut short: Polylang finds no
	// translation in it, and neither does catalogd.
	exec(`INSERT INTO wp_terms (term_id, name, slug) VALUES (9000, 'pll_broken', 'pll_broken')`)
	exec(`INSERT INTO wp_term_taxonomy (term_taxonomy_id, term_id, taxonomy, description, parent, count)
		VALUES (9000, 9000, 'post_translations', 'a:2:{s:2:"en";i:1;s:2:"de"', 0, 2)`)
	radar := map[string]int64{"en": p.Radar, "de": p.RadarDE}
	cuffs := map[string]int64{"en": p.Cuffs, "de": p.CuffsDE}

	tests := []struct {
		name  string
		all   bool // PolylangAllGroups
		ttids []int64
		want  map[int64]map[string]int64
	}{
		{"only the listed", false, []int64{p.cuffsGroup}, map[int64]map[string]int64{p.cuffsGroup: cuffs}},
		// A product's terms hold its category and type besides its
		// group: only post_translations terms are groups.
		{"other terms of the products are no groups", false, []int64{p.radarGroup, p.catGroup,
			p.Shop.TermRef("product_type", "simple").TTID}, map[int64]map[string]int64{p.radarGroup: radar}},
		{"every group but the damaged one", true, nil, map[int64]map[string]int64{p.radarGroup: radar, p.cuffsGroup: cuffs}},
		{"a damaged group is left out", false, []int64{9000, p.radarGroup}, map[int64]map[string]int64{p.radarGroup: radar}},
		{"no terms, no groups", false, nil, map[int64]map[string]int64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view(t, db, func(ctx context.Context, tx *Tx) error {
				read := func(ctx context.Context) (map[int64]map[string]int64, error) {
					return tx.PolylangGroups(ctx, tt.ttids)
				}
				if tt.all {
					read = tx.PolylangAllGroups
				}
				got, err := read(ctx)
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("all %v, PolylangGroups(%v) = %v, want %v", tt.all, tt.ttids, got, tt.want)
				}
				return nil
			})
		})
	}
}

func TestHasPolylangGroups(t *testing.T) {
	t.Parallel()
	untranslated := wpdbtest.NewShop("wp_")
	untranslated.EnablePolylang("en", "de")
	untranslated.Category("Alpha", "alpha", "", 0) // a term_translations group, no post group
	untranslated.Add(wpfixture.Product{Title: "Radar", RegularPrice: "1"})
	tests := []struct {
		name string
		shop *wpfixture.Shop
		want bool
	}{
		{"translated products", newPolylangShop().Shop, true},
		{"Polylang, nothing translated", untranslated, false},
		{"never ran Polylang", wpdbtest.NewProducts().Shop, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db, _ := openShop(t, tt.shop)
			view(t, db, func(ctx context.Context, tx *Tx) error {
				got, err := tx.HasPolylangGroups(ctx)
				if err != nil {
					return err
				}
				if got != tt.want {
					t.Errorf("HasPolylangGroups = %v, want %v", got, tt.want)
				}
				return nil
			})
		})
	}
}
