package catalog

import (
	"cmp"
	"fmt"
	"html"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"catalogd/wpopt"
)

// This file holds a WordPress + WooCommerce database in Go, with no
// MariaDB: store keeps rows as WordPress and WooCommerce write them (the
// terms a fresh install has, products saved the way WooCommerce's save
// stores them: several _price rows, visibility terms, HTML-escaped term
// names, sale dates as UTC Unix timestamps, variations as
// product_variation posts); fakeSource (fakesource_test.go) reads them
// back the way wpdb does, counting its calls.

// t0 is the instant the rules' tests evaluate sales at, unless they move
// the clock.
var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// store is the shop's database.
type store struct {
	now     time.Time // when WooCommerce saves: the sale it writes _price for
	nextID  int64
	options map[string]string
	orderBy map[string]string // registered attributes: name → attribute_orderby
	labels  map[string]string // their attribute_label, when not the name
	tables  map[string]bool
	terms   []Term
	termIx  map[string]map[string]int // taxonomy → slug → index in terms
	posts   map[int64]Post
	menu    map[int64]int                 // menu_order of variations
	meta    map[int64]map[string][]string // in meta_id order
	rels    map[int64][]int64             // post → term_taxonomy_ids
	members []Member                      // term_language's members (term IDs)
	wpml    map[int64]WPMLElement
	wpmlTT  map[int64]string           // categories' languages (WPML)
	groups  map[int64]map[string]int64 // Polylang post_translations
	trp     map[string]string          // TranslatePress translated slug → original
	langs   []Language                 // WPML's active languages
	stored  map[int64]string           // the _price a product's save computed
}

// newStore returns what a fresh WordPress + WooCommerce install holds, its
// home at https://shop.example, saving at t0.
func newStore() *store {
	s := &store{now: t0, nextID: 1, options: map[string]string{}, orderBy: map[string]string{"framework": "menu_order"},
		labels: map[string]string{"framework": "Framework"},
		tables: map[string]bool{}, termIx: map[string]map[string]int{}, posts: map[int64]Post{},
		menu: map[int64]int{}, meta: map[int64]map[string][]string{}, rels: map[int64][]int64{},
		wpml: map[int64]WPMLElement{}, wpmlTT: map[int64]string{}, groups: map[int64]map[string]int64{},
		trp: map[string]string{}, stored: map[int64]string{}}
	for k, v := range map[string]string{
		"home": "https://shop.example", "siteurl": "https://shop.example", "blogname": "Script Shop",
		"blogdescription": "Scripts &amp; more", "permalink_structure": "/%postname%/", "blog_public": "1",
		"upload_path": "", "upload_url_path": "", "woocommerce_currency": "EUR",
		"woocommerce_price_num_decimals": "2", "woocommerce_hide_out_of_stock_items": "no",
		"woocommerce_permalinks": permalinks("product", "product-category"),
		"active_plugins":         phpList("woocommerce/woocommerce.php"),
	} {
		s.options[k] = v
	}
	for _, typ := range []string{"simple", "grouped", "variable", "external"} {
		s.term(taxType, typ, typ, "", 0)
	}
	for _, v := range []string{"exclude-from-search", "exclude-from-catalog", "featured", "outofstock",
		"rated-1", "rated-2", "rated-3", "rated-4", "rated-5"} {
		s.term(taxVisibility, v, v, "", 0)
	}
	s.term("category", "Uncategorized", "uncategorized", "", 0) // WordPress's own, never read
	s.term(taxCategory, "Uncategorized", "uncategorized", "", 0)
	for i, fw := range []string{"ESX", "QBCore", "Qbox", "Standalone"} {
		s.term(taxFramework, fw, strings.ToLower(fw), "", int64(i))
	}
	return s
}

// permalinks is the woocommerce_permalinks option as WooCommerce saves it.
func permalinks(product, category string) string {
	return phpArray("product_base", product, "category_base", category, "tag_base", "product-tag",
		"attribute_base", "")
}

// phpArray serializes string pairs as a PHP associative array.
func phpArray(kv ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "a:%d:{", len(kv)/2)
	for _, v := range kv {
		fmt.Fprintf(&b, "s:%d:%q;", len(v), v)
	}
	return b.String() + "}"
}

