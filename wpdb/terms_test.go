package wpdb

import (
	"context"
	"reflect"
	"testing"

	"catalogd/catalog"
	"catalogd/internal/wpdbtest"
)

func TestTerms(t *testing.T) {
	t.Parallel()
	shop := wpdbtest.NewShop("wp_")
	jobs := shop.Category("Jobs", "jobs", "", 2)
	emergency := shop.Category("Emergency Services", "emergency", "jobs", 0)
	ui := shop.Category("UI & HUD", "ui-hud", "", 1)
	big := shop.Category("Big Order", "big", "", 10)
	jobs2 := shop.Term("product_cat", "Jobs", "jobs-2", emergency.TermID) // same name: term ID breaks the tie
	zeta := shop.Term("product_cat", "Zeta", "zeta", 0)                   // no "order" meta
	dups := shop.Term("product_cat", "Duplicates", "dups", 0)
	shop.TermMeta(dups.TermID, "order", "5")
	shop.TermMeta(dups.TermID, "order", "2")
	negative := shop.Term("product_cat", "Negative", "negative", 0)
	shop.TermMeta(negative.TermID, "order", "-3")
	// Terms whose term_taxonomy_id differs from their term_id, as on a
	// site where the two numberings have drifted apart.
	shop.Row("terms", []string{"term_id", "name", "slug", "term_group"}, 500, "Police", "police", 0)
	shop.Row("term_taxonomy", []string{"term_taxonomy_id", "term_id", "taxonomy", "description", "parent", "count"},
		600, 500, "product_cat", "", emergency.TermID, 0)
	shop.TermMeta(500, "order", "7")
	shop.Row("terms", []string{"term_id", "name", "slug", "term_group"}, 501, "Traffic", "traffic", 0)
	shop.Row("term_taxonomy", []string{"term_taxonomy_id", "term_id", "taxonomy", "description", "parent", "count"},
		601, 501, "product_cat", "", 500, 0)
	tag := shop.Term("product_tag", "Jobs", "jobs-tag", 0)
	large := shop.Term("pa_size", "Large", "large", 0)
	shop.Term("pa1odd", "Odd", "odd", 0) // "_" is no wildcard in the pattern
	postCat := shop.TermRef("category", "uncategorized")
	prodUnc := shop.TermRef("product_cat", "uncategorized")
	db, _ := openShop(t, shop)

	cat := func(ref struct{ TermID, TTID int64 }, slug, name string, parent, order int64) catalog.Term {
		return catalog.Term{TTID: ref.TTID, TermID: ref.TermID, Taxonomy: "product_cat", Slug: slug, Name: name, Parent: parent, Order: order}
	}
	fw := func(slug, name string, order int64) catalog.Term {
		ref := shop.TermRef("pa_framework", slug)
		return catalog.Term{TTID: ref.TTID, TermID: ref.TermID, Taxonomy: "pa_framework", Slug: slug, Name: name, Order: order}
	}
	productCats := []catalog.Term{
		cat(big, "big", "Big Order", 0, 10),
		cat(dups, "dups", "Duplicates", 0, 2),
		cat(emergency, "emergency", "Emergency Services", jobs.TermID, 0),
		cat(jobs, "jobs", "Jobs", 0, 2),
		cat(jobs2, "jobs-2", "Jobs", emergency.TermID, 0),
		cat(negative, "negative", "Negative", 0, -3),
		{TTID: 600, TermID: 500, Taxonomy: "product_cat", Slug: "police", Name: "Police", Parent: emergency.TermID, Order: 7},
		{TTID: 601, TermID: 501, Taxonomy: "product_cat", Slug: "traffic", Name: "Traffic", Parent: 500},
		cat(ui, "ui-hud", "UI &amp; HUD", 0, 1),
		cat(prodUnc, "uncategorized", "Uncategorized", 0, 0),
		cat(zeta, "zeta", "Zeta", 0, 0),
	}
	frameworks := []catalog.Term{fw("esx", "ESX", 0), fw("qbcore", "QBCore", 1), fw("qbox", "Qbox", 2), fw("standalone", "Standalone", 3)}

	tests := []struct {
		name       string
		taxonomies []string
		like       string
		want       []catalog.Term
	}{
		{"product categories", []string{"product_cat"}, "", productCats},
		{"post categories only", []string{"category"}, "", []catalog.Term{
			{TTID: postCat.TTID, TermID: postCat.TermID, Taxonomy: "category", Slug: "uncategorized", Name: "Uncategorized"},
		}},
		{"attribute terms", []string{"pa_framework"}, "", frameworks},
		{"tags", []string{"product_tag"}, "", []catalog.Term{
			{TTID: tag.TTID, TermID: tag.TermID, Taxonomy: "product_tag", Slug: "jobs-tag", Name: "Jobs"},
		}},
		{"no such taxonomy", []string{"pa_color"}, "", nil},
		{"tags and every attribute's (Reads.TaxonomyLike)", []string{"product_tag"}, `pa\_%`, []catalog.Term{
			frameworks[0],
			{TTID: tag.TTID, TermID: tag.TermID, Taxonomy: "product_tag", Slug: "jobs-tag", Name: "Jobs"},
			{TTID: large.TTID, TermID: large.TermID, Taxonomy: "pa_size", Slug: "large", Name: "Large"},
			frameworks[1], frameworks[2], frameworks[3],
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view(t, db, func(ctx context.Context, tx *Tx) error {
				got, err := tx.Terms(ctx, tt.taxonomies, tt.like)
				if err != nil {
					return err
				}
				if len(got) == 0 && len(tt.want) == 0 {
					return nil
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("Terms(%q):\n got %+v\nwant %+v", tt.taxonomies, got, tt.want)
				}
				return nil
			})
		})
	}

	t.Run("several taxonomies", func(t *testing.T) {
		view(t, db, func(ctx context.Context, tx *Tx) error {
			got, err := tx.Terms(ctx, []string{"product_cat", "pa_framework"}, "")
			if err != nil {
				return err
			}
			if len(got) != len(productCats)+len(frameworks) {
				t.Errorf("Terms(product_cat, pa_framework) returned %d terms, want %d", len(got), len(productCats)+len(frameworks))
			}
			for _, term := range got {
				if term.Taxonomy != "product_cat" && term.Taxonomy != "pa_framework" {
					t.Errorf("term %+v of an unasked taxonomy", term)
				}
				if term.TTID == postCat.TTID {
					t.Errorf("the post category %+v is returned", term)
				}
			}
			return nil
		})
	})
}
