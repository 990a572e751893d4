package catalog

import (
	"cmp"
	"html"
	"slices"
	"strings"

	"catalogd/api"
	"catalogd/wpopt"
)

// attribute is a visible attribute of an item, as the product page's
// "Additional information" lists it (wc_display_product_attributes). A
// global attribute's values are the item's terms of its taxonomy, read at
// render from the item's term_taxonomy_ids: the item keeps only its key.
// Comparable, so that the items with equal lists share one (interner).
type attribute struct {
	key   string // the taxonomy (pa_framework), or a local attribute's sanitized name
	label string // a local attribute's name as stored; a global one's comes from its registration
	// local is a local attribute's values joined by WC_DELIMITER, which
	// none of them holds: one string where a list would be one more
	// object for the collector.
	local  string
	global bool
}

// attrTaxonomy is a registered global attribute.
type attrTaxonomy struct {
	taxonomy string // pa_{attribute_name}
	label    string // attribute_label, as wc_attribute_label gives it
}

// attrTerm is a term of a registered attribute's taxonomy.
type attrTerm struct {
	taxonomy   string
	slug, name string // name as plain text
	rank       int    // position in the attribute's order (sortFrameworks)
}

// placeAttributes registers the global attributes and places their terms
// in each one's storefront order. The first registration of a name counts,
// as for the framework attribute.
func (tax *terms) placeAttributes(rows *ShopRows) {
	tax.attrTax = map[string]*attrTaxonomy{}
	tax.attrTerms = map[int64]attrTerm{}
	orderBy := map[string]string{}
	for _, a := range rows.AttributeTaxonomies {
		name := AttributeTaxonomyPrefix + a.Name
		if _, ok := tax.attrTax[name]; !ok {
			tax.attrTax[name] = &attrTaxonomy{taxonomy: name, label: a.Label}
			orderBy[name] = a.OrderBy
		}
	}
	byTax := map[string][]Term{}
	for _, r := range rows.Terms { // in name order
		if _, ok := tax.attrTax[r.Taxonomy]; ok {
			byTax[r.Taxonomy] = append(byTax[r.Taxonomy], r)
		}
	}
	for name, ts := range byTax {
		sortFrameworks(ts, orderBy[name])
		for i, r := range ts {
			tax.attrTerms[r.TTID] = attrTerm{taxonomy: tax.attrTax[name].taxonomy, slug: r.Slug, name: PlainName(r.Name), rank: i}
		}
	}
}

// itemAttributes reads a product's visible attributes from its
// _product_attributes (WC_Product::get_attributes filtered by
// wc_attributes_array_filter_visible): in position order, a global one
// only while its taxonomy is registered. A password-protected product's
// page shows only the password form: it has none. Damaged meta shows none,
// as read_attributes finds no array in it.
func itemAttributes(meta []MetaRow, tax *terms, protected bool) []attribute {
	raw := metaFirst(meta, metaProductAttributes)
	if protected || raw == "" {
		return nil
	}
	stored, err := wpopt.ParseProductAttributes(raw)
	if err != nil {
		return nil
	}
	var out []attribute
	for _, a := range stored {
		switch {
		case !a.Visible:
		case a.Taxonomy:
			if reg, ok := tax.attrTax[a.Name]; ok {
				out = append(out, attribute{key: reg.taxonomy, global: true})
			}
		default:
			out = append(out, attribute{key: a.Key, label: a.Name, local: strings.Join(textAttributes(a.Value), "|")})
		}
	}
	return out
}

// textAttributes are a local attribute's values (wc_get_text_attributes):
// entities decoded, split on WC_DELIMITER, trimmed as PHP's trim() does,
// the empty ones dropped.
func textAttributes(raw string) []string {
	var out []string
	for _, v := range strings.Split(html.UnescapeString(raw), "|") {
		if v = strings.Trim(v, " \t\n\r\x00\x0b"); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// attributes are the item's attributes as the single product shows them;
// [] for none. A global attribute's values are the product's terms of its
// taxonomy (wc_get_product_terms), in the attribute's order.
func (tax *terms) attributes(it *item) *[]api.Attribute {
	var attrs []attribute
	if it.attrs != nil {
		attrs = *it.attrs
	}
	out := make([]api.Attribute, 0, len(attrs))
	for _, a := range attrs {
		w := api.Attribute{Name: a.key, Label: a.label, Values: []api.AttributeValue{}}
		if !a.global {
			if a.local != "" {
				for v := range strings.SplitSeq(a.local, "|") {
					w.Values = append(w.Values, api.AttributeValue{Slug: v, Name: v})
				}
			}
			out = append(out, w)
			continue
		}
		if reg := tax.attrTax[a.key]; reg != nil {
			w.Label = reg.label
		}
		var own []attrTerm
		for _, tt := range it.ttids {
			if t, ok := tax.attrTerms[tt]; ok && t.taxonomy == a.key {
				own = append(own, t)
			}
		}
		slices.SortFunc(own, func(x, y attrTerm) int { return cmp.Compare(x.rank, y.rank) })
		for _, t := range own {
			w.Values = append(w.Values, api.AttributeValue{Slug: t.slug, Name: t.name})
		}
		out = append(out, w)
	}
	return &out
}
