package catalog

import (
	"cmp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"catalogd/api"
	"catalogd/internal/nametable"
)

// productType is a product's type (its product_type term; a product
// without one is simple) as a code into the process's table of type names
// (productTypes): one byte in the item where the name was a string, a
// pointer word the collector marked at every cycle.
type productType uint8

// The core's types have fixed codes. A plugin's own types (product_type
// terms such as subscription or bundle) are given the next code free when
// first seen.
const (
	typeSimple productType = iota
	typeVariable
	typeGrouped
	typeExternal
	typeVariation // a variation: not a term, the kind of a variable product's kid
	// typeOther is every type first seen once the table is full: 255
	// names, far more than a shop has. Sharing it changes nothing served:
	// the rules tell the core's types apart, never a plugin's one from
	// another.
	typeOther productType = 255
)

// The core's type names (product_type term slugs), in their codes' order.
const (
	typeNameSimple    = "simple"
	typeNameVariable  = "variable"
	typeNameGrouped   = "grouped"
	typeNameExternal  = "external"
	typeNameVariation = "variation"
)

// productTypes names the codes, for the whole process: a code keeps its
// name from one snapshot to the next, so items and terms compare across
// them.
var productTypes = newTypeTable(typeNameSimple, typeNameVariable, typeNameGrouped, typeNameExternal, typeNameVariation)

// typeTable assigns the codes (nametable): in order of first sight, never
// twice, never taken back. Snapshots' builds read it on several cores at
// once, and rarely add to it (a new type's first term).
type typeTable struct{ t *nametable.Table[productType] }

func newTypeTable(names ...string) typeTable {
	return typeTable{nametable.New[productType](int(typeOther), names...)}
}

// code is the type name's code, given on first sight: typeOther once the
// table is full.
func (t typeTable) code(name string) productType {
	if c, ok := t.t.Code(name); ok {
		return c
	}
	return typeOther
}

// name is the code's type name; "" for typeOther, which stands for many.
func (t typeTable) name(c productType) string { return t.t.Name(c) }

// String is the type's name (productTypes).
func (c productType) String() string { return productTypes.name(c) }

// Meta keys the mapping reads.
const (
	metaPrice        = "_price"
	metaRegularPrice = "_regular_price"
	metaSalePrice    = "_sale_price"
	metaSaleFrom     = "_sale_price_dates_from"
	metaSaleTo       = "_sale_price_dates_to"
	metaStockStatus  = "_stock_status"
)

// Meta keys that name other posts a product shows (its image, a grouped
// product's children) and an image's file: the Source follows them to read
// those posts too.
const (
	MetaThumbnail    = "_thumbnail_id"
	MetaChildren     = "_children"
	MetaAttachedFile = "_wp_attached_file"
)

// item is one product as a snapshot keeps it: what the storefront shows
// of it that does not move with the clock, computed once, and the prices
// and sale dates its price rules read at every request.
type item struct {
	id int64
	// text holds the short texts end to end, each ending at its ends
	// entry (texts: slug, name, url, image, summary), and the list's
	// summary after them when it is a truncation of the summary; the
	// accessors (slug, name, …) cut them out. A string per text was a
	// pointer each to the same object, and the collector marks every
	// pointer word of every item at every cycle.
	text string
	ends [textCount]uint32
	// image is also a substring of text, kept as a field of its own: the
	// wire's Image points at it (product). "": none (the wire's null).
	image    string
	thumb    int64   // image's attachment: an edit of its file (the media library's) changes image
	ttids    []int64 // every term it carries, for the filters
	cats     []string
	catIDs   []int64
	fws      []string
	inStock  bool
	typ      productType // beside inStock: in the padding a lone bool leaves
	modified time.Time   // its own and every variation's or child's post_modified_gmt
	// description is the plain text of the content (the summaries are in
	// text); like them, it is empty for a protected product.
	description string
	childIDs    []int64 // a grouped product's _children list
	// Computed by prepare: what the clock does not move.
	price, regular *string
	purchasable    bool
	windows        []window
	varIDs         []int64 // a variable product's variations, enabled or not
	wpml           WPMLElement
}

// The short texts of an item, in the order they are packed in its text.
const (
	textSlug = iota
	textName
	textURL
	textImage
	textSummary
	textCount
)

// cut is the i-th of the item's short texts.
func (it *item) cut(i int) string {
	from := uint32(0)
	if i > 0 {
		from = it.ends[i-1]
	}
	return it.text[from:it.ends[i]]
}

func (it *item) slug() string { return it.cut(textSlug) }

// name is plain text.
func (it *item) name() string { return it.cut(textName) }

