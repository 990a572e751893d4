package catalog

import (
	"math/bits"
	"sync/atomic"
	"time"

	"catalogd/api"
)

// finder is what a snapshot's searches, sorts, filters and facets read
// beyond the lookups every request reads: made when a request first needs
// it, once per snapshot, so that a shop whose clients never ask holds
// none of it, and a change costs nothing until they ask.
type finder struct {
	cols   lazy[columns]
	orders orders
	texts  lazy[searchTexts]
	// sale is the last on-sale set made, and the span of time it holds.
	sale atomic.Pointer[saleSet]
}

// columns are the served products' values the filters and facets read,
// by position: read from arrays, a filter over the whole shop reads no
// item.
type columns struct {
	minPrice, maxPrice []api.Price
	inStock            bitset
	protected          bitset
	// saleable are those a sale window can put on sale (a sale price
	// below the regular one): the on-sale set is made of these alone.
	saleable bitset
	// searchable are the products a search finds (searchable).
	searchable bitset
}

// cols returns s's columns, made on first use.
func (s *Snapshot) cols() *columns {
	return s.find.cols.get(func() *columns {
		n := len(s.served)
		c := &columns{minPrice: make([]api.Price, n), maxPrice: make([]api.Price, n),
			inStock: newBitset(n), protected: newBitset(n), saleable: newBitset(n)}
		for pos, it := range s.served {
			c.fill(pos, it)
		}
		c.searchable = s.searchable(c.protected)
		return c
	})
}

// fill sets the values of the product at the position.
func (c *columns) fill(pos int, it *item) {
	c.minPrice[pos], c.maxPrice[pos] = it.rank.minPrice, it.rank.maxPrice
	put := func(b bitset, in bool) {
		if in {
			b.set(pos)
		} else {
			b.clear(pos)
		}
	}
	put(c.inStock, it.inStock)
	put(c.protected, it.protected)
	saleable := false
	for i := range it.windows {
		saleable = saleable || it.windows[i].below
	}
	put(c.saleable, saleable)
}

// searchable is the set of products WordPress's search shows an anonymous
// visitor of the storefront (WC_Query::get_tax_query for a search, and
// WP_Query::parse_search): without the exclude-from-search visibility
// term ("search results only" products, hidden from the catalog, are
// found; "shop only" and hidden ones are not), nor the outofstock one
// while the shop hides out-of-stock products, and without a password.
func (s *Snapshot) searchable(protected bitset) bitset {
	ex := []int64{}
	if id, ok := s.t.visibility[visExcludeFromSearch]; ok {
		ex = append(ex, id)
	}
	if id, ok := s.t.visibility[visOutOfStock]; ok && s.sh.hideOutOfStock {
		ex = append(ex, id)
	}
	out := s.every.andNot(s.union(ex))
	for i := range out {
		out[i] &^= protected[i]
	}
	return out
}

// derive makes n's finder from f, its parent's, for a snapshot whose
// served products keep their positions, those at the positions changed
// replaced: what f has made is carried over with those products' values
// replaced (an order's positions moved), so that a stock or price change
// does not cost the next finding request a whole shop's sort. What f has
// not made, n makes when asked.
func (f *finder) derive(n *Snapshot, changed []int32) *finder {
	d := &finder{}
	if len(changed) > maxDerived {
		return d
	}
	if c := f.cols.peek(); c != nil {
		nc := &columns{minPrice: append([]api.Price(nil), c.minPrice...), maxPrice: append([]api.Price(nil), c.maxPrice...),
			inStock: clone(c.inStock), protected: clone(c.protected), saleable: clone(c.saleable)}
		for _, pos := range changed {
			nc.fill(int(pos), n.served[pos])
		}
		nc.searchable = n.searchable(nc.protected)
		d.cols.set(nc)
	}
	if x := f.texts.peek(); x != nil {
		if dx := x.derive(n, changed); dx != nil {
			d.texts.set(dx)
		}
	}
	out := newBitset(len(n.served))
	for _, pos := range changed {
		out.set(int(pos))
	}
	for k := range f.orders {
		if p := f.orders[k].peek(); p != nil {
			o := n.deriveOrder(orderKind(k), *p, changed, out)
			d.orders[k].set(&o)
		}
	}
	return d
}

// maxDerived is the most products changed at once whose orders are
// derived: each costs a copy of every order, and past that many a sort
// is the cheaper.
const maxDerived = 64

func clone(b bitset) bitset { return append(bitset(nil), b...) }

// saleSet is the set of products on sale during [from, until): a sale
// begins or ends at neither bound's side (until zero: none ahead).
type saleSet struct {
	bits        bitset
	from, until time.Time
}

func (ss *saleSet) holds(now time.Time) bool {
	return !now.Before(ss.from) && (ss.until.IsZero() || now.Before(ss.until))
}

// onSale returns the set of products on sale at now, as their on_sale
// field says (product): the set last made while it holds, else one made
// anew from the products a sale can touch.
func (s *Snapshot) onSale(now time.Time) *saleSet {
	if ss := s.find.sale.Load(); ss != nil && ss.holds(now) {
		return ss
	}
	c := s.cols()
	ss := &saleSet{bits: newBitset(len(s.served))}
	for wi, w := range c.saleable {
		for ; w != 0; w &= w - 1 {
			pos := wi*64 + bits.TrailingZeros64(w)
			it := s.served[pos]
			for i := range it.windows {
				win := &it.windows[i]
				if win.onSale(now) {
					ss.bits.set(pos)
				}
				ss.until = earliest(ss.until, win.saleChange(now))
				ss.from = latest(ss.from, win.salePassed(now))
			}
		}
	}
	s.find.sale.Store(ss)
	return ss
}
