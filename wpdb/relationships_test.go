package wpdb

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"catalogd/internal/wpdbtest"
	"catalogd/internal/wpfixture"
)

func TestRelationships(t *testing.T) {
	t.Parallel()
	shop := wpdbtest.NewShop("wp_")
	alpha := shop.Category("Alpha", "alpha", "", 0).TTID
	beta := shop.Category("Beta", "beta", "", 0).TTID
	simpleType := shop.TermRef("product_type", "simple").TTID
	variableType := shop.TermRef("product_type", "variable").TTID
	featured := shop.TermRef("product_visibility", "featured").TTID
	outOfStock := shop.TermRef("product_visibility", "outofstock").TTID
	esx := shop.TermRef("pa_framework", "esx").TTID
	qbcore := shop.TermRef("pa_framework", "qbcore").TTID
	uncategorized := shop.TermRef("product_cat", "uncategorized").TTID

	radar := shop.Add(wpfixture.Product{Title: "Radar", RegularPrice: "1", Categories: []string{"alpha", "beta"},
		Frameworks: []string{"esx"}, Featured: true})
	cuffs := shop.Add(wpfixture.Product{Title: "Cuffs", RegularPrice: "1", StockStatus: "outofstock"})
	bundle := shop.Add(wpfixture.Product{Title: "Bundle", Type: "variable", Categories: []string{"beta"},
		Variations: []wpfixture.Variation{{Framework: "qbcore", RegularPrice: "2"}}})
	db, _ := openShop(t, shop)

	tests := []struct {
		name string
		ids  []int64
		want map[int64][]int64
	}{
		{"grouped per object", []int64{radar, cuffs, bundle}, map[int64][]int64{
			radar:  {alpha, beta, simpleType, featured, esx},
			cuffs:  {uncategorized, simpleType, outOfStock},
			bundle: {beta, variableType, qbcore},
		}},
		{"only the asked", []int64{cuffs}, map[int64][]int64{cuffs: {uncategorized, simpleType, outOfStock}}},
		{"a post without terms is absent", []int64{bundle + 1, 99999}, map[int64][]int64{}},
		{"none", nil, map[int64][]int64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view(t, db, func(ctx context.Context, tx *Tx) error {
				got, err := tx.Relationships(ctx, tt.ids)
				if err != nil {
					return err
				}
				if got == nil {
					t.Errorf("Relationships(%v) = nil map", tt.ids)
				}
				for id := range got {
					slices.Sort(got[id])
				}
				want := map[int64][]int64{}
				for id, ttids := range tt.want {
					want[id] = wpdbtest.SortedIDs(ttids)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("Relationships(%v) = %v, want %v", tt.ids, got, want)
				}
				return nil
			})
		})
	}
}

func TestPublishedRelationships(t *testing.T) {
	t.Parallel()
	p := wpdbtest.NewProducts()
	s := p.Shop
	simpleType := s.TermRef("product_type", "simple").TTID
	qbox := s.TermRef("pa_framework", "qbox").TTID
	standalone := s.TermRef("pa_framework", "standalone").TTID
	// A blog post in the posts' own "uncategorized" category.
	s.Relate(9002, s.TermRef("category", "uncategorized"))
	db, _ := openShop(t, s)

	var got map[int64][]int64
	view(t, db, func(ctx context.Context, tx *Tx) error {
		var err error
		got, err = tx.PublishedRelationships(ctx)
		return err
	})
	for id := range got {
		slices.Sort(got[id])
	}
	// Every published product's terms, and nothing of the drafts,
	// private, pending, scheduled or trashed products (all in alpha), the
	// variations or the blog post.
	want := map[int64][]int64{
		p.Radar:  wpdbtest.SortedIDs([]int64{p.Alpha, simpleType, p.ESX}),
		p.Cuffs:  wpdbtest.SortedIDs([]int64{p.Beta, simpleType, p.QBCore}),
		p.Badge:  wpdbtest.SortedIDs([]int64{p.Alpha, p.Beta, simpleType}),
		p.Bundle: wpdbtest.SortedIDs([]int64{p.Gamma, p.VariableType, p.ESX, p.QBCore, standalone}),
		p.Other:  wpdbtest.SortedIDs([]int64{p.Gamma, p.VariableType, qbox}),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PublishedRelationships = %v, want %v", got, want)
	}
}
