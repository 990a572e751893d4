package wpdb

import (
	"context"
	"slices"
	"testing"

	"catalogd/catalog"
	"catalogd/internal/wpdbtest"
	"catalogd/internal/wpfixture"
)

func TestVariations(t *testing.T) {
	t.Parallel()
	p := wpdbtest.NewProducts()
	db, raw := openShop(t, p.Shop)

	esx, qbcore, standalone, qbox := variationPosts(p)

	read := func(t *testing.T, parents []int64) []catalog.Post {
		t.Helper()
		var got []catalog.Post
		view(t, db, func(ctx context.Context, tx *Tx) error {
			var err error
			got, err = tx.Variations(ctx, parents)
			return err
		})
		return withoutModified(got)
	}
	tests := []struct {
		name    string
		parents []int64
		want    []catalog.Post
	}{
		{"publish and private, in menu order", []int64{p.Bundle}, []catalog.Post{esx, qbcore, standalone}},
		{"several parents", []int64{p.Bundle, p.Other}, []catalog.Post{esx, qbox, qbcore, standalone}},
		{"simple product has none", []int64{p.Radar}, nil},
		{"none asked", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := read(t, tt.parents)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Variations(%v):\n got %+v\nwant %+v", tt.parents, got, tt.want)
			}
		})
	}

	// The shop manager drags the variations around: menu_order decides,
	// then the ID breaks ties.
	t.Run("reordered", func(t *testing.T) {
		for id, order := range map[int64]int{p.VarESX: 5, p.VarQBCore: 1, p.VarStandalone: 1} {
			if _, err := raw.ExecContext(context.Background(),
				`UPDATE wp_posts SET menu_order = ? WHERE ID = ?`, order, id); err != nil {
				t.Fatal(err)
			}
		}
		esx.MenuOrder, qbcore.MenuOrder, standalone.MenuOrder = 5, 1, 1
		got := read(t, []int64{p.Bundle})
		want := []catalog.Post{qbcore, standalone, esx}
		if !slices.Equal(got, want) {
			t.Errorf("Variations after reordering:\n got %+v\nwant %+v", got, want)
		}
	})
}

func TestPublishedVariations(t *testing.T) {
	t.Parallel()
	p := wpdbtest.NewProducts()
	// Variable products that are not published: their variations are
	// not the catalog's, whatever their own status.
	variations := []wpfixture.Variation{{Framework: "esx", RegularPrice: "1"}, {Framework: "qbox", RegularPrice: "2"}}
	for _, status := range []string{"draft", "trash", "private", "pending"} {
		p.Shop.Add(wpfixture.Product{Title: "Bundle " + status, Status: status, Type: "variable", Variations: variations})
	}
	db, raw := openShop(t, p.Shop)

	esx, qbcore, standalone, qbox := variationPosts(p)

	read := func(t *testing.T) []catalog.Post {
		t.Helper()
		var got []catalog.Post
		view(t, db, func(ctx context.Context, tx *Tx) error {
			rows := newPublishedRows()
			err := tx.productPosts(ctx, rows, nil)
			got = rows.Related
			return err
		})
		return withoutModified(got)
	}
	// Across parents, by menu_order then ID: the order Variations gives
	// each parent's, which is all the catalog needs of it. The disabled
	// (private) variation is there: the storefront shows it, unavailable.
	if got, want := read(t), []catalog.Post{esx, qbox, qbcore, standalone}; !slices.Equal(got, want) {
		t.Errorf("published products' variations:\n got %+v\nwant %+v", got, want)
	}

	t.Run("reordered", func(t *testing.T) {
		for id, order := range map[int64]int{p.VarESX: 5, p.VarQBCore: 0, p.VarStandalone: 0, p.OtherVar: 5} {
			if _, err := raw.ExecContext(context.Background(),
				`UPDATE wp_posts SET menu_order = ? WHERE ID = ?`, order, id); err != nil {
				t.Fatal(err)
			}
		}
		esx.MenuOrder, qbcore.MenuOrder, standalone.MenuOrder, qbox.MenuOrder = 5, 0, 0, 5
		if got, want := read(t), []catalog.Post{qbcore, standalone, esx, qbox}; !slices.Equal(got, want) {
			t.Errorf("published products' variations after reordering:\n got %+v\nwant %+v", got, want)
		}
	})
}

// variationPosts are the shop's variations as their rows read: the
// bundle's three (one private) and the other product's one.
func variationPosts(p *wpdbtest.Products) (esx, qbcore, standalone, qbox catalog.Post) {
	// Their slugs and titles are not read (variations.go).
	v := func(id, parent int64, status string, order int64) catalog.Post {
		return catalog.Post{ID: id, Parent: parent, Type: "product_variation", Status: status, MenuOrder: order}
	}
	return v(p.VarESX, p.Bundle, "publish", 1),
		v(p.VarQBCore, p.Bundle, "private", 2),
		v(p.VarStandalone, p.Bundle, "publish", 3),
		v(p.OtherVar, p.Other, "publish", 1)
}

// withoutModified clears the modified times, which the fixture derives
// from its clock, so posts compare on the rest.
func withoutModified(ps []catalog.Post) []catalog.Post {
	for i := range ps {
		ps[i].Modified = ""
	}
	return ps
}
