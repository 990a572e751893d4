package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"catalogd/catalog"
	"catalogd/wpdb/wpfixture"
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
		l := f.list(t, catalog.ListQuery{Page: page, PerPage: 17})
		if l.Page != page || l.PerPage != 17 || l.Total != 41 || l.TotalPages != 3 {
			t.Errorf("page %d: page %d per_page %d total %d total_pages %d", page, l.Page, l.PerPage, l.Total, l.TotalPages)
		}
		got = append(got, slugs(l.Products)...)
	}
	// Ascending post ID, every visible product exactly once.
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pages joined:\n got %v\nwant %v", got, want)
	}
	if l := f.list(t, catalog.ListQuery{}); l.PerPage != 20 || l.Page != 1 || len(l.Products) != 20 {
		t.Errorf("defaults: page %d per_page %d, %d products", l.Page, l.PerPage, len(l.Products))
	}

	// Beyond the last page: 400 naming the last page.
	_, err := f.cat.Products(context.Background(), catalog.ListQuery{Page: 4, PerPage: 17})
	var e *catalog.Error
	if !errors.As(err, &e) || e.Reason != "invalid_page" || !strings.Contains(e.Hint, "3") {
		t.Errorf("page 4 of 3: err = %v, want invalid_page with the last page in the hint", err)
	}
	if _, err := f.cat.Products(context.Background(), catalog.ListQuery{PerPage: 51}); catalog.ErrorKind(err) != catalog.EINVALID {
		t.Errorf("per_page 51: err = %v, want invalid", err)
	}
}

func TestEmptyCatalog(t *testing.T) {
	f := load(t, newShop())
	l := f.list(t, catalog.ListQuery{Page: 1})
	if l.Total != 0 || l.TotalPages != 0 || l.Products == nil || len(l.Products) != 0 {
		t.Errorf("empty catalog: %+v", l)
	}
	if _, err := f.cat.Products(context.Background(), catalog.ListQuery{Page: 2}); catalog.ErrorKind(err) != catalog.EINVALID {
		t.Errorf("page 2 of an empty catalog: err = %v, want invalid", err)
	}
	cats, err := f.cat.Categories(context.Background())
	if err != nil || cats.Categories == nil || len(cats.Categories) != 0 {
		t.Errorf("categories of an empty catalog: %+v, %v", cats, err)
	}
}

// TestQueriesPerPage counts the statements one list page costs: it must not
// grow with per_page. Every page compared holds all four product types (the
// reads of variations and children are skipped when a page has none).
func TestQueriesPerPage(t *testing.T) {
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
	cost := func(q catalog.ListQuery) int64 {
		before := f.db.Queries()
		l, err := f.cat.Products(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Products) != q.PerPage {
			t.Fatalf("per_page %d gave %d products", q.PerPage, len(l.Products))
		}
		return f.db.Queries() - before
	}
	// The first read builds the in-memory population (two statements, once
	// per change of the shop); pages are measured after it.
	f.list(t, catalog.ListQuery{})
	for _, filter := range []catalog.ListQuery{{}, {Category: "jobs", Framework: "esx"}} {
		base := cost(catalog.ListQuery{PerPage: 4, Category: filter.Category, Framework: filter.Framework})
		for _, n := range []int{5, 10, 25, 50} {
			if got := cost(catalog.ListQuery{PerPage: n, Category: filter.Category, Framework: filter.Framework}); got != base {
				t.Errorf("filter %+v: per_page %d costs %d queries, per_page 4 costs %d", filter, n, got, base)
			}
		}
		t.Logf("filter %+v: %d queries per page", filter, base)
	}
	before := f.db.Queries()
	f.product(t, "p1")
	t.Logf("single product: %d queries", f.db.Queries()-before)
}

// The population is kept in memory between changes the poller sees; a
// product unpublished meanwhile is never shown, and after Invalidate the
// counts are the database's again.
func TestPopulationStaysSafeBetweenPolls(t *testing.T) {
	s := newShop()
	for i := 0; i < 5; i++ {
		s.Add(wpfixture.Product{Title: fmt.Sprintf("P%d", i), RegularPrice: "1"})
	}
	f := load(t, s)
	if l := f.list(t, catalog.ListQuery{}); l.Total != 5 {
		t.Fatalf("total %d", l.Total)
	}
	if _, err := f.raw.Exec(`UPDATE wp_posts SET post_status = 'draft' WHERE post_name = 'p2'`); err != nil {
		t.Fatal(err)
	}
	if got := slugs(f.list(t, catalog.ListQuery{}).Products); slices.Contains(got, "p2") {
		t.Errorf("an unpublished product is listed: %v", got)
	}
	f.cat.Invalidate()
	if l := f.list(t, catalog.ListQuery{}); l.Total != 4 || len(l.Products) != 4 {
		t.Errorf("after Invalidate: total %d, %d products", l.Total, len(l.Products))
	}
}