func (it *item) url() string { return it.cut(textURL) }

// summary is the whole plain-text excerpt.
func (it *item) summary() string { return it.cut(textSummary) }

// listSummary is the list's truncation of the summary: what text holds
// after the summary, or the summary itself when short enough (Truncate
// never makes a truncation empty: it ends in an ellipsis).
func (it *item) listSummary() string {
	if end := it.ends[textSummary]; int(end) < len(it.text) {
		return it.text[end:]
	}
	return it.summary()
}

// stored is what prepare reads of a product's rows, and the snapshot does
// not keep: outside the item, which a snapshot holds a hundred thousand
// of, and which it made 128 bytes larger.
type stored struct {
	own prices
	// kids are a variable product's variations or a grouped product's
	// children, as read.
	kids []kid
}

// prices are a product's or variation's price meta as stored; prepare
// reads them once, and keeps of them only the sale windows.
type prices struct {
	price                   []string // every _price row, in meta_id order
	regular, sale, from, to string
	stockStatus             string
}

// window is what the clock-dependent rules need of a price set: whether it
// has a sale price, whether that is below the regular price, and the sale
// dates (Unix seconds) when set.
type window struct {
	hasSale, below, hasFrom, hasTo bool
	from, to                       int64
}

func (p *prices) window() window {
	w := window{hasSale: p.sale != "", below: priceLess(p.sale, p.regular)}
	if t, ok := saleBound(p.from); ok {
		w.hasFrom, w.from = true, t.Unix()
	}
	if t, ok := saleBound(p.to); ok {
		w.hasTo, w.to = true, t.Unix()
	}
	return w
}

// kid is a variation or a grouped product's child.
type kid struct {
	published bool
	typ       productType
	modified  time.Time
	prices
}

// readPrices reads a post's price meta from its rows (Meta's value) in one
// pass: each key's first row, every _price row. The _price values are
// appended to *list, the worker's scratch, which p.price is a part of:
// they are read during the build only. A lookup of the post's rows per
// key hashed the meta, the build's largest map, five times a post.
func readPrices(rows []MetaRow, list *[]string) prices {
	var p prices
	var seen uint8 // the keys whose first row was read
	first := func(bit uint8, dst *string, v string) {
		if seen&bit == 0 {
			seen |= bit
			*dst = v
		}
	}
	start := len(*list)
	for _, r := range rows {
		switch r.Key {
		case metaPrice:
			*list = append(*list, r.Value)
		case metaRegularPrice:
			first(1, &p.regular, r.Value)
		case metaSalePrice:
			first(2, &p.sale, r.Value)
		case metaSaleFrom:
			first(4, &p.from, r.Value)
		case metaSaleTo:
			first(8, &p.to, r.Value)
		case metaStockStatus:
			first(16, &p.stockStatus, r.Value)
		}
	}
	if len(*list) > start {
		p.price = (*list)[start:len(*list):len(*list)]
	}
	return p
}

// metaFirst is Meta.First on a post's rows.
func metaFirst(rows []MetaRow, key string) string {
	for _, r := range rows {
		if r.Key == key {
			return r.Value
		}
	}
	return ""
}

// buildChunk is how many posts items builds before it lets go of the rows
// they consumed (a variable for the tests, which set it to 1): the fewer,
// the sooner the rows go. At 10 000 products 4096 held 40% of them through
// the first chunk, and the load's peak was 2.1× the snapshot; 1024 made it
// 1.7× (2048: 1.8×). A chunk is shared by the cores from 500 posts a core
// (workPerCore).
var buildChunk = 1024

// workPerCore is the fewest posts a build gives a core of its own (it was
// 1000; a chunk of buildChunk posts is shared by two cores), so that a
// patch of a few products is built on one goroutine.
const workPerCore = 500

