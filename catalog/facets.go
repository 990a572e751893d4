package catalog

import (
	"math/bits"
	"strconv"
	"strings"

	"catalogd/api"
)

// facets counts the request's products by category, framework, stock and
// sale, and finds their lowest and highest price, each over the selection
// with its own filter left out, as WooCommerce's layered-navigation and
// price-filter widgets count (a category's count would otherwise be the
// total, or nothing). Paging plays no part. Categories are those the
// categories resource lists, counted with their descendants; counts of
// zero are left out.
func (f *finding) facets() *api.Facets {
	s, c := f.s, f.s.cols()
	out := &api.Facets{Categories: map[string]int{}, Frameworks: map[string]int{}}
	var spare *bitset
	defer func() {
		if spare != nil {
			scratchSets.Put(spare)
		}
	}()
	// without is the selection, the filter left out: the request's own
	// when it has no such filter.
	without := func(k filterKind) bitset {
		if !f.fs.f[k].on {
			return *f.sel
		}
		if spare == nil {
			spare = scratchSet(len(s.served))
		}
		return f.fs.into(*spare, k)
	}

	set := without(filterCategory)
	for _, cat := range s.agg.categories {
		subtree := s.memberSets(s.t.catBySlug[cat.Slug].subtree)
		n := 0
		for i, w := range set {
			if w == 0 {
				continue
			}
			var or uint64
			for _, b := range subtree {
				if b != nil {
					or |= b[i]
				}
			}
			n += bits.OnesCount64(w & or)
		}
		if n > 0 {
			out.Categories[cat.Slug] = n
		}
	}
	set = without(filterFramework)
	for tt, slug := range s.t.fwSlug {
		if b := s.members[tt]; b != nil {
			if n := set.andCount(b); n > 0 {
				out.Frameworks[slug] = n
			}
		}
	}
	set = without(filterStock)
	out.Stock.InStock = set.andCount(c.inStock)
	out.Stock.OutOfStock = set.count() - out.Stock.InStock
	out.OnSale = without(filterSale).andCount(f.sale.bits)

	set = without(filterPrice)
	low, high, found := api.Price(0), api.Price(0), false
	for wi, w := range set {
		for ; w != 0; w &= w - 1 {
			pos := wi*64 + bits.TrailingZeros64(w)
			if !found || c.minPrice[pos] < low {
				low = c.minPrice[pos]
			}
			if !found || c.maxPrice[pos] > high {
				high = c.maxPrice[pos]
			}
			found = true
		}
	}
	if found {
		d := s.sh.decimals
		out.Price = &api.PriceFacet{Min: priceDecimal(low).format(d), Max: priceDecimal(high).format(d)}
	}
	return out
}

// priceDecimal is a price in millionths as a decimal, to be formatted as
// the list formats the stored prices.
func priceDecimal(p api.Price) decimal {
	var d decimal
	u := uint64(p)
	if p < 0 {
		d.neg, u = true, uint64(-p)
	}
	d.int = strings.TrimLeft(strconv.FormatUint(u/1_000_000, 10), "0")
	frac := strconv.FormatUint(u%1_000_000, 10)
	d.frac = strings.TrimRight(strings.Repeat("0", 6-len(frac))+frac, "0")
	if d.int == "" && d.frac == "" {
		d.neg = false
	}
	return d
}
