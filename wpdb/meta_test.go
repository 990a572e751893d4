package wpdb

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"catalogd/wpdb/wpfixture"
)

func TestMeta(t *testing.T) {
	t.Parallel()
	shop := newTestShop("wp_")
	shop.Category("Alpha", "alpha", "", 0)
	simple := shop.Add(wpfixture.Product{Title: "Radar", RegularPrice: "12", SalePrice: "9"})
	variable := shop.Add(wpfixture.Product{Title: "Bundle", Type: "variable", Variations: []wpfixture.Variation{
		{Framework: "esx", RegularPrice: "20"},
		{Framework: "qbcore", RegularPrice: "5"},
		{Framework: "qbox", RegularPrice: "10"},
	}})
	// A late row with a lower value: insertion order, not value order.
	shop.PostMeta(variable, "_price", "7")
	other := shop.Add(wpfixture.Product{Title: "Other", RegularPrice: "1"})
	db, raw := openShop(t, shop)
	if _, err := raw.ExecContext(context.Background(),
		`INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (?, '_nullish', NULL)`, simple); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		ids  []int64
		keys []string
		want Meta
	}{
		{"several values in insertion order", []int64{variable}, []string{"_price"},
			Meta{variable: {"_price": {"5", "10", "20", "7"}}}},
		{"only the asked keys and posts", []int64{simple, variable}, []string{"_price", "_regular_price", "_sale_price"},
			Meta{
				simple:   {"_price": {"9"}, "_regular_price": {"12"}, "_sale_price": {"9"}},
				variable: {"_price": {"5", "10", "20", "7"}},
			}},
		{"empty value kept", []int64{simple}, []string{"_sku", "_stock"},
			Meta{simple: {"_sku": {""}, "_stock": {""}}}},
		{"NULL value read as empty", []int64{simple}, []string{"_nullish"},
			Meta{simple: {"_nullish": {""}}}},
		{"variation meta", []int64{variable + 1}, []string{"_price", "attribute_pa_framework"},
			Meta{variable + 1: {"_price": {"20"}, "attribute_pa_framework": {"esx"}}}},
		{"missing key", []int64{simple}, []string{"_no_such_key"}, Meta{}},
		{"unknown post", []int64{99999}, []string{"_price"}, Meta{}},
		{"no posts", nil, []string{"_price"}, Meta{}},
		{"no keys", []int64{simple}, nil, Meta{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view(t, db, func(ctx context.Context, tx *Tx) error {
				got, err := tx.Meta(ctx, tt.ids, tt.keys)
				if err != nil {
					return err
				}
				if got == nil {
					t.Errorf("Meta(%v, %q) = nil map, want an empty map to read from", tt.ids, tt.keys)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("Meta(%v, %q):\n got %v\nwant %v", tt.ids, tt.keys, got, tt.want)
				}
				if _, ok := got[other]; ok {
					t.Errorf("Meta returned post %d, which was not asked", other)
				}
				return nil
			})
		})
	}
}

func TestMetaFirstAndHas(t *testing.T) {
	m := Meta{1: {"_price": {"5", "10"}, "_sku": {""}}}
	tests := []struct {
		id        int64
		key       string
		wantFirst string
		wantHas   bool
	}{
		{1, "_price", "5", true},
		{1, "_sku", "", true},
		{1, "_stock", "", false},
		{2, "_price", "", false},
	}
	for _, tt := range tests {
		if got := m.First(tt.id, tt.key); got != tt.wantFirst {
			t.Errorf("First(%d, %q) = %q, want %q", tt.id, tt.key, got, tt.wantFirst)
		}
		if got := m.Has(tt.id, tt.key); got != tt.wantHas {
			t.Errorf("Has(%d, %q) = %v, want %v", tt.id, tt.key, got, tt.wantHas)
		}
	}
}

func TestRelationships(t *testing.T) {
	t.Parallel()
	shop := newTestShop("wp_")
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
					want[id] = sortedIDs(ttids)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("Relationships(%v) = %v, want %v", tt.ids, got, want)
				}
				return nil
			})
		})
	}
}