// items builds the snapshot's form of the published products among the
// rows; others (trashed, drafts) give none. With consume, it clears what
// of the rows no later item reads once a chunk of items is built (their
// texts, their own and their variations' meta), so that a whole load's
// rows shrink while the snapshot grows: at 100 000 products the rows are
// about as large as the snapshot, and both held whole made the load's
// peak.
func (b *builder) items(sh *shop, tax *terms, rows *ProductRows, consume bool) []*item {
	r := readRows(rows)
	if consume {
		// What the items read of the meta and the terms is in r: the
		// maps go whole, with the images' meta and what no item reads. A
		// map keeps its table as entries are deleted: made anew as they
		// shrank, they were most of a 100k build's garbage, and deleting
		// from them much of the build's work on one core.
		rows.Meta, rows.Terms = nil, nil
	}
	// Each item is built alone (its texts cleaned, its URL made, its lists
	// interned): the cores share the work of a large shop's load. Each
	// core builds in scratch of its own, which it reuses item after item.
	built := make([]*item, len(rows.Posts))
	in := newInterner()
	scratches := make([]scratch, runtime.GOMAXPROCS(0))
	chunk := len(rows.Posts)
	if consume {
		chunk = max(1, buildChunk)
	}
	for lo := 0; lo < len(rows.Posts); lo += chunk {
		hi := min(lo+chunk, len(rows.Posts))
		inParallel(hi-lo, workers(hi-lo), func(w, i int) {
			if post := &rows.Posts[lo+i]; post.Type == "product" && post.Status == "publish" {
				built[lo+i] = b.item(&scratches[w], in, sh, tax, r, lo+i)
			}
		})
		if !consume {
			continue
		}
		for i := lo; i < hi; i++ {
			if built[i] == nil {
				continue
			}
			post := &rows.Posts[i]
			post.Title, post.Excerpt, post.Content = "", "", ""
			r.files[i] = ""
			// A later grouped product reads a child's post, terms and
			// meta; no later item reads another product's, or its
			// variations'.
			if _, child := r.children[post.ID]; !child {
				r.meta[i], r.terms[i] = nil, nil
				post.Type, post.Status, post.Modified = "", "", ""
			}
			for _, k := range r.variations[post.ID] {
				r.meta[k] = nil
				v := r.post(k)
				*v = Post{ID: v.ID}
			}
		}
	}
	out := built[:0]
	for _, it := range built {
		if it != nil {
			out = append(out, it)
		}
	}
	clear(built[len(out):])
	return out
}

// workers is how many cores share n posts' work.
func workers(n int) int { return min(runtime.GOMAXPROCS(0), max(1, n/workPerCore)) }

// read is what items reads of the rows, by post: the posts by index
// (rows.Posts, then rows.Related), the meta of those an item reads, the
// products' images. Posts by index, not by ID: a lookup in the meta map,
// the build's largest, hashed it five times a product, and the map, made
// anew as its rows were consumed, was most of a 100k build's garbage.
type read struct {
	rows *ProductRows
	// meta and terms are the posts' (nil for a post no item reads).
	meta  [][]MetaRow
	terms [][]int64
	// thumbs and files are each product's featured image (0: none) and
	// its _wp_attached_file, by index in rows.Posts.
	thumbs []int64
	files  []string
	// children are the grouped products' children by ID, with their
	// index (-1 for a child not among the rows): a child is read by its
	// grouped product too, which may come later: its post and meta stay.
	// variations are each variable product's, by its ID.
	children   map[int64]int
	variations map[int64][]int
}

func (r *read) post(k int) *Post {
	if n := len(r.rows.Posts); k >= n {
		return &r.rows.Related[k-n]
	}
	return &r.rows.Posts[k]
}

// readRows indexes the rows; the cores read the meta.
func readRows(rows *ProductRows) *read {
	n := len(rows.Posts)
	r := &read{rows: rows, meta: make([][]MetaRow, n+len(rows.Related)), terms: make([][]int64, n+len(rows.Related)), thumbs: make([]int64, n), files: make([]string, n),
		children: map[int64]int{}, variations: map[int64][]int{}}
	for _, ids := range rows.Children {
		for _, id := range ids {
			r.children[id] = -1
		}
	}
	for k := range len(r.meta) {
		p := r.post(k)
		if _, ok := r.children[p.ID]; ok {
			r.children[p.ID] = k
		}
		if k >= n && p.Type == "product_variation" {
			r.variations[p.Parent] = append(r.variations[p.Parent], k)
		}
	}
	inParallel(len(r.meta), workers(len(r.meta)), func(_, k int) {
		p := r.post(k)
		_, child := r.children[p.ID]
		published := k < n && p.Type == "product" && p.Status == "publish"
		if k >= n || child || published {
			r.meta[k] = rows.Meta[p.ID]
		}
		if child || published { // a variation's terms are not read
			r.terms[k] = rows.Terms[p.ID]
		}
		if published {
			if th, ok := thumbnail(r.meta[k]); ok {
				r.thumbs[k], r.files[k] = th, rows.Meta.First(th, MetaAttachedFile)
			}
		}
	})
	return r
}

// inParallel calls f for every index below n on the workers, worker w
// taking w, w+workers, …, and returns when all are done.
func inParallel(n, workers int, f func(w, i int)) {
	if workers <= 1 {
		for i := range n {
			f(0, i)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				f(w, i)
			}
		}()
	}
	wg.Wait()
}

