package catalog

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"catalogd/api"
)

// TestRulesRefresh: a refresh re-reads the products changed (and the
// grouped products listing them) and swaps in a snapshot sharing every
// other product with the old one.
func TestRulesRefresh(t *testing.T) {
	ctx := context.Background()
	s := newStore()
	s.category("Jobs", "jobs", "", 0)
	a := s.add(product{Title: "A", Regular: "10", Categories: []string{"jobs"}})
	b := s.add(product{Title: "B", Regular: "20"})
	c := s.add(product{Title: "C", Regular: "30", Categories: []string{"jobs"}})
	kid := s.add(product{Title: "Kid", Regular: "40"})
	group := s.add(product{Title: "Group", Type: typeNameGrouped, Children: []int64{kid, b}})
	cat, src, clk := serve(t, s)
	old, err := cat.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// B's price edited, A unpublished, a new product D saved, Kid put on
	// sale; the store holds them before the catalog hears of them.
	edited := t0.Add(time.Minute)
	var d int64
	src.do(func(s *store) {
		s.setMeta(b, metaRegularPrice, "7")
		s.setMeta(b, metaPrice, "7")
		s.stored[b] = "7"
		s.update(b, edited, func(*Post) {})
		s.update(a, edited, func(p *Post) { p.Status = "draft" })
		d = s.add(product{Title: "D", Regular: "5", Categories: []string{"jobs"}})
		s.setMeta(kid, metaSalePrice, "35")
		s.setMeta(kid, metaPrice, "35")
		s.update(kid, edited, func(*Post) {})
	})
	clk.set(edited)
	if got := getProduct(t, cat, "b"); deref(got.Price) != "20.00" {
		t.Errorf("before the refresh: b price %s, want the snapshot's 20.00", deref(got.Price))
	}
	if err := cat.Refresh(ctx, a, b, d, kid); err != nil {
		t.Fatal(err)
	}
	if asked, want := src.products[len(src.products)-1], []int64{a, b, kid, group, d}; !reflect.DeepEqual(asked, want) {
		t.Errorf("refresh read %v, want %v: the changed products and the grouped one listing two of them", asked, want)
	}
	if src.shops != 1 {
		t.Errorf("%d whole-shop reads, want 1: a refresh reads only the products", src.shops)
	}
	cur, err := cat.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cur == old || cur.Version <= old.Version {
		t.Fatalf("snapshot %d after the refresh, was %d", cur.Version, old.Version)
	}

	tests := []struct {
		name  string
		check func() error
	}{
		{"a refreshed product replaces the old one", func() error {
			if p := getProduct(t, cat, "b"); deref(p.Price) != "7.00" || !p.Modified.Equal(edited) {
				return fmt.Errorf("b: price %s, modified %v; want 7.00, %v", deref(p.Price), p.Modified, edited)
			}
			return nil
		}},
		{"an unpublished one disappears", func() error {
			if _, err := cat.Product(ctx, "a"); ErrorKind(err) != ENOTFOUND {
				return fmt.Errorf("a: %v, want not found", err)
			}
			return nil
		}},
		{"a new one appears in its place by ID", func() error {
			l := getList(t, cat, api.ListQuery{})
			if got, want := listSlugs(l.Products), []string{"b", "c", "kid", "group", "d"}; !reflect.DeepEqual(got, want) || l.Total != 5 {
				return fmt.Errorf("list %v (total %d), want %v", got, l.Total, want)
			}
			return nil
		}},
		{"the counts follow", func() error {
			cats := getCategories(t, cat)
			for _, cg := range cats {
				if cg.Slug == "jobs" && cg.Count != 2 {
					return fmt.Errorf("jobs count %d, want 2 (c and d)", cg.Count)
				}
			}
			if l := getList(t, cat, api.ListQuery{Category: "jobs"}); !reflect.DeepEqual(listSlugs(l.Products), []string{"c", "d"}) {
				return fmt.Errorf("category=jobs: %v, want [c d]", listSlugs(l.Products))
			}
			return nil
		}},
		{"lists and counts are modified at the refresh", func() error {
			// A left the jobs list: no product on it says so, the list's
			// Last-Modified must (If-Modified-Since would answer 304).
			if l := getList(t, cat, api.ListQuery{Category: "jobs"}); !l.Modified.Equal(edited) {
				return fmt.Errorf("category=jobs Modified %v, want the refresh %v", l.Modified, edited)
			}
			cl, err := cat.Categories(ctx)
			if err != nil || !cl.Modified.Equal(edited) {
				return fmt.Errorf("categories Modified %v (%v), want the refresh %v", cl.Modified, err, edited)
			}
			if p := getProduct(t, cat, "c"); !p.Modified.Equal(t0) {
				return fmt.Errorf("c Modified %v, want the load %v: its settings did not change", p.Modified, t0)
			}
			return nil
		}},
		{"the grouped parent is re-priced from its children", func() error {
			p := getProduct(t, cat, "group")
			if !p.OnSale || deref(p.RegularPrice) != "7.00" || !p.Modified.Equal(edited) {
				return fmt.Errorf("group: on_sale %v, regular %s, modified %v; want true, 7.00, %v",
					p.OnSale, deref(p.RegularPrice), p.Modified, edited)
			}
			return nil
		}},
		{"other products are shared", func() error {
			if cur.all[c] != old.all[c] {
				return fmt.Errorf("c was rebuilt: %p, was %p", cur.all[c], old.all[c])
			}
			if cur.all[b] == old.all[b] {
				return fmt.Errorf("b is the old item")
			}
			if cur.sh != old.sh || cur.t != old.t {
				return fmt.Errorf("settings or terms rebuilt")
			}
			return nil
		}},
		{"the old snapshot is untouched", func() error {
			if old.Products() != 5 || old.all[a] == nil || deref(old.sh.product(old.all[b], false, edited).Price) != "20.00" {
				return fmt.Errorf("old snapshot: %d products, a %v, b %s", old.Products(), old.all[a] != nil,
					deref(old.sh.product(old.all[b], false, edited).Price))
			}
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.check(); err != nil {
				t.Error(err)
			}
		})
	}

	// Affected: a child names its grouped parents; others only themselves.
	for _, tt := range []struct{ ids, want []int64 }{
		{[]int64{kid}, []int64{kid, group}},
		{[]int64{b, c}, []int64{b, c, group}},
		{[]int64{c}, []int64{c}},
		{[]int64{group}, []int64{group}},
	} {
		if got := cur.Affected(tt.ids); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Affected(%v) = %v, want %v", tt.ids, got, tt.want)
		}
	}

	// The child Kid trashed: the group no longer shows its sale.
	src.do(func(s *store) { s.update(kid, edited, func(p *Post) { p.Status = "trash"; p.Slug += "__trashed" }) })
	if err := cat.Refresh(ctx, kid); err != nil {
		t.Fatal(err)
	}
	if p := getProduct(t, cat, "group"); p.OnSale || deref(p.RegularPrice) != "7.00" {
		t.Errorf("group after its child was trashed: on_sale %v, regular %s; want false, 7.00", p.OnSale, deref(p.RegularPrice))
	}
	if _, err := cat.Product(ctx, "kid"); ErrorKind(err) != ENOTFOUND {
		t.Errorf("trashed kid: %v, want not found", err)
	}

	// A product deleted outright comes back from the source as nothing.
	src.do(func(s *store) { delete(s.posts, c) })
	if err := cat.Refresh(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.Product(ctx, "c"); ErrorKind(err) != ENOTFOUND {
		t.Errorf("deleted c: %v, want not found", err)
	}
}

