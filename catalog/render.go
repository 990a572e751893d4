package catalog

import (
	"time"

	"catalogd/api"
)

// product is the resource of an item at now: the full one (the whole
// summary and the description) or the list's. Only the sale windows are
// read at now; the rest was computed when the snapshot was built.
func (sh *shop) product(it *item, full bool, now time.Time) Product {
	var sale bool
	var until time.Time
	modified := it.modifiedTime()
	for i := range it.windows {
		w := &it.windows[i]
		sale = sale || w.onSale(now)
		until = earliest(until, w.saleChange(now))
		modified = latest(modified, w.salePassed(now))
	}
	p := Product{Product: api.Product{
		Slug:         it.slug(),
		Name:         it.name(),
		URL:          it.url(),
		Price:        it.price,
		RegularPrice: it.regular,
		OnSale:       sale,
		Currency:     sh.currency,
		InStock:      it.inStock,
		Purchasable:  it.purchasable,
		PriceRange:   it.prange.at(it.windows, now),
		Categories:   it.cats,
		Frameworks:   it.fws,
		Image:        optional(&it.image),
		Summary:      it.listSummary(),
	},
		ExpiresAt:   until,
		Modified:    notAfter(modified, now),
		ID:          it.id,
		CategoryIDs: it.catIDs,
	}
	if sku := it.sku(); sku != "" {
		p.SKU = &sku // wc_product_sku_enabled(): a filter, true unless a plugin says otherwise
	}
	if full {
		p.Summary = it.summary()
		p.Description = &it.description // read-only, as optional's
	}
	return p
}

// single is the single product's resource at now: the full product with
// its tags and attributes, which the list leaves out.
func (s *Snapshot) single(it *item, now time.Time) Product {
	p := s.sh.product(it, true, now)
	p.Tags = s.t.tags(it.ttids)
	p.Attributes = s.t.attributes(it)
	return p
}

// optional is the wire's form of an item's optional text: nil when
// empty, else a pointer into the item, which no reader writes through.
// A string boxed apart for the pointer would be one more object per
// product for the collector to mark.
func optional(s *string) *string {
	if *s == "" {
		return nil
	}
	return s
}
