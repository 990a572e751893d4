package catalog

import "catalogd/api"

// aggregates are what the index and the categories answer from, derived
// from a snapshot once, when it is built or patched, rather than on the
// first request for them: the categories' counts (a union of bitsets per
// category and its descendants) grow with the shop, and every first
// request after a change would otherwise pay for them.
type aggregates struct {
	visible      bitset // the catalog-visible products; shared read-only
	visibleCount int
	categories   []Category // those holding a visible product, in the storefront's order
	// wire is categories as the wire has them, made once, so that a
	// request copies no list out: garbage paces the collector.
	wire []api.Category
}

// aggregate derives s's aggregates from its lookups; Build and With, the
// only makers of a snapshot, call it last, when the snapshot is complete.
func (s *Snapshot) aggregate() {
	a := &aggregates{visible: s.computeVisible()}
	a.visibleCount = a.visible.count()
	a.categories = s.computeCategories(a.visible)
	a.wire = make([]api.Category, len(a.categories))
	for i, c := range a.categories {
		a.wire[i] = c.Category
	}
	s.agg = a
}

// computeCategories counts the catalog-visible products of every category
// and its descendants, as the storefront's archive shows them (and as
// WooCommerce's product_count_product_cat meta would, were it not stale
// after the out-of-stock option changes). One scratch set serves every
// category: the union is made in it, counted against visible, cleared.
func (s *Snapshot) computeCategories(visible bitset) []Category {
	out := []Category{}
	scratch := newBitset(len(s.served))
	for _, cat := range s.t.categories {
		clear(scratch)
		n := s.unionInto(scratch, cat.subtree).andCount(visible)
		if n < 1 {
			continue
		}
		var parent *string
		if cat.parent != nil {
			p := cat.parent.Slug
			parent = &p
		}
		out = append(out, Category{Category: api.Category{Slug: cat.Slug, Name: cat.name, Count: n,
			URL: s.sh.categoryURL(cat.Slug, cat.path), Parent: parent}, ID: cat.TermID})
	}
	return out
}
