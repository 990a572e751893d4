package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"catalogd/api"

	"catalogd/catalog"
	"catalogd/internal/wpfixture"
)

func TestPaging(t *testing.T) {
	s := newShop()
	var want []string
	for i := 1; i <= 45; i++ {
		title := fmt.Sprintf("Script %02d", i)
		vis := ""
		if i%10 == 0 {
			vis = "hidden" // gaps in the IDs the list must skip
		} else {
			want = append(want, strings.ToLower(strings.ReplaceAll(title, " ", "-")))
		}
		s.Add(wpfixture.Product{Title: title, RegularPrice: "1", Visibility: vis})
	}
	f := load(t, s)

	var got []string
	for page := 1; page <= 3; page++ {
		l := f.list(t, api.ListQuery{Page: page, PerPage: 17})
		if l.Page != page || l.PerPage != 17 || l.Total != 41 || l.TotalPages != 3 {
			t.Errorf("page %d: page %d per_page %d total %d total_pages %d", page, l.Page, l.PerPage, l.Total, l.TotalPages)
		}
		got = append(got, slugs(l.Products)...)
	}
	// Ascending post ID, every visible product exactly once.
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pages joined:\n got %v\nwant %v", got, want)
	}
	if l := f.list(t, api.ListQuery{}); l.PerPage != 20 || l.Page != 1 || len(l.Products) != 20 {
		t.Errorf("defaults: page %d per_page %d, %d products", l.Page, l.PerPage, len(l.Products))
	}

	// Beyond the last page: 400 naming the last page.
	_, err := f.cat.Products(context.Background(), api.ListQuery{Page: 4, PerPage: 17})
	var e *catalog.Error
	if !errors.As(err, &e) || e.Reason != "invalid_page" || !strings.Contains(e.Hint, "3") {
		t.Errorf("page 4 of 3: err = %v, want invalid_page with the last page in the hint", err)
	}
	if _, err := f.cat.Products(context.Background(), api.ParseListQueryString("per_page=51")); catalog.ErrorKind(err) != catalog.EINVALID {
		t.Errorf("per_page 51: err = %v, want invalid", err)
	}
}

func TestEmptyCatalog(t *testing.T) {
	f := load(t, newShop())
	l := f.list(t, api.ListQuery{Page: 1})
	if l.Total != 0 || l.TotalPages != 0 || l.Products == nil || len(l.Products) != 0 {
		t.Errorf("empty catalog: %+v", l)
	}
	if _, err := f.cat.Products(context.Background(), api.ListQuery{Page: 2}); catalog.ErrorKind(err) != catalog.EINVALID {
		t.Errorf("page 2 of an empty catalog: err = %v, want invalid", err)
	}
	cats, err := f.cat.Categories(context.Background())
	if err != nil || cats.Categories == nil || len(cats.Categories) != 0 {
		t.Errorf("categories of an empty catalog: %+v, %v", cats, err)
	}
}