// phpList serializes strings as a PHP list.
func phpList(vs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "a:%d:{", len(vs))
	for i, v := range vs {
		fmt.Fprintf(&b, "i:%d;s:%d:%q;", i, len(v), v)
	}
	return b.String() + "}"
}

// phpIDs serializes post IDs as a grouped product's _children.
func phpIDs(ids []int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "a:%d:{", len(ids))
	for i, id := range ids {
		fmt.Fprintf(&b, "i:%d;i:%d;", i, id)
	}
	return b.String() + "}"
}

// term adds a term (term_id = term_taxonomy_id, as on a fresh install)
// under the parent's slug, with its "order" term meta. The name is stored
// HTML-escaped, as wp_insert_term() does.
func (s *store) term(taxonomy, name, slug, parent string, order int64) int64 {
	id := int64(len(s.terms) + 1)
	var p int64
	if parent != "" {
		p = s.tt(taxonomy, parent)
	}
	s.terms = append(s.terms, Term{TTID: id, TermID: id, Taxonomy: taxonomy, Slug: slug,
		Name: html.EscapeString(html.UnescapeString(name)), Parent: p, Order: order})
	if s.termIx[taxonomy] == nil {
		s.termIx[taxonomy] = map[string]int{}
	}
	s.termIx[taxonomy][slug] = len(s.terms) - 1
	return id
}

// tag adds a product tag as WooCommerce's admin does.
func (s *store) tag(name, slug string) int64 { return s.term("product_tag", name, slug, "", 0) }

// category adds a product category as WooCommerce's admin does.
func (s *store) category(name, slug, parent string, order int64) int64 {
	return s.term(taxCategory, name, slug, parent, order)
}

// tt is the term_taxonomy_id of a term added before.
func (s *store) tt(taxonomy, slug string) int64 {
	i, ok := s.termIx[taxonomy][slug]
	if !ok {
		panic(fmt.Sprintf("store: no %s term %q", taxonomy, slug))
	}
	return s.terms[i].TTID
}

// addMeta adds a postmeta row after the existing ones.
func (s *store) addMeta(id int64, key, value string) {
	if s.meta[id] == nil {
		s.meta[id] = map[string][]string{}
	}
	s.meta[id][key] = append(slices.Clip(s.meta[id][key]), value)
}

// setMeta replaces every row of the key (update_post_meta).
func (s *store) setMeta(id int64, key string, values ...string) {
	if s.meta[id] == nil {
		s.meta[id] = map[string][]string{}
	}
	s.meta[id][key] = slices.Clone(values)
}

// relate relates a post to a term.
func (s *store) relate(id int64, taxonomy, slug string) {
	s.rels[id] = append(slices.Clip(s.rels[id]), s.tt(taxonomy, slug))
}

// post adds a posts row.
func (s *store) post(p Post, modified time.Time) int64 {
	p.ID = s.nextID
	s.nextID++
	if modified.IsZero() {
		modified = s.now.Add(-48 * time.Hour)
	}
	p.Modified = modified.UTC().Format(time.DateTime)
	if p.Date == "" { // later posts later, as saved one after another
		p.Date = s.now.Add(-time.Duration(1000-p.ID%1000) * time.Hour).Format(time.DateTime)
	}
	p.TitleKey = fakeTitleKey(p.Title)
	if p.Status == "draft" || p.Status == "pending" {
		p.Modified = "0000-00-00 00:00:00" // their dates float until published
	}
	s.posts[p.ID] = p
	return p.ID
}

// fakeTitleKey stands for the database's title key (Post.TitleKey): case
// and trailing spaces compare equal, as under the shops' collation; wpdb's
// tests hold the real keys to the real collation.
func fakeTitleKey(title string) string { return strings.ToLower(strings.TrimRight(title, " ")) + " " }

// update changes a post's row, as wp_update_post does, saved at modified.
func (s *store) update(id int64, modified time.Time, change func(*Post)) {
	p := s.posts[id]
	change(&p)
	p.Modified = modified.UTC().Format(time.DateTime)
	p.TitleKey = fakeTitleKey(p.Title)
	s.posts[id] = p
}

