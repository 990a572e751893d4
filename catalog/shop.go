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
	wpdb.OptionWPML, wpdb.OptionPolylang, wpdb.OptionTranslatePress,
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
	frameworkOrder    string // attribute_orderby of pa_framework
	plugin, language  string // translation plugin and the language served, if any
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

	sh.plugin, sh.language = c.languages(ctx, opts)

	sh.uploads = uploadsBase(c.cfg.UploadsURL, opts["upload_url_path"], opts["upload_path"], siteurl)
	return sh, nil
}

// Translation plugins catalogd knows.
const (
	pluginWPML           = "wpml"
	pluginPolylang       = "polylang"
	pluginTranslatePress = "translatepress"
)

// languages detects the translation plugin from its settings option and
// the language to serve: the configured one, else the plugin's default.
func (c *Catalog) languages(ctx context.Context, opts map[string]string) (plugin, lang string) {
	for _, p := range []struct{ plugin, option string }{
		{pluginWPML, wpdb.OptionWPML}, {pluginPolylang, wpdb.OptionPolylang},
		{pluginTranslatePress, wpdb.OptionTranslatePress},
	} {
		raw, ok := opts[p.option]
		if !ok {
			continue
		}
		def, err := wpdb.DefaultLanguage(p.option, raw)
		if err != nil && c.cfg.Language == "" {
			slog.WarnContext(ctx, "translation plugin settings unreadable; serving every language", "plugin", p.plugin, "err", err)
			return "", ""
		}
		if c.cfg.Language != "" {
			def = c.cfg.Language
		}
		return p.plugin, def
	}
	return "", ""
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
		return sh.home + "/?product=" + SlugQueryValue(slug)
	}
	base := sh.productBase
	if strings.Contains(base, "%product_cat%") {
		base = strings.ReplaceAll(base, "%product_cat%", catPath())
	}
	return sh.link(base, slug)
}

// categoryURL is get_term_link() of a category: path holds the ancestors'
// slugs and the category's own.
func (sh *shop) categoryURL(slug string, path []string) string {
	if sh.plainPermalinks {
		return sh.home + "/?product_cat=" + SlugQueryValue(slug)
	}
	return sh.link(append([]string{sh.categoryBase}, path...)...)
}

// imageURL is the full-size URL of an attachment's _wp_attached_file.
func (sh *shop) imageURL(file string) string {
	if strings.HasPrefix(file, "http://") || strings.HasPrefix(file, "https://") {
		return file // media offloaded elsewhere stores the whole URL
	}
	return sh.uploads + "/" + strings.TrimLeft(file, "/")
}
