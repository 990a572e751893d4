package wpdb

import (
	"context"
	"reflect"
	"testing"

	"catalogd/internal/wpdbtest"
	"catalogd/internal/wpfixture"
)

func TestTranslatedSlugs(t *testing.T) {
	t.Parallel()

	// TranslatePress 2.x with the SEO Pack: the slug tables.
	tables := func() *wpfixture.Shop {
		tables := wpdbtest.NewShop("wp_")
		tables.EnableTranslatePress("en_US", "de_DE", "fr_FR")
		tables.Add(wpfixture.Product{Title: "Radar", RegularPrice: "1"})
		tables.Add(wpfixture.Product{Title: "Cuffs", RegularPrice: "1"})
		tables.TranslateSlug("radar", "de_DE", "radargeraet")
		tables.TranslateSlug("radar-2", "fr_FR", "radar-fr")
		tables.TranslateSlug("cuffs", "de_DE", "handschellen")
		// Two originals translated alike: the first translation stored wins.
		tables.TranslateSlug("cuffs-old", "de_DE", "handschellen")
		// A slug whose translation was cleared.
		tables.TranslateSlug("badge", "de_DE", " ")
		return tables
	}

	// Older versions: the _trp_translated_slug_{locale} meta of products.
	meta := func() *wpfixture.Shop {
		meta := wpdbtest.NewShop("wp_")
		meta.EnableTranslatePress("en_US", "de_DE")
		radar := meta.Add(wpfixture.Product{Title: "Radar", RegularPrice: "1"})
		cuffs := meta.Add(wpfixture.Product{Title: "Cuffs", RegularPrice: "1"})
		draft := meta.Add(wpfixture.Product{Title: "Draft", Slug: "draft", Status: "draft", RegularPrice: "1"})
		trashed := meta.Add(wpfixture.Product{Title: "Trashed", Status: "trash", RegularPrice: "1"})
		meta.PostMeta(radar, "_trp_translated_slug_de_DE", "radargeraet")
		meta.PostMeta(radar, "_trp_translated_slug_fr_FR", "radar-fr")
		meta.PostMeta(cuffs, "_trp_translated_slug_de_DE", "handschellen")
		meta.PostMeta(cuffs, "_trp_translated_slug_fr_FR", "")
		// Not a translated slug: the underscores of the key are no wildcards.
		meta.PostMeta(cuffs, "xtrp_translated_slug_de_DE", "not-a-slug")
		// A draft's or a trashed product's slug is no product URL to map.
		meta.PostMeta(draft, "_trp_translated_slug_de_DE", "entwurf")
		meta.PostMeta(trashed, "_trp_translated_slug_de_DE", "papierkorb")
		// A page's neither.
		wpdbtest.RawPost(meta, 9001, "page", "publish", "about-us")
		meta.PostMeta(9001, "_trp_translated_slug_de_DE", "ueber-uns")
		// A later product with a translated slug another already has: the
		// first row stored wins.
		radar2 := meta.Add(wpfixture.Product{Title: "Radar Two", RegularPrice: "1"})
		meta.PostMeta(radar2, "_trp_translated_slug_de_DE", "radargeraet")
		return meta
	}

	tests := []struct {
		name   string
		shop   func() *wpfixture.Shop // each subtest loads its own
		tables bool
		want   map[string]string
	}{
		{"slug tables", tables, true, map[string]string{"radargeraet": "radar", "radar-fr": "radar-2",
			"handschellen": "cuffs"}},
		{"post meta", meta, false, map[string]string{"radargeraet": "radar", "radar-fr": "radar",
			"handschellen": "cuffs"}},
		// A shop that had the tables, read as if it had not: nothing
		// in its meta.
		{"slug tables' shop read from the meta", tables, false, map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db, _ := openShop(t, tt.shop())
			view(t, db, func(ctx context.Context, tx *Tx) error {
				got, err := tx.TranslatedSlugs(ctx, tt.tables)
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("TranslatedSlugs(%v) = %v, want %v", tt.tables, got, tt.want)
				}
				return nil
			})
		})
	}
}