// product is a product as a shop manager enters it in WooCommerce's admin.
type product struct {
	Title, Slug, Status, Password string
	Content, Excerpt              string
	Type                          string // simple (default), variable, grouped, external
	Regular, Sale                 string
	From, To                      time.Time // sale dates
	// Stored, when set, is the _price written instead of what the save
	// computes: a scheduled sale whose background job has not run.
	Stored     *string
	Stock      string // instock (default), outofstock, onbackorder
	Visibility string // visible (default), catalog, search, hidden
	Categories []string
	Frameworks []string
	Image      string // _wp_attached_file of the featured image
	Variations []variation
	Children   []int64
	Modified   time.Time
	// Date is post_date (zero: one a save in ID order gives); MenuOrder
	// its menu_order; Sales, Rating and RatingCounts the total_sales,
	// _wc_average_rating and _wc_rating_count meta as stored (empty: a
	// new product's).
	Date                        time.Time
	MenuOrder                   int64
	Sales, Rating, RatingCounts string
	// SKU is the _sku meta ("": the empty row every product carries);
	// Tags are product_tag slugs of terms added before (store.tag).
	SKU  string
	Tags []string
	// Attributes are stored in _product_attributes, a global one's terms
	// related (storeAttributes).
	Attributes []productAttr
}

// variation is one variation of a variable product.
type variation struct {
	Framework     string
	Regular, Sale string
	From, To      time.Time
	Stored        *string
	Stock         string
	Disabled      bool // post_status private
	Modified      time.Time
}

// activePrice is the _price WooCommerce's save writes: the sale price
// while the sale is on at save time, else the regular price; a sale price
// not below the regular one, or without one, is cleared.
func (s *store) activePrice(regular, sale string, from, to time.Time) (price, storedSale string, hasRow bool) {
	if regular == "" {
		if sale != "" {
			return "", "", true // sale cleared, _price stored empty
		}
		return "", "", false
	}
	if sale != "" && !numLess(sale, regular) {
		sale = ""
	}
	if sale != "" && (from.IsZero() || !from.After(s.now)) && (to.IsZero() || !to.Before(s.now)) {
		return sale, sale, true
	}
	return regular, sale, true
}

func numLess(a, b string) bool {
	ra, okA := new(big.Rat).SetString(a)
	rb, okB := new(big.Rat).SetString(b)
	return okA && okB && ra.Cmp(rb) < 0
}

func unix(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return strconv.FormatInt(t.Unix(), 10)
}

// priceMeta stores a product's or variation's price meta and returns the
// _price written, "" for none.
func (s *store) priceMeta(id int64, regular, sale string, from, to time.Time, stored *string) string {
	price, sale, hasRow := s.activePrice(regular, sale, from, to)
	if stored != nil {
		price, hasRow = *stored, true
	}
	s.setMeta(id, metaRegularPrice, regular)
	s.setMeta(id, metaSalePrice, sale)
	s.setMeta(id, metaSaleFrom, unix(from))
	s.setMeta(id, metaSaleTo, unix(to))
	delete(s.meta[id], metaPrice)
	if hasRow {
		s.setMeta(id, metaPrice, price)
	}
	return price
}

