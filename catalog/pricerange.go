package catalog

import (
	"time"

	"catalogd/api"
)

// The price range a variable or a grouped product shows: the storefront
// prints "min – max" where the two differ, one price where they do not
// (the wire's null), as do simple and external products.
//
// A variable product's is WC_Product_Variable::get_price_html over
// get_variation_prices(true): the visible variations (visible, the rule
// its regular_price and on_sale read), each at its active price, which a
// variation's read computes at every request (its sale price while on sale
// by the sale dates, else its regular price: its own _price is not read),
// rounded to the shop's decimals before min and max are compared. A
// grouped product's is WC_Product_Grouped::get_price_html: its published
// children's get_price(), compared exactly, each rounded when shown.

// priceRange is what an item keeps of its range: fixed when no sale date
// can move it (interned: products share theirs), else each visible
// variation's prices beside the item's windows, read at each response.
type priceRange struct {
	fixed *api.PriceRange
	kids  []kidPrice
}

// kidPrice is a visible variation's regular and sale price, formatted
// with the shop's decimals; nil where it has none.
type kidPrice struct{ regular, sale *string }

// at is the range shown at now: nil where there is none. windows are the
// item's, one per kid.
func (r *priceRange) at(windows []window, now time.Time) *api.PriceRange {
	if r == nil {
		return nil
	}
	if r.kids == nil {
		return r.fixed
	}
	var lo, hi *string
	var dlo, dhi decimal
	for i, k := range r.kids {
		p := k.regular
		if windows[i].onSale(now) { // is_on_sale: below the regular price, so set
			p = k.sale
		}
		if p == nil {
			continue // read_price_data skips a variation without a price
		}
		d, _ := parseDecimal(*p)
		if lo == nil || d.cmp(dlo) < 0 {
			lo, dlo = p, d
		}
		if hi == nil || d.cmp(dhi) > 0 {
			hi, dhi = p, d
		}
	}
	if lo == nil || dlo.cmp(dhi) == 0 {
		return nil
	}
	return &api.PriceRange{Min: *lo, Max: *hi}
}

// moves says whether a window's on_sale can change by the clock alone.
func (w *window) moves() bool { return w.below && (w.hasFrom || w.hasTo) }

// priceRange builds the item's range from its kids as prepare left them
// (it.windows: the visible variations', in their order). decimals are the
// shop's.
func (sc *scratch) priceRange(it *item, st *stored, sh *shop) *priceRange {
	switch it.typ {
	case typeVariable:
		kids, moving := sc.kidPrices[:0], false
		for i := range st.kids {
			if v := &st.kids[i]; v.visible(sh.hideOutOfStock) {
				kids = append(kids, kidPrice{regular: sc.format(v.regular, sh.decimals), sale: sc.format(v.sale, sh.decimals)})
			}
		}
		sc.kidPrices = kids
		for i := range it.windows {
			moving = moving || it.windows[i].moves()
		}
		if len(kids) < 2 {
			return nil
		}
		r := &priceRange{kids: kids}
		if moving {
			r.kids = append([]kidPrice(nil), kids...) // scratch: the item keeps its own
			return r
		}
		// No date moves a sale: the range is the same at every instant.
		return fixedRange(r.at(it.windows, time.Time{}))
	case typeGrouped:
		var lo, hi string
		var dlo, dhi decimal
		for i := range st.kids {
			c := &st.kids[i]
			p := storedPrice(c.typ, c.price)
			if !c.published || p == "" {
				continue
			}
			d, _ := parseDecimal(p)
			if lo == "" || d.cmp(dlo) < 0 {
				lo, dlo = p, d
			}
			if hi == "" || d.cmp(dhi) > 0 {
				hi, dhi = p, d
			}
		}
		if lo == "" || dlo.cmp(dhi) == 0 {
			return nil
		}
		return fixedRange(&api.PriceRange{Min: *sc.format(lo, sh.decimals), Max: *sc.format(hi, sh.decimals)})
	}
	return nil
}

func fixedRange(r *api.PriceRange) *priceRange {
	if r == nil {
		return nil
	}
	return &priceRange{fixed: r}
}
