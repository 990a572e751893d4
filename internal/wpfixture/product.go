package wpfixture

import (
	"fmt"
	"math/big"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// Product describes a product as a shop manager enters it in WooCommerce's
// admin; Add stores it the way WooCommerce's save does.
type Product struct {
	Title    string
	Slug     string // derived from Title when empty, except for drafts
	Status   string // publish (default), draft, pending, private, future, trash
	Password string
	Content  string // Gutenberg HTML
	Excerpt  string // short description, HTML
	Type     string // simple (default), variable, grouped, external

	RegularPrice, SalePrice string
	SaleFrom, SaleTo        time.Time // the admin stores local midnight and 23:59:59
	// StoredPrice, when set, is written as _price instead of what the save
	// computes: a scheduled sale whose background job has not run yet.
	StoredPrice *string

	StockStatus string // instock (default), outofstock, onbackorder
	Stock       *int   // managed stock quantity

	Visibility string // visible (default), catalog ("shop only"), search, hidden
	Featured   bool

	Categories      []string    // product_cat slugs; none: the default category
	Tags            []string    // product_tag slugs of tags added before (Shop.Tag)
	SKU             string      // _sku ("": the empty row every product carries)
	Frameworks      []string    // pa_framework slugs (a global attribute)
	LocalFrameworks []string    // a local "Framework" attribute, not a taxonomy
	Attributes      []Attribute // more attributes, after the framework ones
	Image           string      // featured image file under uploads, e.g. 2026/11/radar.jpg
	Gallery         []string    // gallery files (no featured image from these)

	Variations []Variation // variable products
	Children   []int64     // grouped products: IDs of products added before
	URL        string      // external products: the buy link

	Date      time.Time
	MenuOrder int
}

// Variation is one variation of a variable product.
type Variation struct {
	Framework               string // its pa_framework choice
	RegularPrice, SalePrice string
	SaleFrom, SaleTo        time.Time
	StoredPrice             *string
	StockStatus             string
	Disabled                bool // stored as post_status private
}

// Category adds a product category under the parent (a slug, "" at the
// top), with WooCommerce's "order" term meta.
func (s *Shop) Category(name, slug, parent string, order int) termRef {
	var parentID int64
	if parent != "" {
		parentID = s.TermRef("product_cat", parent).TermID
	}
	ref := s.Term("product_cat", name, slug, parentID)
	s.languageOfTerm(ref)
	s.TermMeta(ref.TermID, "order", fmt.Sprint(order))
	s.TermMeta(ref.TermID, "display_type", "")
	s.TermMeta(ref.TermID, "thumbnail_id", "0")
	return ref
}

// Tag adds a product tag (Products → Tags: wp_insert_term; tags have no
// order meta, only product_cat is sortable).
func (s *Shop) Tag(name, slug string) termRef { return s.Term("product_tag", name, slug, 0) }

var nonSlugRE = regexp.MustCompile(`[^a-z0-9]+`)

// slugify is a small sanitize_title(): enough for fixture titles.
func slugify(title string) string {
	return strings.Trim(nonSlugRE.ReplaceAllString(strings.ToLower(title), "-"), "-")
}

// post adds a posts row and returns its ID.
func (s *Shop) post(typ, status, title, slug, content, excerpt, password string, parent int64, menuOrder int, date time.Time, mime string) int64 {
	id := s.nextID
	s.nextID++
	if date.IsZero() {
		date = s.Now.Add(-time.Duration(1000-id%1000) * time.Hour)
	}
	d := date.UTC().Format(time.DateTime)
	// wp_insert_post leaves a new draft's or pending post's GMT date zero
	// (their date "floats" until published), and its modified GMT date is
	// that same zero value. MySQL 8's NO_ZERO_DATE must read them.
	dGMT := d
	if status == "draft" || status == "pending" || status == "auto-draft" {
		dGMT = "0000-00-00 00:00:00"
	}
	home := s.option("home")
	guid := fmt.Sprintf("%s/?post_type=%s&p=%d", home, typ, id)
	if typ == "attachment" {
		guid = s.uploadsURL() + "/" + title
	}
	s.Row("posts", []string{"ID", "post_author", "post_date", "post_date_gmt", "post_content", "post_title",
		"post_excerpt", "post_status", "comment_status", "ping_status", "post_password", "post_name",
		"to_ping", "pinged", "post_modified", "post_modified_gmt", "post_content_filtered", "post_parent",
		"guid", "menu_order", "post_type", "post_mime_type", "comment_count"},
		id, 1, d, dGMT, content, title, excerpt, status, "open", "closed", password, slug,
		"", "", d, dGMT, "", parent, guid, menuOrder, typ, mime, 0)
	return id
}

func (s *Shop) option(name string) string {
	t := s.tables["options"]
	for i := len(t.rows) - 1; i >= 0; i-- {
		if t.rows[i][0] == name {
			return t.rows[i][1].(string)
		}
	}
	return ""
}

func (s *Shop) uploadsURL() string { return s.option("siteurl") + "/wp-content/uploads" }

// activePrice is the _price WooCommerce's save writes (handle_updated_props):
// the sale price while the sale is on at save time, else the regular price;
// a sale price not below the regular price, or without one, is cleared.
func (s *Shop) activePrice(regular, sale string, from, to time.Time) (price, storedSale string, hasRow bool) {
	if regular == "" {
		if sale != "" {
			return "", "", true // sale cleared, _price stored empty
		}
		return "", "", false // no price: no _price row
	}
	if sale != "" && !less(sale, regular) {
		sale = ""
	}
	on := sale != "" && (from.IsZero() || !from.After(s.Now)) && (to.IsZero() || !to.Before(s.Now))
	if on {
		return sale, sale, true
	}
	return regular, sale, true
}

func less(a, b string) bool {
	ra, okA := new(big.Rat).SetString(a)
	rb, okB := new(big.Rat).SetString(b)
	return okA && okB && ra.Cmp(rb) < 0
}

func ts(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return fmt.Sprint(t.Unix())
}

// priceMeta stores the price meta of a product or variation and returns the
// _price it stored ("" for none).
func (s *Shop) priceMeta(id int64, regular, sale string, from, to time.Time, stored *string) string {
	price, sale, hasRow := s.activePrice(regular, sale, from, to)
	if stored != nil {
		price, hasRow = *stored, true
	}
	s.PostMeta(id, "_regular_price", regular)
	s.PostMeta(id, "_sale_price", sale)
	s.PostMeta(id, "_sale_price_dates_from", ts(from))
	s.PostMeta(id, "_sale_price_dates_to", ts(to))
	if hasRow {
		s.PostMeta(id, "_price", price)
	}
	return price
}

// Add stores the product and returns its post ID.
func (s *Shop) Add(p Product) int64 {
	if p.Status == "" {
		p.Status = "publish"
	}
	if p.Type == "" {
		p.Type = "simple"
	}
	if p.StockStatus == "" {
		p.StockStatus = "instock"
	}
	slug := p.Slug
	if slug == "" && p.Status != "draft" && p.Status != "pending" {
		slug = slugify(p.Title)
	}
	if p.Status == "future" && p.Date.IsZero() {
		p.Date = s.Now.Add(30 * 24 * time.Hour)
	}
	if p.Status == "trash" {
		slug += "__trashed" // wp_trash_post moves the slug aside
	}
	id := s.post("product", p.Status, p.Title, slug, p.Content, p.Excerpt, p.Password, 0, p.MenuOrder, p.Date, "")
	s.languageOfPost(id)
	if p.Status == "trash" {
		s.PostMeta(id, "_wp_trash_meta_status", "publish")
		s.PostMeta(id, "_wp_trash_meta_time", fmt.Sprint(s.Now.Unix()))
		s.PostMeta(id, "_wp_desired_post_slug", strings.TrimSuffix(slug, "__trashed"))
	}

	// Noise every real product carries.
	for _, kv := range [][2]string{{"_sku", p.SKU}, {"total_sales", "0"}, {"_tax_status", "taxable"},
		{"_tax_class", ""}, {"_backorders", "no"}, {"_sold_individually", "no"}, {"_virtual", "yes"},
		{"_downloadable", "yes"}, {"_download_limit", "-1"}, {"_download_expiry", "-1"},
		{"_wc_average_rating", "0"}, {"_wc_review_count", "0"}, {"_product_version", "9.4.2"},
		{"_edit_last", "1"}, {"_edit_lock", fmt.Sprintf("%d:1", s.Now.Unix())}} {
		s.PostMeta(id, kv[0], kv[1])
	}
	if p.Stock != nil {
		s.PostMeta(id, "_manage_stock", "yes")
		s.PostMeta(id, "_stock", fmt.Sprint(*p.Stock))
	} else {
		s.PostMeta(id, "_manage_stock", "no")
		s.PostMeta(id, "_stock", "")
	}

	var price string
	stock := p.StockStatus
	frameworks := append([]string(nil), p.Frameworks...)
	onsale := false
	switch p.Type {
	case "variable":
		var prices []string
		anyIn, anyBack := false, false
		for i, v := range p.Variations {
			status := "publish"
			if v.Disabled {
				status = "private"
			}
			title := p.Title
			if v.Framework != "" {
				title += " - " + s.TermRef("pa_framework", v.Framework).name(s)
			}
			vid := s.post("product_variation", status, title, slugify(title), "", "", "", id, i+1, p.Date, "")
			vp := s.priceMeta(vid, v.RegularPrice, v.SalePrice, v.SaleFrom, v.SaleTo, v.StoredPrice)
			vs := v.StockStatus
			if vs == "" {
				vs = "instock"
			}
			s.PostMeta(vid, "_stock_status", vs)
			s.PostMeta(vid, "attribute_pa_framework", v.Framework)
			s.PostMeta(vid, "_variation_description", "")
			s.PostMeta(vid, "_manage_stock", "no")
			s.lookup(vid, vp, vp, vs, less(v.SalePrice, v.RegularPrice) && vp == v.SalePrice)
			if v.Framework != "" && !slices.Contains(frameworks, v.Framework) {
				frameworks = append(frameworks, v.Framework)
			}
			if status == "publish" {
				if vp != "" {
					prices = append(prices, vp)
				}
				anyIn = anyIn || vs == "instock"
				anyBack = anyBack || vs == "onbackorder"
			}
		}
		// sync_price: one _price row per distinct visible variation price.
		prices = distinctSorted(prices)
		for _, pr := range prices {
			s.PostMeta(id, "_price", pr)
		}
		if len(prices) > 0 {
			price = prices[0]
		}
		// sync_stock_status, unless the test forces one.
		if p.StockStatus == "instock" {
			switch {
			case anyIn:
				stock = "instock"
			case anyBack:
				stock = "onbackorder"
			default:
				stock = "outofstock"
			}
		}
		s.lookupMinMax(id, prices, stock)
	case "grouped":
		s.PostMeta(id, "_children", serializeIDs(p.Children))
		var prices []string
		for _, c := range p.Children {
			if pr := s.storedPrices()[c]; pr != "" && pr != "0" {
				prices = append(prices, pr)
			}
		}
		prices = distinctSorted(prices)
		if len(prices) > 0 {
			price = prices[0]
			s.PostMeta(id, "_price", prices[0])
			s.PostMeta(id, "_price", prices[len(prices)-1])
		}
		s.lookupMinMax(id, prices, stock)
	default:
		price = s.priceMeta(id, p.RegularPrice, p.SalePrice, p.SaleFrom, p.SaleTo, p.StoredPrice)
		onsale = price != "" && price == p.SalePrice && less(p.SalePrice, p.RegularPrice)
		s.lookup(id, price, price, stock, onsale)
		if p.Type == "external" {
			s.PostMeta(id, "_product_url", p.URL)
			s.PostMeta(id, "_button_text", "Buy product")
		}
	}
	s.storedPrices()[id] = price
	s.PostMeta(id, "_stock_status", stock)

	// Terms: the type, the visibility, the categories, the attribute.
	s.Relate(id, s.TermRef("product_type", p.Type))
	vis := map[string][]string{"visible": nil, "": nil, "catalog": {"exclude-from-search"},
		"search": {"exclude-from-catalog"}, "hidden": {"exclude-from-search", "exclude-from-catalog"}}[p.Visibility]
	if p.Featured {
		vis = append(vis, "featured")
	}
	if stock == "outofstock" {
		vis = append(vis, "outofstock")
	}
	for _, v := range vis {
		s.Relate(id, s.TermRef("product_visibility", v))
	}
	cats := p.Categories
	if len(cats) == 0 {
		cats = []string{"uncategorized"}
	}
	for _, c := range cats {
		s.Relate(id, s.TermRef("product_cat", c))
	}
	for _, f := range frameworks {
		s.Relate(id, s.TermRef("pa_framework", f))
	}
	for _, t := range p.Tags {
		s.Relate(id, s.TermRef("product_tag", t))
	}
	if p.SKU != "" { // the lookup row Add wrote last for the product
		t := s.tables["wc_product_meta_lookup"]
		t.rows[len(t.rows)-1][1] = p.SKU
	}
	s.relateAttributes(id, p.Attributes)
	s.PostMeta(id, "_product_attributes", s.productAttributes(frameworks, p.LocalFrameworks, p.Type == "variable", p.Attributes...))

	if p.Image != "" {
		s.PostMeta(id, "_thumbnail_id", fmt.Sprint(s.attachment(id, p.Image)))
	}
	var gallery []string
	for _, g := range p.Gallery {
		gallery = append(gallery, fmt.Sprint(s.attachment(id, g)))
	}
	s.PostMeta(id, "_product_image_gallery", strings.Join(gallery, ","))
	return id
}

func (r termRef) name(s *Shop) string {
	for _, row := range s.tables["terms"].rows {
		if row[0] == r.TermID {
			return row[1].(string)
		}
	}
	return ""
}

func (s *Shop) storedPrices() map[int64]string {
	if s.prices == nil {
		s.prices = map[int64]string{}
	}
	return s.prices
}

// attachment adds an image attachment of the product and returns its ID.
func (s *Shop) attachment(parent int64, file string) int64 {
	mime := map[string]string{".png": "image/png", ".webp": "image/webp", ".gif": "image/gif"}[path.Ext(file)]
	if mime == "" {
		mime = "image/jpeg"
	}
	id := s.post("attachment", "inherit", path.Base(file), slugify(path.Base(file)), "", "", "", parent, 0, time.Time{}, mime)
	s.PostMeta(id, "_wp_attached_file", file)
	s.PostMeta(id, "_wp_attachment_metadata", Serialize(map[string]any{"width": 1200, "height": 800, "file": file},
		"width", "height", "file"))
	return id
}

// productAttributes is the serialized _product_attributes meta.
func (s *Shop) productAttributes(global, local []string, variation bool, more ...Attribute) string {
	var parts []string
	n := 0
	isVar := 0
	if variation {
		isVar = 1
	}
	if len(global) > 0 {
		parts = append(parts, `s:12:"pa_framework";`+Serialize(map[string]any{"name": "pa_framework", "value": "",
			"position": 0, "is_visible": 1, "is_variation": isVar, "is_taxonomy": 1},
			"name", "value", "position", "is_visible", "is_variation", "is_taxonomy"))
		n++
	}
	if len(local) > 0 {
		parts = append(parts, `s:9:"framework";`+Serialize(map[string]any{"name": "Framework",
			"value": strings.Join(local, " | "), "position": n, "is_visible": 1, "is_variation": 0, "is_taxonomy": 0},
			"name", "value", "position", "is_visible", "is_variation", "is_taxonomy"))
		n++
	}
	parts = append(parts, attributeEntries(more, n)...)
	return fmt.Sprintf("a:%d:{%s}", len(parts), strings.Join(parts, ""))
}

// lookup adds the wc_product_meta_lookup row WooCommerce keeps: "no price"
// is stored as 0, like a free product.
func (s *Shop) lookup(id int64, minP, maxP, stock string, onsale bool) {
	s.lookupMinMax(id, []string{minP, maxP}, stock)
	if onsale {
		t := s.tables["wc_product_meta_lookup"]
		t.rows[len(t.rows)-1][6] = 1
	}
}

func (s *Shop) lookupMinMax(id int64, prices []string, stock string) {
	minP, maxP := "0", "0"
	if len(prices) > 0 && prices[0] != "" {
		minP, maxP = prices[0], prices[len(prices)-1]
	}
	s.Row("wc_product_meta_lookup", []string{"product_id", "sku", "virtual", "downloadable", "min_price",
		"max_price", "onsale", "stock_quantity", "stock_status", "rating_count", "average_rating",
		"total_sales", "tax_status", "tax_class"},
		id, "", 1, 1, minP, maxP, 0, nil, stock, 0, 0, 0, "taxable", "")
}

func serializeIDs(ids []int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "a:%d:{", len(ids))
	for i, id := range ids {
		fmt.Fprintf(&b, "i:%d;i:%d;", i, id)
	}
	b.WriteString("}")
	return b.String()
}

func distinctSorted(prices []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range prices {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

// AddNoise adds what real shops carry beside a product: a revision of it,
// and an order with its meta (orders stored as posts, as WooCommerce did
// before HPOS and many shops still do).
func (s *Shop) AddNoise(product int64, title string) {
	s.post("revision", "inherit", title, fmt.Sprintf("%d-revision-v1", product), "", "", "", product, 0, time.Time{}, "")
	order := s.post("shop_order", "wc-completed", "Order", "", "", "", "", 0, 0, time.Time{}, "")
	for _, kv := range [][2]string{{"_order_key", fmt.Sprintf("wc_order_%d", order)}, {"_customer_user", "0"},
		{"_payment_method", "stripe"}, {"_order_currency", "EUR"}, {"_order_total", "19.99"},
		{"_billing_email", "buyer@example.com"}, {"_paid_date", "2026-10-01 10:00:00"}} {
		s.PostMeta(order, kv[0], kv[1])
	}
}