// add stores the product as WooCommerce's save does and returns its ID.
func (s *store) add(p product) int64 {
	p.Status = cmp.Or(p.Status, "publish")
	p.Type = cmp.Or(p.Type, typeNameSimple)
	p.Stock = cmp.Or(p.Stock, "instock")
	slug := p.Slug
	if slug == "" && p.Status != "draft" && p.Status != "pending" {
		slug = strings.ReplaceAll(strings.ToLower(p.Title), " ", "-")
	}
	if p.Status == "trash" {
		slug += "__trashed"
	}
	var date string
	if !p.Date.IsZero() {
		date = p.Date.Format(time.DateTime)
	}
	id := s.post(Post{Type: "product", Status: p.Status, Slug: slug, Title: p.Title, Excerpt: p.Excerpt,
		Content: p.Content, Password: p.Password, MenuOrder: p.MenuOrder, Date: date}, p.Modified)
	s.setMeta(id, "_sku", p.SKU) // empty: noise every product carries
	s.setMeta(id, metaTotalSales, cmp.Or(p.Sales, "0"))
	s.setMeta(id, metaAverageRating, cmp.Or(p.Rating, "0"))
	s.setMeta(id, metaRatingCount, cmp.Or(p.RatingCounts, "a:0:{}"))

	var price string
	stock := p.Stock
	fws := slices.Clone(p.Frameworks)
	switch p.Type {
	case typeNameVariable:
		hide := s.options["woocommerce_hide_out_of_stock_items"] == "yes"
		var prices []string
		anyIn, anyBack := false, false
		for i, v := range p.Variations {
			status := "publish"
			if v.Disabled {
				status = "private"
			}
			vid := s.post(Post{Type: "product_variation", Status: status, Parent: id,
				Slug: slug + "-" + v.Framework, Title: p.Title}, v.Modified)
			s.menu[vid] = i + 1
			vp := s.priceMeta(vid, v.Regular, v.Sale, v.From, v.To, v.Stored)
			vs := cmp.Or(v.Stock, "instock")
			s.setMeta(vid, metaStockStatus, vs)
			s.setMeta(vid, "attribute_pa_framework", v.Framework)
			if v.Framework != "" && !slices.Contains(fws, v.Framework) {
				fws = append(fws, v.Framework)
			}
			if status != "publish" {
				continue
			}
			anyIn = anyIn || vs == "instock"
			anyBack = anyBack || vs == "onbackorder"
			// sync_price reads get_visible_children(): enabled, and in
			// stock while the shop hides out-of-stock items.
			if vp != "" && !(hide && vs == "outofstock") {
				prices = append(prices, vp)
			}
		}
		prices = distinct(prices)
		for _, pr := range prices {
			s.addMeta(id, metaPrice, pr)
		}
		if len(prices) > 0 {
			price = prices[0]
		}
		if p.Stock == "instock" { // sync_stock_status
			switch {
			case anyIn:
			case anyBack:
				stock = "onbackorder"
			default:
				stock = "outofstock"
			}
		}
	case typeNameGrouped:
		s.setMeta(id, MetaChildren, phpIDs(p.Children))
		price = s.syncGrouped(id)
	default:
		price = s.priceMeta(id, p.Regular, p.Sale, p.From, p.To, p.Stored)
		if p.Type == typeNameExternal {
			s.setMeta(id, "_product_url", "https://elsewhere.example/buy")
		}
	}
	s.stored[id] = price
	s.setMeta(id, metaStockStatus, stock)

	s.relate(id, taxType, p.Type)
	for _, v := range map[string][]string{"catalog": {"exclude-from-search"}, "search": {"exclude-from-catalog"},
		"hidden": {"exclude-from-search", "exclude-from-catalog"}}[p.Visibility] {
		s.relate(id, taxVisibility, v)
	}
	if stock == "outofstock" {
		s.relate(id, taxVisibility, "outofstock")
	}
	cats := p.Categories
	if len(cats) == 0 {
		cats = []string{"uncategorized"}
	}
	for _, c := range cats {
		s.relate(id, taxCategory, c)
	}
	for _, f := range fws {
		s.relate(id, taxFramework, f)
	}
	for _, tg := range p.Tags {
		s.relate(id, "product_tag", tg)
	}
	s.storeAttributes(id, p.Attributes)
	if p.Image != "" {
		att := s.post(Post{Type: "attachment", Status: "inherit", Parent: id, Slug: "image-" + strconv.FormatInt(id, 10)}, time.Time{})
		s.setMeta(att, MetaAttachedFile, p.Image)
		s.setMeta(id, MetaThumbnail, strconv.FormatInt(att, 10))
	}
	return id
}

// syncGrouped writes a grouped product's _price rows as WooCommerce's
// grouped sync does: the min and the max of its children's prices (every
// child, a draft too; "" and "0" dropped by array_filter).
func (s *store) syncGrouped(id int64) string {
	kids, _ := wpopt.ParseIDList(s.meta[id][MetaChildren][0])
	var prices []string
	for _, c := range kids {
		if pr := s.stored[c]; pr != "" && pr != "0" {
			prices = append(prices, pr)
		}
	}
	prices = distinct(prices)
	delete(s.meta[id], metaPrice)
	if len(prices) == 0 {
		return ""
	}
	s.addMeta(id, metaPrice, prices[0])
	s.addMeta(id, metaPrice, prices[len(prices)-1])
	return prices[0]
}

// distinct sorts prices numerically and drops repeats.
func distinct(prices []string) []string {
	var out []string
	for _, p := range prices {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int {
		switch {
		case numLess(a, b):
			return -1
		case numLess(b, a):
			return 1
		}
		return 0
	})
	return out
}