// scratch is what one core builds items in, reused from item to item:
// what an item reads only while it is built (its and its kids' prices),
// and the lists and texts the interner copies only when no item before
// had them, or packs into one string. Allocated for each item, they were
// most of a build's garbage, and the collector ran a fifth of a load's
// CPU.
type scratch struct {
	prices   []string // _price values of the product and its kids
	kids     []kid
	cats     []*category
	fws      []int64
	catSlugs []string
	catIDs   []int64
	fwSlugs  []string
	windows  []window
	regs     []string
	texts    packer
	// formatted are the prices formatted so far, by stored value.
	formatted map[string]*string
}

func (b *builder) item(sc *scratch, in *interner, sh *shop, tax *terms, r *read, i int) *item {
	rows, post := r.rows, &r.rows.Posts[i]
	id := post.ID
	meta, ttids := r.meta[i], r.terms[i]
	it := &item{id: id, typ: tax.productType(ttids), ttids: ttids, modified: post.ModifiedTime(), wpml: rows.WPML[id]}
	sc.prices, sc.kids = sc.prices[:0], sc.kids[:0]
	st := stored{own: readPrices(meta, &sc.prices)}
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
	for _, k := range st.kids {
		it.modified = latest(it.modified, k.modified)
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
	// A password-protected product is listed, priced and sold, but its
	// texts are hidden from a visitor who has not entered the password
	// (post_password_required, woocommerce_template_single_excerpt).
	var summary, list string
	if post.Password == "" {
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
	in.item(it)
	return it
}

// format is formatted through the core's cache: a shop has few distinct
// prices, and each formatted anew was two objects a product.
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

// thumbnail is the ID of the post's featured image, if it names one.
func thumbnail(meta []MetaRow) (int64, bool) {
	th, err := strconv.ParseInt(metaFirst(meta, MetaThumbnail), 10, 64)
	return th, err == nil && th > 0
}

// productType is the product's product_type term, simple when it has none.
func (tax *terms) productType(ttids []int64) productType {
	for _, tt := range ttids {
		if typ, ok := tax.typeByTT[tt]; ok {
			return typ
		}
	}
	return typeSimple
}

// saleBound reads a sale date meta: a UTC Unix timestamp, as WooCommerce
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
func (w *window) onSale(now time.Time) bool {
	if !w.below {
		return false
	}
	if w.hasFrom && time.Unix(w.from, 0).After(now) {
		return false
	}
	if w.hasTo && time.Unix(w.to, 0).Before(now) {
		return false
	}
	return true
}

// saleChange is the next instant after now at which onSale can change by
// the clock alone: the start of the sale, or the second after its end (the
// end is inclusive). Zero when neither lies ahead.
func (w *window) saleChange(now time.Time) time.Time {
	if !w.hasSale {
		return time.Time{}
	}
	var next time.Time
	if from := time.Unix(w.from, 0); w.hasFrom && from.After(now) {
		next = from
	}
	if end := time.Unix(w.to+1, 0); w.hasTo && end.After(now) {
		next = earliest(next, end)
	}
	return next
}

// salePassed is the last instant at or before now at which onSale changed
// by the clock alone: the start of the sale or the second after its end.
// The response changed then without any post being saved.
func (w *window) salePassed(now time.Time) time.Time {
	if !w.hasSale {
		return time.Time{}
	}
	var last time.Time
	if from := time.Unix(w.from, 0); w.hasFrom && !from.After(now) {
		last = from
	}
	if end := time.Unix(w.to+1, 0); w.hasTo && !end.After(now) {
		last = latest(last, end)
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

// visible is whether the storefront prices a variable product from the
// variation (get_visible_children): an enabled one, not out of stock when
// the shop hides those, with a price.
func (v *kid) visible(hideOutOfStock bool) bool {
	return v.published && (!hideOutOfStock || v.stockStatus != "outofstock") &&
		len(v.price) > 0 && strings.TrimSpace(v.price[0]) != ""
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

// product is the resource of an item at now: the full one (the whole
// summary and the description) or the list's. Only the sale windows are
// read at now; the rest was computed when the snapshot was built.
func (sh *shop) product(it *item, full bool, now time.Time) Product {
	var sale bool
	var until time.Time
	modified := it.modified
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
	if full {
		p.Summary = it.summary()
		p.Description = &it.description // read-only, as optional's
	}
	return p
}

// optional is the wire's form of an item's optional text: nil when
// empty, else a pointer into the item, which no reader writes through.
// A string boxed apart for the pointer was one more object per product
// for the collector to mark.
func optional(s *string) *string {
	if *s == "" {
		return nil
	}
	return s
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
