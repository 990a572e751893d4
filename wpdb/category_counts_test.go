package wpdb

import (
	"context"
	"reflect"
	"testing"

	"catalogd/wpdb/wpfixture"
)

func TestCategoryCounts(t *testing.T) {
	t.Parallel()
	shop := newTestShop("wp_")
	jobs := shop.Category("Jobs", "jobs", "", 0).TTID
	emergency := shop.Category("Emergency", "emergency", "jobs", 0).TTID
	police := shop.Category("Police", "police", "emergency", 0).TTID
	ui := shop.Category("UI", "ui", "", 0).TTID
	empty := shop.Category("Empty", "empty", "", 0).TTID
	hidden := shop.TermRef("product_visibility", "exclude-from-catalog").TTID
	outOfStock := shop.TermRef("product_visibility", "outofstock").TTID
	esx := shop.TermRef("pa_framework", "esx").TTID

	// Radar sits in both a parent and its child: it counts once.
	shop.Add(wpfixture.Product{Title: "Radar", RegularPrice: "1", Categories: []string{"police", "emergency"}, Frameworks: []string{"esx"}})
	shop.Add(wpfixture.Product{Title: "Ambulance", RegularPrice: "1", Categories: []string{"emergency"}})
	shop.Add(wpfixture.Product{Title: "Mechanic", RegularPrice: "1", Categories: []string{"jobs"}, Frameworks: []string{"esx"}})
	shop.Add(wpfixture.Product{Title: "Hidden Badge", RegularPrice: "1", Categories: []string{"police"}, Visibility: "hidden"})
	shop.Add(wpfixture.Product{Title: "Cuffs", RegularPrice: "1", Categories: []string{"police"}, StockStatus: "outofstock"})
	shop.Add(wpfixture.Product{Title: "Minimap", RegularPrice: "1", Categories: []string{"ui"}})
	shop.Add(wpfixture.Product{Title: "Draft", Slug: "draft", Status: "draft", RegularPrice: "1", Categories: []string{"police", "empty"}})
	shop.Add(wpfixture.Product{Title: "Private", Status: "private", RegularPrice: "1", Categories: []string{"empty"}})
	shop.Add(wpfixture.Product{Title: "Gone", Status: "trash", RegularPrice: "1", Categories: []string{"ui"}})
	db, _ := openShop(t, shop)

	// Each category with itself and its descendants.
	closure := []Closure{
		{jobs, jobs}, {jobs, emergency}, {jobs, police},
		{emergency, emergency}, {emergency, police},
		{police, police},
		{ui, ui},
		{empty, empty},
	}
	tests := []struct {
		name    string
		filter  Filter
		closure []Closure
		want    map[int64]int
	}{
		{"distinct across descendants", Filter{}, closure,
			map[int64]int{jobs: 5, emergency: 4, police: 3, ui: 1}},
		{"exclude", Filter{Exclude: []int64{hidden, outOfStock}}, closure,
			map[int64]int{jobs: 3, emergency: 2, police: 1, ui: 1}},
		{"require", Filter{Require: [][]int64{{esx}}}, closure,
			map[int64]int{jobs: 2, emergency: 1, police: 1}},
		{"empty group", Filter{Require: [][]int64{{}}}, closure, map[int64]int{}},
		{"categories alone, without their tree", Filter{}, []Closure{{jobs, jobs}, {emergency, emergency}},
			map[int64]int{jobs: 1, emergency: 2}},
		{"only the asked ancestors", Filter{}, []Closure{{police, police}}, map[int64]int{police: 3}},
		{"empty closure", Filter{}, []Closure{}, map[int64]int{}},
		{"nil closure", Filter{Exclude: []int64{hidden}}, nil, map[int64]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view(t, db, func(ctx context.Context, tx *Tx) error {
				before := db.Queries()
				got, err := tx.CategoryCounts(ctx, tt.filter, tt.closure)
				if err != nil {
					return err
				}
				if got == nil {
					t.Errorf("CategoryCounts = nil map, want an empty map to read from")
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("CategoryCounts(%+v) = %v, want %v", tt.filter, got, tt.want)
				}
				wantQueries := int64(1)
				if len(tt.closure) == 0 {
					wantQueries = 0
				}
				if q := db.Queries() - before; q != wantQueries {
					t.Errorf("CategoryCounts sent %d queries, want %d", q, wantQueries)
				}
				return nil
			})
		})
	}

	// The counts agree with CountProducts for each category's tree.
	t.Run("agrees with CountProducts", func(t *testing.T) {
		trees := map[int64][]int64{jobs: {jobs, emergency, police}, emergency: {emergency, police}, police: {police}, ui: {ui}}
		view(t, db, func(ctx context.Context, tx *Tx) error {
			counts, err := tx.CategoryCounts(ctx, Filter{}, closure)
			if err != nil {
				return err
			}
			for anc, tree := range trees {
				n, err := tx.CountProducts(ctx, Filter{Require: [][]int64{tree}})
				if err != nil {
					return err
				}
				if counts[anc] != n {
					t.Errorf("category %d: CategoryCounts %d, CountProducts %d", anc, counts[anc], n)
				}
			}
			return nil
		})
	})
}
