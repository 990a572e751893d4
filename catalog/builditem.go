package catalog

import (
	"cmp"
	"slices"
	"strings"

	"catalogd/wpsearch"
)

func (b *builder) item(sc *scratch, in *interner, sh *shop, tax *terms, r *read, i int) *item {
	rows, post := r.rows, &r.rows.Posts[i]
	id := post.ID
	meta, ttids := r.meta[i], r.terms[i]
	it := &item{id: id, typ: tax.productType(ttids), ttids: ttids, wpml: rows.WPML[id]}
	sc.prices, sc.kids = sc.prices[:0], sc.kids[:0]
	st := stored{own: readPrices(meta, &sc.prices)}
	it.rank = readRanks(post, meta, st.own.price)
	it.protected = post.Password != ""
	if attrs := itemAttributes(meta, tax, it.protected); len(attrs) > 0 {
		it.attrs = &attrs // the interner may swap it for an equal list's
	}
	// is_in_stock(): the stock status is not outofstock (onbackorder is in
	// stock); an external product's setter keeps it in stock whatever the
	// meta says.
	it.inStock = st.own.stockStatus != "outofstock" || it.typ == typeExternal
	switch it.typ {
	case typeVariable:
		variations := r.variations[id]
		if len(variations) > 0 {
			it.varIDs = make([]int64, 0, len(variations))
		}
		for _, k := range variations {
			v := r.post(k)
			it.varIDs = append(it.varIDs, v.ID)
			sc.kids = append(sc.kids, kid{published: v.Status == "publish", typ: typeVariation,
				modified: v.ModifiedTime(), prices: readPrices(r.meta[k], &sc.prices)})
		}
	case typeGrouped:
		it.childIDs = rows.Children[id]
		for _, cid := range it.childIDs {
			if k, ok := r.children[cid]; ok && k >= 0 {
				if c := r.post(k); c.Type == "product" {
					sc.kids = append(sc.kids, kid{published: c.Status == "publish", typ: tax.productType(r.terms[k]),
						modified: c.ModifiedTime(), prices: readPrices(r.meta[k], &sc.prices)})
				}
			}
		}
	}
	st.kids = sc.kids
	// Every variation or child counts, shown or not: disabling one changes
	// the price shown.
	modified := post.ModifiedTime()
	for _, k := range st.kids {
		modified = latest(modified, k.modified)
	}
	if !modified.IsZero() {
		it.modified = modified.Unix()
	}

	cats, fws := sc.cats[:0], sc.fws[:0]
	for _, tt := range it.ttids {
		if c, ok := tax.catByTT[tt]; ok {
			cats = append(cats, c)
		}
		if _, ok := tax.fwByTT[tt]; ok {
			fws = append(fws, tt)
		}
	}
	sc.cats, sc.fws = cats, fws
	// The product's own categories, by name, as wp_get_object_terms gives
	// them; the frameworks in the attribute's order (sortFrameworks). An
	// item without categories or frameworks has empty lists, not none:
	// the wire's [] rather than null.
	slices.SortFunc(cats, func(a, b *category) int { return cmp.Compare(a.nameRank, b.nameRank) })
	sc.catSlugs, sc.catIDs = sc.catSlugs[:0], sc.catIDs[:0]
	for _, c := range cats {
		sc.catSlugs = append(sc.catSlugs, c.Slug)
		sc.catIDs = append(sc.catIDs, c.TermID)
	}
	it.cats, it.catIDs = []string{}, nil
	if len(cats) > 0 {
		it.cats, it.catIDs = sc.catSlugs, sc.catIDs
	}
	slices.SortFunc(fws, func(a, b int64) int { return cmp.Compare(tax.fwByTT[a], tax.fwByTT[b]) })
	sc.fwSlugs = sc.fwSlugs[:0]
	for _, tt := range fws {
		sc.fwSlugs = append(sc.fwSlugs, tax.fwSlug[tt])
	}
	it.fws = []string{}
	if len(fws) > 0 {
		it.fws = sc.fwSlugs
	}

	// The short texts are made in one buffer, the URLs appended to it
	// where they are made, and become one string.
	pk := &sc.texts
	pk.start()
	pk.add(post.Slug)
	pk.add(PlainName(post.Title))
	pk.b = sh.appendProductURL(pk.b, post.Slug, func() string { return productCatPath(tax, cats) })
	pk.end()
	if it.thumb = r.thumbs[i]; r.files[i] != "" {
		pk.b = sh.appendImageURL(pk.b, r.files[i])
	}
	pk.end()
	pk.add(post.TitleKey)
	// get_sku(): the first _sku row. A password-protected product's page
	// shows only the password form, and no other page shows a SKU.
	if !it.protected {
		pk.add(metaFirst(meta, metaSKU))
	} else {
		pk.end()
	}
	// What a search reads: the stored texts, folded. A protected product
	// is never found (searchable): it keeps none.
	if !it.protected {
		pk.b = wpsearch.Fold(pk.b, post.Title)
		it.searchExcerpt = sc.excerpt.fold(sc, in, post.Excerpt)
		it.searchContent = sc.content.fold(sc, in, post.Content)
	}
	pk.end()
	// A password-protected product is listed, priced and sold, but its
	// texts are hidden from a visitor who has not entered the password
	// (post_password_required, woocommerce_template_single_excerpt).
	var summary, list string
	if !it.protected {
		summary = PlainText(post.Excerpt, false)
		list = Truncate(summary, SummaryLimit)
		it.description = PlainText(post.Content, true)
	}
	pk.add(summary)
	if list != summary { // else listSummary reads the summary: one text, kept once
		pk.add(list)
	}
	it.text = string(pk.b)
	for i := range it.ends { // an excerpt's text is far below 4 GiB
		it.ends[i] = uint32(pk.ends[i])
	}
	it.image = it.cut(textImage)

	price, regular := it.prepare(sh, &st, sc)
	it.price, it.regular = sc.format(price, sh.decimals), sc.format(regular, sh.decimals)
	it.prange = sc.priceRange(it, &st, sh)
	in.item(it)
	return it
}

