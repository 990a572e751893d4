package catalog

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"catalogd/wpdb"
)

// Product types (product_type terms); a product without one is simple.
const (
	typeSimple   = "simple"
	typeVariable = "variable"
	typeGrouped  = "grouped"
	typeExternal = "external"
)

// Meta keys the mapping reads.
const (
	metaPrice        = "_price"
	metaRegularPrice = "_regular_price"
	metaSalePrice    = "_sale_price"
	metaSaleFrom     = "_sale_price_dates_from"
	metaSaleTo       = "_sale_price_dates_to"
	metaStockStatus  = "_stock_status"
	metaThumbnail    = "_thumbnail_id"
	metaChildren     = "_children"
	metaAttachedFile = "_wp_attached_file"
)

var (
	productKeys = []string{metaPrice, metaRegularPrice, metaSalePrice, metaSaleFrom, metaSaleTo,
		metaStockStatus, metaThumbnail, metaChildren}
	// childKeys are read for variations, grouped children and attachments
	// in one query.
	childKeys = []string{metaPrice, metaRegularPrice, metaSalePrice, metaSaleFrom, metaSaleTo,
		metaStockStatus, metaAttachedFile}
)

// related is what a product's price rules need of a variation or a grouped
// product's child.
type related struct {
	post wpdb.Post
	typ  string
}

// productData holds everything read for a set of products, in a constant
// number of queries whatever their number.
type productData struct {
	posts     map[int64]wpdb.Post
	meta      wpdb.Meta // products'
	rels      map[int64][]int64
	children  map[int64][]related // variable → variations, grouped → children
	childMeta wpdb.Meta           // variations', children's and attachments'
}

// loadProducts reads the products with the IDs and everything their fields
// need: posts, meta, terms, variations or children, attachments.
func loadProducts(ctx context.Context, tx *wpdb.Tx, t *terms, ids []int64, full bool) (*productData, error) {
	posts, err := tx.Posts(ctx, ids, full)
	if err != nil {
		return nil, err
	}
	d := &productData{posts: make(map[int64]wpdb.Post, len(posts)), children: map[int64][]related{}}
	for _, p := range posts {
		d.posts[p.ID] = p
	}
	if d.meta, err = tx.Meta(ctx, ids, productKeys); err != nil {
		return nil, err
	}
	if d.rels, err = tx.Relationships(ctx, ids); err != nil {
		return nil, err
	}

	var variable []int64
	groupedChildren := map[int64][]int64{}
	var childIDs []int64
	for _, id := range ids {
		switch t.productType(d.rels[id]) {
		case typeVariable:
			variable = append(variable, id)
		case typeGrouped:
			kids, err := wpdb.ParseIDList(d.meta.First(id, metaChildren))
			if err != nil {
				// A damaged _children leaves the group empty, as
				// wp_parse_id_list(false) would.
				kids = nil
			}
			groupedChildren[id] = kids
			childIDs = append(childIDs, kids...)
		}
	}

	variations, err := tx.Variations(ctx, variable)
	if err != nil {
		return nil, err
	}
	var metaIDs []int64
	for _, v := range variations {
		d.children[v.Parent] = append(d.children[v.Parent], related{post: v, typ: "variation"})
		metaIDs = append(metaIDs, v.ID)
	}
	if len(childIDs) > 0 {
		kids, err := tx.Posts(ctx, childIDs, false)
		if err != nil {
			return nil, err
		}
		kidRels, err := tx.Relationships(ctx, childIDs)
		if err != nil {
			return nil, err
		}
		byID := map[int64]wpdb.Post{}
		for _, k := range kids {
			byID[k.ID] = k
			metaIDs = append(metaIDs, k.ID)
		}
		for parent, list := range groupedChildren {
			for _, id := range list {
				if k, ok := byID[id]; ok && k.Type == "product" {
					d.children[parent] = append(d.children[parent], related{post: k, typ: t.productType(kidRels[id])})
				}
			}
		}
	}
	for _, id := range ids {
		if th, err := strconv.ParseInt(d.meta.First(id, metaThumbnail), 10, 64); err == nil && th > 0 {
			metaIDs = append(metaIDs, th)
		}
	}
	if d.childMeta, err = tx.Meta(ctx, metaIDs, childKeys); err != nil {
		return nil, err
	}
	return d, nil
}

