package wpdb

import (
	"context"
	"reflect"
	"testing"

	"catalogd/catalog"
	"catalogd/internal/wpdbtest"
	"catalogd/internal/wpfixture"
	"catalogd/wpopt"
)

func TestWPMLSettingsAndLanguages(t *testing.T) {
	t.Parallel()
	shop := wpfixture.New("wp_", "https://shop.example")
	shop.EnableWPMLWith(wpfixture.WPMLOptions{Negotiation: 2, DirectoryForDefault: true,
		Domains: map[string]string{"de": "shop.example.de"}, UntranslatedCategories: true}, "en", "de")
	db, _ := openShop(t, shop)
	view(t, db, func(ctx context.Context, tx *Tx) error {
		opts, err := tx.Options(ctx, []string{wpopt.OptionWPML})
		if err != nil {
			return err
		}
		got, err := wpopt.ParseWPML(opts[wpopt.OptionWPML])
		if err != nil {
			return err
		}
		want := wpopt.WPMLSettings{DefaultLanguage: "en", Negotiation: 2, DirectoryForDefault: true,
			Domains:    map[string]string{"de": "shop.example.de"},
			PostTypes:  map[string]int{"product": 1, "product_variation": 1},
			Taxonomies: map[string]int{"product_cat": 0, "product_tag": 1, "product_shipping_class": 1}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ParseWPML = %+v, want %+v", got, want)
		}
		langs, err := tx.WPMLLanguages(ctx)
		if err != nil {
			return err
		}
		// fr and es are in icl_languages, not active.
		if want := []catalog.Language{{Code: "de", Name: "German"}, {Code: "en", Name: "English"}}; !reflect.DeepEqual(langs, want) {
			t.Errorf("WPMLLanguages = %v, want %v", langs, want)
		}
		return nil
	})
}

// wpmlShop is a WPML shop in English and German: a category and a
// product each translated, a product and a draft in English only, and rows
// of other element types beside them.
type wpmlShop struct {
	shop                         *wpfixture.Shop
	alpha, alphaDE               int64 // category term_taxonomy_ids
	radar, radarDE, cuffs, draft int64
}

func newWPMLShop() *wpmlShop {
	s := wpdbtest.NewShop("wp_")
	s.EnableWPML("en", "de")
	w := &wpmlShop{shop: s}
	w.alpha = s.Category("Alpha", "alpha", "", 0).TTID
	w.alphaDE = s.TranslateCategory("alpha", "de", "Alpha DE", "alpha-de", "").TTID
	w.radar = s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "1", Categories: []string{"alpha"}})
	w.radarDE = s.Translate(w.radar, "de", wpfixture.Product{Title: "Radar DE", RegularPrice: "1", Categories: []string{"alpha-de"}})
	w.cuffs = s.Add(wpfixture.Product{Title: "Cuffs", RegularPrice: "1"})
	w.draft = s.Add(wpfixture.Product{Title: "Draft", Status: "draft", RegularPrice: "1"})
	cols := []string{"element_type", "element_id", "trid", "language_code", "source_language_code"}
	// A row WPML keeps for an element it no longer has, a page and a
	// product tag: none is a product or a product category.
	s.Row("icl_translations", cols, "post_product", nil, 900, "fr", nil)
	s.Row("icl_translations", cols, "post_page", 9001, 901, "en", nil)
	s.Row("icl_translations", cols, "tax_product_tag", 9002, 902, "en", nil)
	return w
}

func TestWPMLPosts(t *testing.T) {
	t.Parallel()
	w := newWPMLShop()
	db, _ := openShop(t, w.shop)

	read := func(t *testing.T, ids []int64) map[int64]catalog.WPMLElement {
		t.Helper()
		var got map[int64]catalog.WPMLElement
		view(t, db, func(ctx context.Context, tx *Tx) error {
			var err error
			if ids == nil {
				got, err = tx.WPMLAllPosts(ctx)
			} else {
				got, err = tx.WPMLPosts(ctx, ids)
			}
			return err
		})
		if got == nil {
			t.Error("nil map, want an empty map to read from")
		}
		return got
	}
	// The products' rows, whatever their status: the page's (ID 9001)
	// and the row without an element are not read.
	all := read(t, nil)
	radar, radarDE, cuffs, draft := all[w.radar], all[w.radarDE], all[w.cuffs], all[w.draft]
	if len(all) != 4 || radar.Language != "en" || radarDE.Language != "de" || cuffs.Language != "en" || draft.Language != "en" {
		t.Fatalf("WPMLAllPosts = %v; want radar en, its translation de, cuffs and the draft en, nothing else", all)
	}
	if radar.TRID == 0 || radar.TRID != radarDE.TRID || cuffs.TRID == radar.TRID || cuffs.TRID == draft.TRID {
		t.Errorf("WPMLAllPosts = %v; want radar and its translation in one group, the others apart", all)
	}

	tests := []struct {
		name string
		ids  []int64
		want map[int64]catalog.WPMLElement
	}{
		{"only the asked", []int64{w.radarDE, w.draft}, map[int64]catalog.WPMLElement{w.radarDE: radarDE, w.draft: draft}},
		{"a post WPML does not file is absent", []int64{w.cuffs, 9001, 99999}, map[int64]catalog.WPMLElement{w.cuffs: cuffs}},
		{"none", []int64{}, map[int64]catalog.WPMLElement{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := read(t, tt.ids); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("WPMLPosts(%v) = %v, want %v", tt.ids, got, tt.want)
			}
		})
	}
}

func TestWPMLTerms(t *testing.T) {
	t.Parallel()
	w := newWPMLShop()
	uncategorized := w.shop.TermRef("product_cat", "uncategorized").TTID
	db, _ := openShop(t, w.shop)
	view(t, db, func(ctx context.Context, tx *Tx) error {
		got, err := tx.WPMLTerms(ctx)
		if err != nil {
			return err
		}
		// Product categories by term_taxonomy_id; not the product tag.
		want := map[int64]string{uncategorized: "en", w.alpha: "en", w.alphaDE: "de"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("WPMLTerms = %v, want %v", got, want)
		}
		return nil
	})
}
