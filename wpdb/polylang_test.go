package wpdb

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"catalogd/internal/wpfixture"
)

// polylangShop is a Polylang shop in English and German: two products
// translated, one not, and a translated category (whose group is a
// term_translations term, not a post group).
type polylangShop struct {
	shop                             *wpfixture.Shop
	radar, radarDE, cuffs, cuffsDE   int64
	lonely                           int64
	radarGroup, cuffsGroup, catGroup int64 // term_taxonomy_ids, known once flushed
}

func newPolylangShop() *polylangShop {
	s := newTestShop("wp_")
	s.EnablePolylang("en", "de")
	p := &polylangShop{shop: s}
	s.Category("Alpha", "alpha", "", 0)
	s.TranslateCategory("alpha", "de", "Alpha DE", "alpha-de", "")
	p.radar = s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "1", Categories: []string{"alpha"}})
	p.radarDE = s.Translate(p.radar, "de", wpfixture.Product{Title: "Radar DE", RegularPrice: "1", Categories: []string{"alpha-de"}})
	p.cuffs = s.Add(wpfixture.Product{Title: "Cuffs", RegularPrice: "1"})
	p.cuffsDE = s.Translate(p.cuffs, "de", wpfixture.Product{Title: "Cuffs DE", RegularPrice: "1"})
	p.lonely = s.Add(wpfixture.Product{Title: "Lonely", RegularPrice: "1"})
	return p
}

// open loads the shop and learns the groups' term_taxonomy_ids, which
// Polylang's groups get when the shop is written.
func (p *polylangShop) open(t *testing.T) (*DB, func(query string, args ...any)) {
	t.Helper()
	db, raw := openShop(t, p.shop)
	group := func(taxonomy, key string) int64 { return p.shop.TermRef(taxonomy, "pll_"+key).TTID }
	p.radarGroup = group("post_translations", fmt.Sprintf("post_%d", p.radar))
	p.cuffsGroup = group("post_translations", fmt.Sprintf("post_%d", p.cuffs))
	p.catGroup = group("term_translations", fmt.Sprintf("tax_%d", p.shop.TermRef("product_cat", "alpha").TTID))
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
	radar := map[string]int64{"en": p.radar, "de": p.radarDE}
	cuffs := map[string]int64{"en": p.cuffs, "de": p.cuffsDE}

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
			p.shop.TermRef("product_type", "simple").TTID}, map[int64]map[string]int64{p.radarGroup: radar}},
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
	untranslated := newTestShop("wp_")
	untranslated.EnablePolylang("en", "de")
	untranslated.Category("Alpha", "alpha", "", 0) // a term_translations group, no post group
	untranslated.Add(wpfixture.Product{Title: "Radar", RegularPrice: "1"})
	tests := []struct {
		name string
		shop *wpfixture.Shop
		want bool
	}{
		{"translated products", newPolylangShop().shop, true},
		{"Polylang, nothing translated", untranslated, false},
		{"never ran Polylang", newProductShop().shop, false},
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