// productType is the product's product_type term, simple when it has none.
func (t *terms) productType(ttids []int64) string {
	for _, tt := range ttids {
		if typ, ok := t.typeByTT[tt]; ok {
			return typ
		}
	}
	return typeSimple
}

// saleWindow reads a sale date meta: a UTC Unix timestamp, as WooCommerce
// 3.0+ stores it; very old shops stored a Y-m-d date. ok is false when the
// bound is not set.
func saleBound(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Unix(n, 0), n != 0
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// onSale is WC_Product::is_on_sale() for a product or variation with its
// own prices: a sale price below the regular price, and now inside the sale
// dates, both ends inclusive to the second. The dates are read now, not
// trusted to the _price that a background job rewrites with a lag.
func onSale(m wpdb.Meta, id int64, now time.Time) bool {
	sale := m.First(id, metaSalePrice)
	if !priceLess(sale, m.First(id, metaRegularPrice)) {
		return false
	}
	if from, ok := saleBound(m.First(id, metaSaleFrom)); ok && from.After(now) {
		return false
	}
	if to, ok := saleBound(m.First(id, metaSaleTo)); ok && to.Before(now) {
		return false
	}
	return true
}

// saleChange is the next instant after now at which onSale of the post can
// change by the clock alone: the start of its sale, or the second after its
// end (the end is inclusive). Zero when neither lies ahead.
func saleChange(m wpdb.Meta, id int64, now time.Time) time.Time {
	if m.First(id, metaSalePrice) == "" {
		return time.Time{}
	}
	var next time.Time
	if from, ok := saleBound(m.First(id, metaSaleFrom)); ok && from.After(now) {
		next = from
	}
	if to, ok := saleBound(m.First(id, metaSaleTo)); ok && to.Add(time.Second).After(now) {
		next = earliest(next, to.Add(time.Second))
	}
	return next
}

// salePassed is the last instant at or before now at which onSale of the
// post changed by the clock alone: the start of its sale or the second
// after its end. The response changed then without any post being saved.
func salePassed(m wpdb.Meta, id int64, now time.Time) time.Time {
	if m.First(id, metaSalePrice) == "" {
		return time.Time{}
	}
	var last time.Time
	if from, ok := saleBound(m.First(id, metaSaleFrom)); ok && !from.After(now) {
		last = from
	}
	if to, ok := saleBound(m.First(id, metaSaleTo)); ok && !to.Add(time.Second).After(now) {
		last = latest(last, to.Add(time.Second))
	}
	return last
}

// earliest is the earlier of two instants, a zero one meaning "never".
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// visibleVariations are the variations the storefront prices a variable
// product from (get_visible_children): enabled ones, without the out of
// stock ones when the shop hides those, with a price.
func visibleVariations(d *productData, id int64, hideOutOfStock bool) []related {
	var out []related
	for _, v := range d.children[id] {
		if v.post.Status != "publish" {
			continue
		}
		if hideOutOfStock && d.childMeta.First(v.post.ID, metaStockStatus) == "outofstock" {
			continue
		}
		if strings.TrimSpace(d.childMeta.First(v.post.ID, metaPrice)) == "" {
			continue
		}
		out = append(out, v)
	}
	return out
}

// publishedChildren are a grouped product's children a visitor can see
// (wc_products_array_filter_visible_grouped).
func publishedChildren(d *productData, id int64) []related {
	var out []related
	for _, c := range d.children[id] {
		if c.post.Status == "publish" {
			out = append(out, c)
		}
	}
	return out
}

// mapProduct builds the resource of one loaded product.
func mapProduct(sh *shop, t *terms, d *productData, id int64, full bool, now time.Time) Product {
	post := d.posts[id]
	typ := t.productType(d.rels[id])

	var regular string
	var sale bool
	var until time.Time
	// Every variation or child counts, shown or not: disabling one changes
	// the price shown.
	modified := post.ModifiedTime()
	for _, c := range d.children[id] {
		modified = latest(modified, c.post.ModifiedTime())
	}
	switch typ {
	case typeVariable:
		var regs []string
		for _, v := range visibleVariations(d, id, sh.hideOutOfStock) {
			regs = append(regs, d.childMeta.First(v.post.ID, metaRegularPrice))
			sale = sale || onSale(d.childMeta, v.post.ID, now)
			until = earliest(until, saleChange(d.childMeta, v.post.ID, now))
			modified = latest(modified, salePassed(d.childMeta, v.post.ID, now))
		}
		regular = lowestPrice(regs)
	case typeGrouped:
		var regs []string
		for _, c := range publishedChildren(d, id) {
			regs = append(regs, d.childMeta.First(c.post.ID, metaRegularPrice))
			// WC_Product_Grouped::is_on_sale: a purchasable child without
			// children of its own that is on sale.
			if c.typ != typeExternal && c.typ != typeGrouped && c.typ != typeVariable &&
				storedPrice(c.typ, d.childMeta[c.post.ID][metaPrice]) != "" {
				sale = sale || onSale(d.childMeta, c.post.ID, now)
				until = earliest(until, saleChange(d.childMeta, c.post.ID, now))
				modified = latest(modified, salePassed(d.childMeta, c.post.ID, now))
			}
		}
		regular = lowestPrice(regs)
	default:
		regular = d.meta.First(id, metaRegularPrice)
		sale = onSale(d.meta, id, now)
		until = saleChange(d.meta, id, now)
		modified = latest(modified, salePassed(d.meta, id, now))
	}
	price := storedPrice(typ, d.meta[id][metaPrice])

	p := Product{
		Slug:         post.Slug,
		Name:         PlainName(post.Title),
		Price:        formatted(price, sh.decimals),
		RegularPrice: formatted(regular, sh.decimals),
		OnSale:       sale,
		Currency:     sh.currency,
		InStock:      d.meta.First(id, metaStockStatus) != "outofstock",
		// is_purchasable(): published (every product served is) with a
		// price; external and grouped products never are.
		Purchasable: price != "" && typ != typeExternal && typ != typeGrouped,
		Categories:  []string{},
		Frameworks:  []string{},
		Until:       until,
		Modified:    notAfter(modified, now),
		ID:          id,
	}

	var cats []*category
	var fws []int64
	for _, tt := range d.rels[id] {
		if c, ok := t.catByTT[tt]; ok {
			cats = append(cats, c)
		}
		if _, ok := t.fwByTT[tt]; ok {
			fws = append(fws, tt)
		}
	}
	slices.SortFunc(cats, func(a, b *category) int { return cmp.Compare(a.nameRank, b.nameRank) })
	for _, c := range cats {
		p.Categories = append(p.Categories, c.Slug)
		p.CategoryIDs = append(p.CategoryIDs, c.TermID)
	}
	slices.SortFunc(fws, func(a, b int64) int { return cmp.Compare(t.fwByTT[a], t.fwByTT[b]) })
	for _, tt := range fws {
		p.Frameworks = append(p.Frameworks, t.fwSlug[tt])
	}

	p.URL = sh.productURL(post.Slug, func() string { return productCatPath(t, cats) })

	if th, err := strconv.ParseInt(d.meta.First(id, metaThumbnail), 10, 64); err == nil && th > 0 {
		if file := d.childMeta.First(th, metaAttachedFile); file != "" {
			img := sh.imageURL(file)
			p.Image = &img
		}
	}

	// A password-protected product is listed, priced and sold, but its
	// texts are hidden from a visitor who has not entered the password.
	protected := post.Password != ""
	if !protected {
		p.Summary = PlainText(post.Excerpt, false)
	}
	if full {
		desc := ""
		if !protected {
			desc = PlainText(post.Content, true)
		}
		p.Description = &desc
	} else {
		p.Summary = Truncate(p.Summary, SummaryLimit)
	}
	return p
}

// productCatPath is what %product_cat% expands to (wc_product_post_type_link):
// the deepest of the product's categories, ties kept in the storefront's
// term order, with its ancestors; "uncategorized" when it has none.
func productCatPath(t *terms, cats []*category) string {
	var best *category
	for _, c := range t.categories { // storefront order
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