// TestRulesNoMixedSnapshots: while refreshes swap snapshots in, every
// response comes from one: a page's products all carry the same version's
// price, and its total agrees with them.
func TestRulesNoMixedSnapshots(t *testing.T) {
	ctx := context.Background()
	s := newStore()
	var ids []int64
	for i := 0; i < 10; i++ {
		ids = append(ids, s.add(product{Title: fmt.Sprintf("P%d", i), Regular: "10"}))
	}
	cat, src, _ := serve(t, s)
	if err := cat.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	const versions = 30
	done := make(chan struct{})
	var wg sync.WaitGroup
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				l, err := cat.Products(ctx, api.ListQuery{PerPage: api.MaxPerPage})
				if err != nil {
					t.Error(err)
					return
				}
				// Version v has 10+v products, every one priced 10+v.
				want := fmt.Sprintf("%d.00", l.Total)
				for _, p := range l.Products {
					if deref(p.Price) != want {
						t.Errorf("a page of %d products holds %s priced %s: two snapshots mixed", l.Total, p.Slug, deref(p.Price))
						return
					}
				}
			}
		}()
	}
	for v := 1; v <= versions; v++ {
		price := fmt.Sprint(10 + v)
		src.do(func(s *store) {
			for _, id := range ids {
				s.setMeta(id, metaRegularPrice, price)
				s.setMeta(id, metaPrice, price)
			}
			ids = append(ids, s.add(product{Title: fmt.Sprintf("New%d", v), Regular: price}))
		})
		if err := cat.Refresh(ctx, ids...); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if l := getList(t, cat, api.ListQuery{PerPage: api.MaxPerPage}); l.Total != 10+versions {
		t.Errorf("total %d, want %d", l.Total, 10+versions)
	}
}

// A change to one variation refreshes its product: the parent is read
// again with every variation, and its price follows.
func TestRulesRefreshVariation(t *testing.T) {
	ctx := context.Background()
	s := newStore()
	parent := s.add(product{Title: "Garage", Type: typeNameVariable, Variations: []variation{
		{Framework: "esx", Regular: "10"}, {Framework: "qbox", Regular: "15"}}})
	other := s.add(product{Title: "Other", Regular: "3"})
	var esx int64
	for id, p := range s.posts {
		if p.Type == "product_variation" && p.Parent == parent && strings.HasSuffix(p.Slug, "-esx") {
			esx = id
		}
	}
	if esx == 0 {
		t.Fatal("no esx variation in the store")
	}
	cat, src, clk := serve(t, s)
	if p := getProduct(t, cat, "garage"); deref(p.RegularPrice) != "10.00" {
		t.Fatalf("before: regular %s, want 10.00", deref(p.RegularPrice))
	}
	edited := t0.Add(time.Minute)
	src.do(func(s *store) {
		s.setMeta(esx, metaRegularPrice, "12")
		s.setMeta(esx, metaPrice, "12")
		s.update(esx, edited, func(*Post) {})
		s.setMeta(parent, metaPrice, "12", "15")
	})
	clk.set(edited)
	if err := cat.Refresh(ctx, esx); err != nil {
		t.Fatal(err)
	}
	if asked := src.products[len(src.products)-1]; !slices.Contains(asked, parent) || slices.Contains(asked, other) {
		t.Errorf("refresh read %v, want the variation's product %d and not %d", asked, parent, other)
	}
	if p := getProduct(t, cat, "garage"); deref(p.RegularPrice) != "12.00" || !p.Modified.Equal(edited) {
		t.Errorf("after: regular %s, modified %v; want 12.00, %v", deref(p.RegularPrice), p.Modified, edited)
	}
}