// format is formatted through the core's cache: a shop has few distinct
// prices, and each formatted anew would be two objects a product.
func (sc *scratch) format(stored string, decimals int) *string {
	if p, ok := sc.formatted[stored]; ok {
		return p
	}
	if sc.formatted == nil {
		sc.formatted = map[string]*string{}
	}
	p := formatted(stored, decimals)
	sc.formatted[stored] = p
	return p
}

// prepare computes what of the item's price fields the clock does not
// move, once: whether it is purchasable, and the price sets whose sale
// windows decide on_sale — a variable product's visible variations, a
// grouped product's purchasable published children (those a visitor can
// see: wc_products_array_filter_visible_grouped), or its own. It returns
// the price and regular price shown, as stored (item formats them with
// the shop's decimals).
func (it *item) prepare(sh *shop, st *stored, sc *scratch) (price, regular string) {
	// The regular price shown: a variable product's lowest among its
	// visible variations (read_price_data), a grouped product's lowest
	// among its published children, else its own.
	regs, windows := sc.regs[:0], sc.windows[:0]
	switch it.typ {
	case typeVariable:
		for i := range st.kids {
			if v := &st.kids[i]; v.visible(sh.hideOutOfStock) {
				regs = append(regs, v.regular)
				windows = append(windows, v.window())
			}
		}
		regular = lowestPrice(regs)
	case typeGrouped:
		for i := range st.kids {
			c := &st.kids[i]
			if !c.published {
				continue
			}
			regs = append(regs, c.regular)
			// WC_Product_Grouped::is_on_sale: a purchasable child without
			// children of its own that is on sale.
			if c.typ != typeExternal && c.typ != typeGrouped && c.typ != typeVariable &&
				storedPrice(c.typ, c.price) != "" {
				windows = append(windows, c.window())
			}
		}
		regular = lowestPrice(regs)
	default:
		regular = st.own.regular
		windows = append(windows, st.own.window())
	}
	sc.regs, sc.windows = regs, windows
	it.windows = nil
	if len(windows) > 0 {
		it.windows = windows // scratch: the interner copies it
	}
	price = storedPrice(it.typ, st.own.price)
	// is_purchasable(): published (every product served is) with a price;
	// external and grouped products never are.
	it.purchasable = price != "" && it.typ != typeExternal && it.typ != typeGrouped
	return price, regular
}

// productCatPath is what %product_cat% expands to (wc_product_post_type_link):
// the deepest of the product's categories, ties kept in the storefront's
// term order, with its ancestors; "uncategorized" when it has none.
func productCatPath(tax *terms, cats []*category) string {
	var best *category
	for _, c := range tax.categories { // storefront order
		if !slices.Contains(cats, c) {
			continue
		}
		if best == nil || len(c.path) > len(best.path) {
			best = c
		}
	}
	if best == nil {
		return "uncategorized"
	}
	return strings.Join(best.path, "/")
}

func formatted(stored string, decimals int) *string {
	if stored == "" {
		return nil
	}
	s, ok := FormatPrice(stored, decimals)
	if !ok {
		return nil
	}
	return &s
}

// lastText is the text a core folded last, and the interner's copy of it
// folded: products in a row often share a text (a shop's boilerplate),
// which is then neither folded nor looked up again.
type lastText struct{ raw, folded string }

func (l *lastText) fold(sc *scratch, in *interner, raw string) string {
	if raw == l.raw && l.folded != "" {
		return l.folded
	}
	sc.fold = wpsearch.Fold(sc.fold[:0], raw)
	l.raw, l.folded = raw, in.text(sc.fold)
	return l.folded
}