// In steady state a request runs no statement at all: lists of any size
// and filter, categories, the index and single products come from the
// snapshot. A change to one product re-reads that product (and the
// grouped products listing it) in a constant number of statements,
// whatever the shop's size, and shows at once.
func TestNoStatementsPerRequest(t *testing.T) {
	s := newShop()
	s.Category("Jobs", "jobs", "", 0)
	s.Category("Police", "police", "jobs", 0)
	for i := 0; i < 60; i++ {
		p := wpfixture.Product{Title: fmt.Sprintf("P%d", i), RegularPrice: "10", SalePrice: "5",
			Categories: []string{"police"}, Frameworks: []string{"esx", "qbox"}, Image: fmt.Sprintf("2026/11/p%d.jpg", i)}
		switch i % 4 {
		case 1:
			p.Type = "variable"
			p.Variations = []wpfixture.Variation{{Framework: "esx", RegularPrice: "3"}, {Framework: "qbox", RegularPrice: "4", SalePrice: "2"}}
		case 2:
			p.Type = "grouped"
			p.Children = []int64{int64(i)} // an earlier product's ID or attachment: both occur in real shops
		}
		s.Add(p)
	}
	f := load(t, s)
	ctx := context.Background()
	if err := f.cat.Ready(ctx); err != nil { // the first snapshot
		t.Fatal(err)
	}
	requests := map[string]func() error{
		"index":      func() error { _, err := f.cat.Index(ctx); return err },
		"categories": func() error { _, err := f.cat.Categories(ctx); return err },
		"product":    func() error { _, err := f.cat.Product(ctx, "p1"); return err },
		"unknown product": func() error {
			_, err := f.cat.Product(ctx, "no-such-product")
			if catalog.ErrorKind(err) == catalog.ENOTFOUND {
				return nil
			}
			return err
		},
	}
	for _, n := range []int{1, 4, 25, 50} {
		for _, q := range []api.ListQuery{{PerPage: n}, {PerPage: n, Category: "jobs", Framework: "esx"}} {
			requests[fmt.Sprintf("list %+v", q)] = func() error { _, err := f.cat.Products(ctx, q); return err }
		}
	}
	for name, req := range requests {
		before := f.db.Queries()
		if err := req(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := f.db.Queries() - before; got != 0 {
			t.Errorf("%s: %d statements, want none", name, got)
		}
	}

	// One product's price edited, as wp_update_post and update_post_meta
	// leave it: only that product is read again.
	if _, err := f.raw.Exec(`UPDATE wp_postmeta m JOIN wp_posts p ON p.ID = m.post_id SET m.meta_value = '7'
		WHERE p.post_name = 'p4' AND m.meta_key IN ('_regular_price', '_price')`); err != nil {
		t.Fatal(err)
	}
	if _, err := f.raw.Exec(`UPDATE wp_postmeta m JOIN wp_posts p ON p.ID = m.post_id SET m.meta_value = ''
		WHERE p.post_name = 'p4' AND m.meta_key = '_sale_price'`); err != nil {
		t.Fatal(err)
	}
	id := f.product(t, "p4").ID
	for _, ids := range [][]int64{{id}, {id, f.product(t, "p8").ID, f.product(t, "p12").ID}} {
		before := f.db.Queries()
		if err := f.cat.Refresh(ctx, ids...); err != nil {
			t.Fatal(err)
		}
		// BEGIN, the optional tables' probes, and posts, terms, meta,
		// variations, images: a fixed number, for one product or three.
		if got := f.db.Queries() - before; got > 16 {
			t.Errorf("refreshing %d products: %d statements, want a constant few", len(ids), got)
		} else {
			t.Logf("refreshing %d products: %d statements", len(ids), got)
		}
	}
	if p := f.product(t, "p4"); str(p.Price) != "7.00" || p.OnSale {
		t.Errorf("after the refresh: p4 price %s, on sale %v; want 7.00, not on sale", str(p.Price), p.OnSale)
	}
	if l := f.list(t, api.ListQuery{PerPage: 50}); l.Total != 60 {
		t.Errorf("after the refresh: total %d, want 60", l.Total)
	}
}

// The catalog answers from one snapshot until a new one is swapped in
// whole: a product unpublished meanwhile stays listed with the counts it
// was listed with (never a page that disagrees with its totals), and is
// gone from both after a reload.
func TestSnapshotSwapsWhole(t *testing.T) {
	s := newShop()
	for i := 0; i < 5; i++ {
		s.Add(wpfixture.Product{Title: fmt.Sprintf("P%d", i), RegularPrice: "1"})
	}
	f := load(t, s)
	if l := f.list(t, api.ListQuery{}); l.Total != 5 {
		t.Fatalf("total %d", l.Total)
	}
	if _, err := f.raw.Exec(`UPDATE wp_posts SET post_status = 'draft' WHERE post_name = 'p2'`); err != nil {
		t.Fatal(err)
	}
	if l := f.list(t, api.ListQuery{}); l.Total != len(l.Products) {
		t.Errorf("before the reload: total %d, %d products listed", l.Total, len(l.Products))
	}
	if err := f.cat.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	l := f.list(t, api.ListQuery{})
	if got := slugs(l.Products); l.Total != 4 || slices.Contains(got, "p2") {
		t.Errorf("after the reload: total %d, products %v; want 4 without p2", l.Total, got)
	}
}
