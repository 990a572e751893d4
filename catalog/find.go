package catalog

import (
	"math/bits"
	"sync"
	"time"

	"catalogd/api"
	"catalogd/wpsearch"
)

// A finding request is a product list with a search, a sort other than
// by ID, a price, stock or sale filter, or facets. Its selection is made
// word by word from bitsets, as the plain list's is, and kept in a set of
// the request's own (from a pool: a set per request as large as the shop
// would be garbage pacing the collector); a sorted page walks the sort's
// order keeping the selected products.

// filterKind names a filter, so that a facet can leave its own out.
type filterKind uint8

const (
	filterSearch filterKind = iota
	filterCategory
	filterFramework
	filterStock
	filterSale
	filterPrice
	filterKinds
	filterNone = filterKinds // leaves none out
)

// filter holds the products in any of sets (nil ones hold none), or, with
// neg, those in none of them.
type filter struct {
	on   bool
	sets []bitset
	neg  bool
}

// filters are a request's filters over its base set.
type filters struct {
	base bitset
	f    [filterKinds]filter
}

func (fs *filters) set(k filterKind, neg bool, sets ...bitset) {
	fs.f[k] = filter{on: true, sets: sets, neg: neg}
}

// word is the i-th word of the selection, the filter skip left out.
func (fs *filters) word(i int, skip filterKind) uint64 {
	w := fs.base[i]
	for k := range fs.f {
		f := &fs.f[k]
		if w == 0 {
			return 0
		}
		if !f.on || filterKind(k) == skip {
			continue
		}
		var or uint64
		for _, b := range f.sets {
			if b != nil {
				or |= b[i]
			}
		}
		if f.neg {
			or = ^or
		}
		w &= or
	}
	return w
}

// into writes the selection, the filter skip left out, into dst.
func (fs *filters) into(dst bitset, skip filterKind) bitset {
	for i := range dst {
		dst[i] = fs.word(i, skip)
	}
	return dst
}

// scratchSets are the sets requests select into, reused.
var scratchSets sync.Pool

// scratchSet is a set of n products' size, from the pool.
func scratchSet(n int) *bitset {
	words := (n + 63) / 64
	if b, ok := scratchSets.Get().(*bitset); ok && cap(*b) >= words {
		*b = (*b)[:words]
		return b
	}
	b := make(bitset, words)
	return &b
}

// finding is one finding request's selection over a snapshot.
type finding struct {
	s     *Snapshot
	q     api.ListQuery
	now   time.Time
	fs    filters
	sel   *bitset
	total int
	// sale is the on-sale set read, when a filter or facet read it.
	sale *saleSet
	// price is the request's price filter's set, match its search's,
	// from the pool; search is the search parsed.
	price, match *bitset
	search       wpsearch.Query
}

// isFinding reports whether the query is a finding request.
func isFinding(q api.ListQuery) bool {
	by, _ := q.Sort()
	return q.Search != "" || by != "id" || q.MinPrice != nil || q.MaxPrice != nil ||
		q.InStock != nil || q.OnSale != nil || q.Facets
}

// finding selects the products of a finding request: the category (nil: no
// filter) and the framework's set (unions, as Products made them).
func (s *Snapshot) finding(q api.ListQuery, cat []bitset, fw []bitset, now time.Time) *finding {
	f := &finding{s: s, q: q, now: now}
	c := s.cols()
	f.fs.base = s.visible()
	if q.Search != "" {
		f.fs.base = c.searchable
	}
	if cat != nil {
		f.fs.set(filterCategory, false, cat...)
	}
	if fw != nil {
		f.fs.set(filterFramework, false, fw...)
	}
	if q.InStock != nil {
		f.fs.set(filterStock, !*q.InStock, c.inStock)
	}
	if q.OnSale != nil || q.Facets {
		f.sale = s.onSale(now)
	}
	if q.OnSale != nil {
		f.fs.set(filterSale, !*q.OnSale, f.sale.bits)
	}
	if q.MinPrice != nil || q.MaxPrice != nil {
		f.price = scratchSet(len(s.served))
		f.fs.set(filterPrice, false, s.priceSet(*f.price, f.fs.base, q.MinPrice, q.MaxPrice))
	}
	if q.Search != "" {
		// Matched among the products the other filters select, or, for
		// facets, which leave those filters out, among all it may find.
		f.match = scratchSet(len(s.served))
		if q.Facets {
			copy(*f.match, f.fs.base)
		} else {
			f.fs.into(*f.match, filterNone)
		}
		f.search = wpsearch.Parse(q.Search, s.sh.stopwords)
		s.matchSearch(&f.search, q.Search, *f.match)
		if by, _ := q.Sort(); by == "relevance" && f.search.RelevanceFails() {
			// WordPress's query fails: the storefront finds nothing.
			clear(*f.match)
		}
		f.fs.set(filterSearch, false, *f.match)
	}
	f.sel = scratchSet(len(s.served))
	f.fs.into(*f.sel, filterNone)
	f.total = f.sel.count()
	return f
}

// release gives the request's sets back to the pool: nothing it returned
// holds them.
func (f *finding) release() {
	for _, b := range []*bitset{f.sel, f.price, f.match} {
		if b != nil {
			scratchSets.Put(b)
		}
	}
	f.sel, f.price, f.match = nil, nil, nil
}

// priceSet writes into dst the products of base whose price range meets
// the range asked (WC_Query::price_filter_post_clauses: NOT (max <
// min_price OR min > max_price) on the lookup's values), a missing lower
// bound 0 and a missing upper one none.
func (s *Snapshot) priceSet(dst bitset, base bitset, lo, hi *api.Price) bitset {
	c := s.cols()
	// Bounds and prices are far inside int64 (a bound has at most twelve
	// whole digits, a price is clamped: readRanks), so the differences
	// below cannot overflow; their sign bits say whether both hold,
	// without a branch, which random prices would mispredict.
	low, high := api.Price(0), api.Price(1<<62)
	if lo != nil {
		low = *lo
	}
	if hi != nil {
		high = min(*hi, high)
	}
	for wi, w := range base {
		var out uint64
		for ; w != 0; w &= w - 1 {
			b := bits.TrailingZeros64(w)
			pos := wi*64 + b
			out |= (uint64((high-c.minPrice[pos])|(c.maxPrice[pos]-low))>>63 ^ 1) << b
		}
		dst[wi] = out
	}
	return dst
}

// page returns the positions of the page from the offset-th product on,
// at most limit, in the request's order.
func (f *finding) page(offset, limit int) []int {
	by, desc := f.q.Sort()
	sel := *f.sel
	if k, backward, ok := orderOf(by, desc); ok {
		return walk(f.s.order(k), backward, sel, offset, limit)
	}
	if by == "relevance" {
		return f.s.relevancePage(&f.search, sel, offset, limit)
	}
	if desc {
		return sel.pageBackward(offset, limit)
	}
	return sel.page(offset, limit)
}

// walk returns the selected positions of the order from the offset-th
// on, at most limit, walking it from its end when backward.
func walk(order []int32, backward bool, sel bitset, offset, limit int) []int {
	out := make([]int, 0, min(limit, 128))
	n := len(order)
	for i := 0; i < n && len(out) < limit; i++ {
		pos := order[i]
		if backward {
			pos = order[n-1-i]
		}
		if !sel.has(int(pos)) {
			continue
		}
		if offset > 0 {
			offset--
			continue
		}
		out = append(out, int(pos))
	}
	return out
}
