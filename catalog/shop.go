package catalog

import (
	"strings"

	"catalogd/api"
	"catalogd/wpopt"
	"catalogd/wpsearch"
)

// shop is the shop's settings as the rules need them.
type shop struct {
	name, description string
	currency          string
	decimals          int
	hideOutOfStock    bool
	home              string // site URL for permalinks, no trailing slash
	productBase       string // "product", or with %product_cat%; no slashes around
	categoryBase      string
	plainPermalinks   bool // permalink_structure empty: ?product=slug links
	trailingSlash     bool // user_trailingslashit: the structure ends with /
	uploads           string
	frameworkOrder    string   // attribute_orderby of pa_framework
	sitemap           string   // the sitemap index's URL; "" when the shop has none
	multilingual               // translation plugin and the language served, if any
	ignored           []string // translation plugins' leftovers not taken for a plugin
	// stopwords are the words a search drops (get_search_stopwords) in
	// the site's language, the WPLANG option.
	stopwords []string
}

// readShop decodes the shop's settings from its options.
func (b *builder) readShop(rows *ShopRows) (*shop, error) {
	opts := rows.Options
	sh := &shop{
		name:           PlainName(opts["blogname"]),
		description:    PlainName(opts["blogdescription"]),
		currency:       opts["woocommerce_currency"],
		decimals:       2,
		hideOutOfStock: opts["woocommerce_hide_out_of_stock_items"] == "yes",
		frameworkOrder: rows.OrderBy[attrFramework],
		stopwords:      wpsearch.Stopwords(opts["WPLANG"]),
	}
	if sh.currency == "" {
		sh.currency = "USD" // WooCommerce's default (get_woocommerce_currency)
	}
	// wc_get_price_decimals() is absint(get_option(…, 2)): the default holds
	// only for a missing option; a field saved empty (or not a number)
	// shows no decimals. Beyond 8 no currency goes: the default stays.
	if v, ok := opts["woocommerce_price_num_decimals"]; ok {
		if d := absint(v); d <= 8 {
			sh.decimals = d
		}
	}

	sh.home = strings.TrimRight(opts["home"], "/")
	if b.cfg.SiteURL != "" {
		sh.home = strings.TrimRight(b.cfg.SiteURL, "/")
	}
	siteurl := strings.TrimRight(opts["siteurl"], "/")
	if siteurl == "" {
		siteurl = sh.home
	}

	structure := opts["permalink_structure"]
	sh.plainPermalinks = structure == ""
	sh.trailingSlash = strings.HasSuffix(structure, "/")

	pl, err := wpopt.ParsePermalinks(opts["woocommerce_permalinks"])
	if err != nil {
		// A damaged option is the shop's problem, not the visitor's: the
		// storefront falls back to the defaults too (wp_parse_args).
		b.warn("woocommerce_permalinks is damaged; using the default bases", err)
	}
	sh.productBase = strings.Trim(pl.ProductBase, "/")
	if sh.productBase == "" {
		sh.productBase = "product"
	}
	sh.categoryBase = strings.Trim(pl.CategoryBase, "/")
	if sh.categoryBase == "" {
		sh.categoryBase = "product-category"
	}

	active := b.activePlugins(rows)
	if sh.multilingual, sh.ignored, err = b.languages(rows, sh, active); err != nil {
		return nil, err
	}
	sh.sitemap = b.sitemapURL(sh, opts, active)
	sh.uploads = uploadsBase(b.cfg.UploadsURL, opts["upload_url_path"], opts["upload_path"], siteurl)
	return sh, nil
}

// absint is PHP's absint() of a string: abs((int) $s), the leading
// whitespace, sign and digits, 0 when there are none; a value past 9 digits
// saturates (no caller needs it exact).
func absint(s string) int {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:] // PHP reads one sign; abs() drops it
	}
	n := 0
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if n > 1e9 {
			break
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// uploadsBase mirrors _wp_upload_dir()'s baseurl: upload_url_path when set,
// else siteurl + wp-content/uploads, or siteurl + a relative upload_path.
// A configured URL wins, for sites that move uploads with PHP constants.
func uploadsBase(configured, urlPath, uploadPath, siteurl string) string {
	if configured != "" {
		return strings.TrimRight(configured, "/")
	}
	if u := strings.TrimSpace(urlPath); u != "" {
		return strings.TrimRight(u, "/")
	}
	p := strings.TrimSpace(uploadPath)
	if p == "" || p == "wp-content/uploads" || strings.HasPrefix(p, "/") {
		return siteurl + "/wp-content/uploads"
	}
	return siteurl + "/" + strings.Trim(p, "/")
}

// link joins path segments under the home URL the way get_permalink() does.
func (sh *shop) link(segments ...string) string {
	u := sh.home + "/" + strings.Join(segments, "/")
	if sh.trailingSlash {
		u += "/"
	}
	return u
}

// productURL is get_permalink() of a product: home, the product base of
// woocommerce_permalinks (wc_get_permalink_structure), the slug; catPath is
// the path of the product's deepest category, used when the base holds
// %product_cat%.
func (sh *shop) productURL(slug string, catPath func() string) string {
	if sh.plainPermalinks {
		return sh.inLanguage(sh.products, sh.home+"/?product="+api.SlugQueryValue(slug))
	}
	base := sh.productBase
	if strings.Contains(base, "%product_cat%") {
		base = strings.ReplaceAll(base, "%product_cat%", catPath())
	}
	return sh.inLanguage(sh.products, sh.link(base, slug))
}

// appendProductURL appends productURL to dst. The usual URL (pretty
// permalinks, a base without %product_cat%, no language in it) is written
// in place: made apart, it would be two strings of garbage a product.
func (sh *shop) appendProductURL(dst []byte, slug string, catPath func() string) []byte {
	if sh.plainPermalinks || sh.products && sh.langURL != nil || strings.Contains(sh.productBase, "%product_cat%") {
		return append(dst, sh.productURL(slug, catPath)...)
	}
	dst = append(append(append(append(append(dst, sh.home...), '/'), sh.productBase...), '/'), slug...)
	if sh.trailingSlash {
		dst = append(dst, '/')
	}
	return dst
}

// categoryURL is get_term_link() of a category: path holds the ancestors'
// slugs and the category's own.
func (sh *shop) categoryURL(slug string, path []string) string {
	if sh.plainPermalinks {
		return sh.inLanguage(sh.categories, sh.home+"/?product_cat="+api.SlugQueryValue(slug))
	}
	return sh.inLanguage(sh.categories, sh.link(append([]string{sh.categoryBase}, path...)...))
}

// inLanguage is the translation plugin's post_type_link / term_link filter:
// an item of a translated type gets the served language in its URL, as the
// plugin's URL mode puts it; others keep WordPress's.
func (sh *shop) inLanguage(translated bool, u string) string {
	if translated && sh.langURL != nil {
		return sh.langURL(u)
	}
	return u
}

// appendImageURL appends the full-size URL of an attachment's
// _wp_attached_file to dst.
func (sh *shop) appendImageURL(dst []byte, file string) []byte {
	if strings.HasPrefix(file, "http://") || strings.HasPrefix(file, "https://") {
		return append(dst, file...)
	}
	return append(append(append(dst, sh.uploads...), '/'), strings.TrimLeft(file, "/")...)
}
