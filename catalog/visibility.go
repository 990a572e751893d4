package catalog

import "strings"

// Which products an anonymous visitor of the storefront sees, in one place:
//   - served: published (post_status publish, type product) and, where a
//     translation plugin translates products, filed under the language
//     served (serves); found by its slug, hidden from the catalog or not;
//   - catalog-visible: served, without the exclude-from-catalog visibility
//     term, nor the outofstock one while the shop hides out-of-stock
//     products (WC_Query::get_tax_query; visible); the list, its filters
//     and counts, the category counts and the index count these;
//   - password-protected: listed, priced and sold, its texts empty (item);
//   - a variable product is priced from its enabled variations with a price
//     (not the out-of-stock ones while the shop hides them), a grouped one
//     from its published children (visible, below; prepare, builditem.go).

// serves reports whether the storefront shows the product in the language
// served: every product on a shop without a translation plugin, with
// TranslatePress (one post per product) or where products are not
// translated; else those the plugin files under the language.
func (sh *shop) serves(it *item) bool {
	if !sh.products {
		return true
	}
	switch sh.plugin {
	case pluginWPML:
		return it.wpml.Language == sh.language
	case pluginPolylang:
		for _, tt := range it.ttids {
			if tt == sh.pllLanguageTT {
				return true
			}
		}
		return false
	}
	return true
}

// catalogExclusions are the visibility terms that keep a served product
// out of the catalog-visible ones.
func (tax *terms) catalogExclusions(hideOutOfStock bool) []int64 {
	var ex []int64
	if id, ok := tax.visibility[visExcludeFromCatalog]; ok {
		ex = append(ex, id)
	}
	if id, ok := tax.visibility[visOutOfStock]; ok && hideOutOfStock {
		ex = append(ex, id)
	}
	return ex
}

// tracked are the terms whose members a snapshot keeps as bitsets: the
// categories, the frameworks and the visibility terms.
func (tax *terms) tracked() map[int64]bool {
	out := make(map[int64]bool, len(tax.catByTT)+len(tax.fwByTT)+len(tax.visibility))
	for tt := range tax.catByTT {
		out[tt] = true
	}
	for tt := range tax.fwByTT {
		out[tt] = true
	}
	for _, tt := range tax.visibility {
		out[tt] = true
	}
	return out
}

// union is the set of served products carrying any of the terms.
func (s *Snapshot) union(ttids []int64) bitset {
	return s.unionInto(newBitset(len(s.served)), ttids)
}

// unionInto adds to dst, a set of the served products' size, those
// carrying any of the terms, and returns it.
func (s *Snapshot) unionInto(dst bitset, ttids []int64) bitset {
	for _, tt := range ttids {
		if b := s.members[tt]; b != nil {
			dst.orInto(b)
		}
	}
	return dst
}

// memberSets are the sets of served products carrying each term, for a
// selection (nil for a term no served product carries).
func (s *Snapshot) memberSets(ttids []int64) []bitset {
	out := make([]bitset, len(ttids))
	for i, tt := range ttids {
		out[i] = s.members[tt]
	}
	return out
}

// visible is the set of catalog-visible products, computed with the
// snapshot (aggregates); it is shared: never modify it.
func (s *Snapshot) visible() bitset { return s.agg.visible }

// computeVisible computes the set of catalog-visible products.
func (s *Snapshot) computeVisible() bitset {
	return s.every.andNot(s.union(s.t.catalogExclusions(s.sh.hideOutOfStock)))
}

// visible is whether the storefront prices a variable product from the
// variation (get_visible_children): an enabled one, not out of stock when
// the shop hides those, with a price.
func (v *kid) visible(hideOutOfStock bool) bool {
	return v.published && (!hideOutOfStock || v.stockStatus != "outofstock") &&
		len(v.price) > 0 && strings.TrimSpace(v.price[0]) != ""
}
