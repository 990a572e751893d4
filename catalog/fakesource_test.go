package catalog

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"catalogd/api"
	"catalogd/wpopt"
)

// This file reads the store of rowsbuilder_test.go back as wpdb would
// (fakeSource, a Source), and serves the rules' tests a Catalog
// over it with a clock they set.

// shopRows reads the whole shop as wpdb's LoadShop does: the options
// asked for, the terms in name order, every published product.
func (s *store) shopRows() *ShopRows {
	rows := &ShopRows{Options: map[string]string{}, OrderBy: map[string]string{}, Tables: map[string]bool{},
		TranslatedSlugs: map[string]string{}, WPMLTerms: map[int64]string{}}
	for _, name := range ShopReads.Options {
		if v, ok := s.options[name]; ok {
			rows.Options[name] = v
		}
	}
	for k, v := range s.orderBy {
		rows.OrderBy[k] = v
		rows.AttributeTaxonomies = append(rows.AttributeTaxonomies, AttributeTaxonomy{Name: k, Label: cmp.Or(s.labels[k], k), OrderBy: v})
	}
	slices.SortFunc(rows.AttributeTaxonomies, func(a, b AttributeTaxonomy) int { return cmp.Compare(a.Name, b.Name) })
	for _, name := range ShopReads.Tables {
		rows.Tables[name] = s.tables[name]
	}
	for _, t := range s.terms {
		if slices.Contains(ShopReads.Taxonomies, t.Taxonomy) || strings.HasPrefix(t.Taxonomy, AttributeTaxonomyPrefix) {
			rows.Terms = append(rows.Terms, t)
		}
	}
	// ORDER BY t.name, t.term_id under a case-insensitive collation.
	slices.SortStableFunc(rows.Terms, func(a, b Term) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), cmp.Compare(a.TermID, b.TermID))
	})
	rows.Members = slices.Clone(s.members)
	rows.WPMLLanguages = slices.Clone(s.langs)
	if s.tables[TableWPMLTranslations] {
		for k, v := range s.wpmlTT {
			rows.WPMLTerms[k] = v
		}
	}
	for k, v := range s.trp {
		rows.TranslatedSlugs[k] = v
	}
	var ids []int64
	for id, p := range s.posts {
		if p.Type == "product" && p.Status == "publish" {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	rows.Products = *s.productRows(ids)
	return rows
}

// productRows reads products as wpdb's LoadProducts does: the posts with
// the IDs whatever their type and state (in no particular order: here
// descending), their terms and meta, their variations (menu_order, ID),
// grouped children not among them, images, translation groups. Every
// slice is a copy: a later change to the store leaves these rows alone.
func (s *store) productRows(ids []int64) *ProductRows {
	rows := &ProductRows{Meta: Meta{}, Terms: map[int64][]int64{}, Children: map[int64][]int64{},
		WPML: map[int64]WPMLElement{}, Groups: map[int64]map[string]int64{}}
	loaded := map[int64]bool{}
	details := func(id int64) {
		if tts, ok := s.rels[id]; ok {
			rows.Terms[id] = slices.Clone(tts)
		}
		s.copyMeta(rows.Meta, id)
	}
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	for _, id := range sorted {
		p, ok := s.posts[id]
		if !ok {
			continue // deleted
		}
		rows.Posts = append(rows.Posts, p)
		loaded[id] = true
		details(id)
		if e, ok := s.wpml[id]; ok && s.tables[TableWPMLTranslations] {
			rows.WPML[id] = e
		}
	}
	var vars []Post
	for _, p := range s.posts {
		if p.Type == "product_variation" && slices.Contains(ids, p.Parent) {
			vars = append(vars, p)
		}
	}
	slices.SortFunc(vars, func(a, b Post) int {
		return cmp.Or(cmp.Compare(s.menu[a.ID], s.menu[b.ID]), cmp.Compare(a.ID, b.ID))
	})
	for _, v := range vars {
		rows.Related = append(rows.Related, v)
		s.copyMeta(rows.Meta, v.ID)
	}
	for _, id := range ids {
		for _, tt := range rows.Terms[id] {
			if g, ok := s.groups[tt]; ok {
				rows.Groups[tt] = g
			}
		}
	}
	for _, id := range ids {
		raw := s.firstMeta(id, MetaChildren)
		if raw == "" {
			continue
		}
		kids, err := wpopt.ParseIDList(raw)
		if err != nil {
			kids = nil
		}
		rows.Children[id] = kids
		for _, k := range kids {
			if p, ok := s.posts[k]; ok && !loaded[k] {
				loaded[k] = true
				rows.Related = append(rows.Related, p)
				details(k)
			}
		}
	}
	for _, id := range ids {
		if th, err := strconv.ParseInt(s.firstMeta(id, MetaThumbnail), 10, 64); err == nil && th > 0 {
			s.copyMeta(rows.Meta, th)
		}
	}
	return rows
}

// copyMeta copies the post's meta of ShopReads.MetaKeys into m.
func (s *store) copyMeta(m Meta, id int64) {
	for _, k := range ShopReads.MetaKeys {
		for _, v := range s.meta[id][k] {
			m[id] = append(m[id], MetaRow{Key: k, Value: v})
		}
	}
}

// firstMeta is the store's first value of a post's key, "" when none.
func (s *store) firstMeta(id int64, key string) string {
	if v := s.meta[id][key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// fakeSource reads the store as wpdb does, one consistent read per call,
// and counts the calls.
type fakeSource struct {
	mu       sync.Mutex
	st       *store
	shops    int       // LoadShop calls
	products [][]int64 // the IDs of every LoadProducts call
	// every hands LoadShop every product post, in any state, as a
	// careless Source would: the rules must still serve published ones
	// only.
	every bool
	// down fails every read, as a database away would; tries counts the
	// reads asked for, failed or not.
	down  bool
	tries int
	// hold, when set, keeps LoadShop from returning, once it has read the
	// store, until it is closed; LoadShop tells holding first.
	hold, holding chan struct{}
}

var errDown = errors.New("fake source: the database is away")

func (f *fakeSource) LoadShop(ctx context.Context, r Reads) (*ShopRows, error) {
	rows, err := f.loadShop()
	f.mu.Lock()
	hold, holding := f.hold, f.holding
	f.mu.Unlock()
	if hold != nil {
		holding <- struct{}{}
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return rows, err
}

func (f *fakeSource) loadShop() (*ShopRows, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tries++
	if f.down {
		return nil, errDown
	}
	f.shops++
	rows := f.st.shopRows()
	if f.every {
		var ids []int64
		for id, p := range f.st.posts {
			if p.Type == "product" {
				ids = append(ids, id)
			}
		}
		rows.Products = *f.st.productRows(ids)
	}
	return rows, nil
}

func (f *fakeSource) LoadProducts(_ context.Context, r Reads, ids []int64) (*ProductRows, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tries++
	if f.down {
		return nil, errDown
	}
	f.products = append(f.products, slices.Clone(ids))
	return f.st.productRows(ids), nil
}

// do changes the store between reads.
func (f *fakeSource) do(change func(s *store)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f.st)
}

// clock is a settable clock for Config.Now.
type clock struct{ unix atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.set(t)
	return c
}

func (c *clock) set(t time.Time) { c.unix.Store(t.Unix()) }
func (c *clock) now() time.Time  { return time.Unix(c.unix.Load(), 0).UTC() }

// serve returns a catalog of the store, its source, and its clock at t0.
func serve(t *testing.T, s *store) (*Catalog, *fakeSource, *clock) {
	t.Helper()
	src := &fakeSource{st: s}
	clk := newClock(t0)
	return New(src, Config{Now: clk.now}), src, clk
}

// Helpers asking the Service, failing the test on an error.

func getProduct(t *testing.T, c *Catalog, slug string) *Product {
	t.Helper()
	p, err := c.Product(context.Background(), slug)
	if err != nil {
		t.Fatalf("Product(%q): %v", slug, err)
	}
	return p
}

func getList(t testing.TB, c *Catalog, q api.ListQuery) *ProductList {
	t.Helper()
	l, err := c.Products(context.Background(), q)
	if err != nil {
		t.Fatalf("Products(%+v): %v", q, err)
	}
	return l
}

func getCategories(t *testing.T, c *Catalog) []Category {
	t.Helper()
	l, err := c.Categories(context.Background())
	if err != nil {
		t.Fatalf("Categories: %v", err)
	}
	return l.Items
}

func listSlugs(ps []api.Product) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Slug)
	}
	return out
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}
