package catalog

import (
	"context"
	"log/slog"
	"strconv"
	"strings"

	"catalogd/wpdb"
)

// shopOptions are the options the mapping reads, in one query per request.
var shopOptions = []string{
	"home", "siteurl", "blogname", "blogdescription", "permalink_structure",
	"upload_url_path", "upload_path",
	"woocommerce_currency", "woocommerce_price_num_decimals",
	"woocommerce_hide_out_of_stock_items", "woocommerce_permalinks",
	wpdb.OptionWPML, wpdb.OptionPolylang, wpdb.OptionTranslatePress, "active_plugins",
	"blog_public", wpdb.OptionYoast, wpdb.OptionRankMathModules,
}

// shop is what one response needs to know about the shop's settings.
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
}

// readShop reads the shop's settings from its options.
func (c *Catalog) readShop(ctx context.Context, tx *wpdb.Tx) (*shop, error) {
	opts, err := tx.Options(ctx, shopOptions)
	if err != nil {
		return nil, err
	}
	orderBy, _, err := tx.AttributeOrderBy(ctx, "framework")
	if err != nil {
		return nil, err
	}
	sh := &shop{
		name:           PlainName(opts["blogname"]),
		description:    PlainName(opts["blogdescription"]),
		currency:       opts["woocommerce_currency"],
		decimals:       2,
		hideOutOfStock: opts["woocommerce_hide_out_of_stock_items"] == "yes",
		frameworkOrder: orderBy,
	}
	if sh.currency == "" {
		sh.currency = "USD" // WooCommerce's default (get_woocommerce_currency)
	}
	if d, err := strconv.Atoi(strings.TrimSpace(opts["woocommerce_price_num_decimals"])); err == nil && d >= 0 && d <= 8 {
		sh.decimals = d
	}

	sh.home = strings.TrimRight(opts["home"], "/")
	if c.cfg.SiteURL != "" {
		sh.home = strings.TrimRight(c.cfg.SiteURL, "/")
	}
	siteurl := strings.TrimRight(opts["siteurl"], "/")
	if siteurl == "" {
		siteurl = sh.home
	}

	structure := opts["permalink_structure"]
	sh.plainPermalinks = structure == ""
	sh.trailingSlash = strings.HasSuffix(structure, "/")

	pl, err := wpdb.ParsePermalinks(opts["woocommerce_permalinks"])
	if err != nil {
		// A damaged option is the shop's problem, not the visitor's: the
		// storefront falls back to the defaults too (wp_parse_args).
		slog.WarnContext(ctx, "woocommerce_permalinks is damaged; using the default bases", "err", err)
	}
	sh.productBase = strings.Trim(pl.ProductBase, "/")
	if sh.productBase == "" {
		sh.productBase = "product"
	}
	sh.categoryBase = strings.Trim(pl.CategoryBase, "/")
	if sh.categoryBase == "" {
		sh.categoryBase = "product-category"
	}

	active := readActivePlugins(ctx, opts["active_plugins"])
	if sh.multilingual, sh.ignored, err = c.languages(ctx, tx, sh, opts, active); err != nil {
		return nil, err
	}
	if sh.sitemap, err = c.sitemapURL(ctx, tx, sh, opts, active); err != nil {
		return nil, err
	}

	sh.uploads = uploadsBase(c.cfg.UploadsURL, opts["upload_url_path"], opts["upload_path"], siteurl)
	return sh, nil
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

// productURL is get_permalink() of a product; catPath is the path of the
// product's deepest category, used when the base holds %product_cat%.
func (sh *shop) productURL(slug string, catPath func() string) string {
	if sh.plainPermalinks {
		return sh.inLanguage(sh.products, sh.home+"/?product="+SlugQueryValue(slug))
	}
	base := sh.productBase
	if strings.Contains(base, "%product_cat%") {
		base = strings.ReplaceAll(base, "%product_cat%", catPath())
	}
	return sh.inLanguage(sh.products, sh.link(base, slug))
}

// categoryURL is get_term_link() of a category: path holds the ancestors'
// slugs and the category's own.
func (sh *shop) categoryURL(slug string, path []string) string {
	if sh.plainPermalinks {
		return sh.inLanguage(sh.categories, sh.home+"/?product_cat="+SlugQueryValue(slug))
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

// imageURL is the full-size URL of an attachment's _wp_attached_file.
func (sh *shop) imageURL(file string) string {
	if strings.HasPrefix(file, "http://") || strings.HasPrefix(file, "https://") {
		return file // media offloaded elsewhere stores the whole URL
	}
	return sh.uploads + "/" + strings.TrimLeft(file, "/")
}
