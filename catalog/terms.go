package catalog

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// The taxonomies the catalog reads, and the product_visibility terms that
// keep a product out of the shop loop (WC_Query::get_tax_query).
const (
	taxCategory   = "product_cat"
	taxVisibility = "product_visibility"
	taxType       = "product_type"
	taxFramework  = "pa_framework"
	taxTag        = "product_tag"
	// Polylang's languages: a `language` term per language files posts,
	// its `term_language` twin (slug pll_{code}) files terms.
	taxLanguage     = "language"
	taxTermLanguage = "term_language"
	// attrFramework is the global attribute pa_framework is the taxonomy of.
	attrFramework = "framework"

	visExcludeFromCatalog = "exclude-from-catalog"
	visExcludeFromSearch  = "exclude-from-search"
	visOutOfStock         = "outofstock"
)

// category is a product_cat term placed in its tree.
type category struct {
	Term
	name     string   // plain text
	nameRank int      // position in the database's name order
	path     []string // slugs from the root down to this one
	parent   *category
	subtree  []int64 // term_taxonomy_ids of itself and every descendant
}

// terms is every term of the small taxonomies the catalog needs, read with
// the shop and placed once per snapshot.
type terms struct {
	categories []*category // in the storefront's order: "order" meta, then name
	catByTT    map[int64]*category
	catBySlug  map[string]*category
	visibility map[string]int64 // slug → term_taxonomy_id
	typeByTT   map[int64]productType
	fwByTT     map[int64]int    // term_taxonomy_id → position in the attribute's order
	fwSlug     map[int64]string // term_taxonomy_id → slug
	fwBySlug   map[string]int64
	tagByTT    map[int64]tag
	attrTax    map[string]*attrTaxonomy // registered global attributes by taxonomy
	attrTerms  map[int64]attrTerm       // their terms by term_taxonomy_id
}

// tag is a product_tag term as a product's tags show it.
type tag struct {
	slug     string
	nameRank int // position in the database's name order
}

// buildTerms places the terms the catalog shows and filters on.
func buildTerms(rows *ShopRows, sh *shop) *terms {
	inLanguage := categoriesInLanguage(rows, sh)
	tax := &terms{
		catByTT:    map[int64]*category{},
		catBySlug:  map[string]*category{},
		visibility: map[string]int64{},
		typeByTT:   map[int64]productType{},
		fwByTT:     map[int64]int{},
		fwSlug:     map[int64]string{},
		fwBySlug:   map[string]int64{},
		tagByTT:    map[int64]tag{},
	}
	byTermID := map[int64]*category{}
	var fws []Term
	for i, r := range rows.Terms { // rows come in name order
		switch r.Taxonomy {
		case taxCategory:
			if inLanguage != nil && !inLanguage(r) {
				continue // a translation's category
			}
			c := &category{Term: r, name: PlainName(r.Name), nameRank: i}
			tax.categories = append(tax.categories, c)
			tax.catByTT[r.TTID] = c
			tax.catBySlug[r.Slug] = c
			byTermID[r.TermID] = c
		case taxVisibility:
			tax.visibility[r.Slug] = r.TTID
		case taxType:
			tax.typeByTT[r.TTID] = productTypes.code(r.Slug)
		case taxFramework:
			fws = append(fws, r)
			tax.fwSlug[r.TTID] = r.Slug
			tax.fwBySlug[r.Slug] = r.TTID
		case taxTag:
			tax.tagByTT[r.TTID] = tag{slug: r.Slug, nameRank: i}
		}
	}

	for _, c := range tax.categories {
		c.parent = byTermID[c.Parent]
	}
	for _, c := range tax.categories {
		// Walk up, guarding against a damaged tree that loops.
		for p, depth := c, 0; p != nil && depth <= len(tax.categories); p, depth = p.parent, depth+1 {
			c.path = append([]string{p.Slug}, c.path...)
			p.subtree = append(p.subtree, c.TTID)
		}
	}
	slices.SortStableFunc(tax.categories, func(a, b *category) int {
		return cmp.Or(cmp.Compare(a.Order, b.Order), cmp.Compare(a.nameRank, b.nameRank))
	})

	tax.placeAttributes(rows)
	sortFrameworks(fws, sh.frameworkOrder)
	for i, f := range fws {
		tax.fwByTT[f.TTID] = i
	}
	return tax
}

// categoriesInLanguage says which product categories belong to the language
// served where the plugin translates product_cat: WPML files them by
// term_taxonomy_id, Polylang relates their term_id to the term_language term
// pll_{code}. Nil: every category, as WordPress shows a taxonomy the plugin
// does not translate.
func categoriesInLanguage(rows *ShopRows, sh *shop) func(Term) bool {
	if !sh.categories {
		return nil
	}
	switch sh.plugin {
	case pluginWPML:
		return func(r Term) bool { return rows.WPMLTerms[r.TTID] == sh.language }
	case pluginPolylang:
		set := map[int64]bool{}
		for _, m := range rows.Members {
			if m.TTID == sh.pllTermLanguageTT {
				set[m.ObjectID] = true
			}
		}
		return func(r Term) bool { return set[r.TermID] }
	}
	return nil
}

// sortFrameworks puts attribute terms in the storefront's order for the
// attribute (wc_change_get_terms_defaults and wc_terms_clauses): menu_order
// sorts by the "order" meta then name; name_num by the name's leading number
// (MySQL's name+0); name by name. "id" sorts by name too: WooCommerce drops
// that setting from get_terms' defaults, and catalogd shows what the
// storefront shows (https://github.com/woocommerce/woocommerce/issues/30052,
// https://github.com/woocommerce/woocommerce/issues/45521). The rows arrive
// in name order.
func sortFrameworks(fws []Term, orderBy string) {
	switch orderBy {
	case "name", "id":
		// already in name order
	case "name_num":
		slices.SortStableFunc(fws, func(a, b Term) int {
			return cmp.Compare(leadingNumber(a.Name), leadingNumber(b.Name))
		})
	default: // menu_order, and the default for an unregistered attribute
		slices.SortStableFunc(fws, func(a, b Term) int { return cmp.Compare(a.Order, b.Order) })
	}
}

// leadingNumber is MySQL's string-to-number conversion: the longest numeric
// prefix, 0 when there is none.
func leadingNumber(s string) float64 {
	s = strings.TrimLeft(s, " \t\n")
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.' || end == 0 && (s[end] == '-' || s[end] == '+')) {
		end++
	}
	for ; end > 0; end-- {
		if f, err := strconv.ParseFloat(s[:end], 64); err == nil {
			return f
		}
	}
	return 0
}

// tags are the slugs of a product's product_tag terms, in the order the
// single product page lists them (wc_get_product_tag_list →
// get_the_term_list → get_the_terms, whose wp_get_object_terms and the
// term cache the main query primes both order by name); [] for none.
func (tax *terms) tags(ttids []int64) *[]string {
	var own []tag
	for _, tt := range ttids {
		if t, ok := tax.tagByTT[tt]; ok {
			own = append(own, t)
		}
	}
	slices.SortFunc(own, func(a, b tag) int { return cmp.Compare(a.nameRank, b.nameRank) })
	slugs := make([]string, len(own))
	for i, t := range own {
		slugs[i] = t.slug
	}
	return &slugs
}
