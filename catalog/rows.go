package catalog

import (
	"context"
	"slices"
	"strings"
	"time"

	"catalogd/wpopt"
)

// This file declares what catalogd reads of a WordPress + WooCommerce
// database and the rows a Source hands over: storage as it is, undecoded
// only where decoding is a storage matter (PHP-serialized lists). The rules
// that turn the rows into resources are the rest of this package; the SQL
// lives in package wpdb, which implements Source.

// Source reads the shop's storage. Each call is one consistent read.
type Source interface {
	// LoadShop reads the whole shop: settings, terms, and every published
	// product with what its fields need.
	LoadShop(ctx context.Context, r Reads) (*ShopRows, error)
	// LoadProducts reads the products with the IDs, in whatever state they
	// are (a trashed product comes back as trashed, a deleted one not at
	// all), with what their fields need.
	LoadProducts(ctx context.Context, r Reads, ids []int64) (*ProductRows, error)
}

// Reads is the one declaration of what the mapping reads: the Source reads
// exactly this, and the change detection watches exactly this.
type Reads struct {
	Options    []string // option names
	Taxonomies []string // the terms read whole (name, slug, parent, order)
	// MemberTaxonomies are taxonomies whose terms' members are read whole:
	// Polylang's term_language relates categories (by term_id) to languages.
	MemberTaxonomies []string
	MetaKeys         []string // post meta of products, variations, children and images
	// MetaLists are the MetaKeys read as lists (Meta.Values), every row of
	// them counting. Of another key only a post's first row counts
	// (Meta.First), and a post's only row of it, when empty, is as good as
	// none: the Source leaves such rows out (many rows: mostly unset sale
	// prices and dates).
	MetaLists  []string
	Attributes []string // global attributes whose attribute_orderby is read
	// AttributeTaxonomies adds every registered global attribute: its
	// registration (ShopRows.AttributeTaxonomies) and the terms of every
	// taxonomy named pa_… (a registered attribute's), read and watched as
	// Taxonomies are.
	AttributeTaxonomies bool
	// Tables are optional tables (translation plugins'): read when present.
	Tables []string
}

// TaxonomyLike is the LIKE pattern of the taxonomies read beyond
// Taxonomies (every attribute's, pa\_%), "" for none.
func (r Reads) TaxonomyLike() string {
	if r.AttributeTaxonomies {
		return strings.ReplaceAll(AttributeTaxonomyPrefix, "_", `\_`) + "%"
	}
	return ""
}

// ReadsTaxonomy says whether the terms of the taxonomy are read (and
// watched).
func (r Reads) ReadsTaxonomy(taxonomy string) bool {
	return slices.Contains(r.Taxonomies, taxonomy) || slices.Contains(r.MemberTaxonomies, taxonomy) ||
		r.AttributeTaxonomies && strings.HasPrefix(taxonomy, AttributeTaxonomyPrefix)
}

// ShopReads is what the catalog reads.
var ShopReads = Reads{
	Options: []string{
		"home", "siteurl", "blogname", "blogdescription", "permalink_structure",
		"upload_url_path", "upload_path",
		"woocommerce_currency", "woocommerce_price_num_decimals",
		"woocommerce_hide_out_of_stock_items", "woocommerce_permalinks",
		// A translation plugin switched on or off, or its settings changed.
		"active_plugins", wpopt.OptionWPML, wpopt.OptionPolylang, wpopt.OptionTranslatePress,
		// The sitemap the index links: search engine visibility, an SEO
		// plugin's sitemap switched on or off.
		"blog_public", wpopt.OptionYoast, wpopt.OptionRankMathModules,
		// The site's language: a search's stopwords are its translation's.
		"WPLANG",
	},
	Taxonomies:       []string{taxCategory, taxVisibility, taxType, taxFramework, taxTag, taxLanguage, taxTermLanguage},
	MemberTaxonomies: []string{taxTermLanguage},
	MetaKeys: []string{metaPrice, metaRegularPrice, metaSalePrice, metaSaleFrom, metaSaleTo,
		metaStockStatus, MetaThumbnail, MetaChildren, MetaAttachedFile,
		metaTotalSales, metaAverageRating, metaRatingCount, metaSKU, metaProductAttributes},
	MetaLists:           []string{metaPrice},
	Attributes:          []string{attrFramework},
	AttributeTaxonomies: true,
	Tables:              []string{TableWPMLTranslations, TableWPMLLanguages, TableTRPSlugOriginals, TableTRPSlugTranslations},
}

// Translation plugins' tables (unprefixed).
const (
	TableWPMLTranslations    = "icl_translations"
	TableWPMLLanguages       = "icl_languages"
	TableTRPSlugOriginals    = "trp_slug_originals"
	TableTRPSlugTranslations = "trp_slug_translations"
)

// ShopRows is the whole shop as stored.
type ShopRows struct {
	Options map[string]string // the Reads.Options present; a missing one is absent
	// OrderBy is attribute_orderby per registered attribute of Reads.Attributes.
	OrderBy map[string]string
	// AttributeTaxonomies are the registered global attributes, when
	// Reads.AttributeTaxonomies asks for them, in attribute_id order.
	AttributeTaxonomies []AttributeTaxonomy
	// NetworkPlugins are the network-activated plugin files (multisite);
	// NetworkNote says why they could not be read, if so.
	NetworkPlugins []string
	NetworkNote    string
	Tables         map[string]bool // which of Reads.Tables exist
	// Unreadable are the Reads.Tables the database user may not read, and
	// why: whether they exist cannot be told.
	Unreadable map[string]string
	Terms      []Term // of the taxonomies Reads reads (ReadsTaxonomy), in the database's name order
	// Members are the relationships of the Reads.MemberTaxonomies' terms.
	Members []Member
	// WPMLLanguages are WPML's active languages, by code.
	WPMLLanguages []Language
	// WPMLTerms files product categories by term_taxonomy_id under a
	// language (icl_translations, tax_product_cat).
	WPMLTerms map[int64]string
	// TranslatedSlugs maps TranslatePress's translated slugs to the
	// original ones.
	TranslatedSlugs map[string]string
	Products        ProductRows // every published product
	// Cost is the database time the read took: every statement's, its
	// parallel streams' added up. It paces the whole reads (Follow).
	Cost time.Duration
}

// ProductRows are products as stored, with the rows their fields need.
type ProductRows struct {
	Posts []Post // the products asked for (or every published one)
	// Related are the variations of these products (in the storefront's
	// order: menu_order, then ID), the grouped products' children not among
	// Posts, and nothing else.
	Related []Post
	// Meta holds Reads.MetaKeys of the posts, the related posts and the
	// products' images.
	Meta Meta
	// Terms are the term_taxonomy_ids each post and related post carries.
	Terms map[int64][]int64
	// Children is each grouped product's _children list, decoded.
	Children map[int64][]int64
	// WPML is the language and translation group of each product WPML files.
	WPML map[int64]WPMLElement
	// Groups are Polylang's post_translations groups these products belong
	// to: term_taxonomy_id → language code → post ID.
	Groups map[int64]map[string]int64
}

// Post is the part of a posts row the catalog needs.
type Post struct {
	ID       int64  `db:"ID"`
	Parent   int64  `db:"post_parent"`
	Type     string `db:"post_type"`
	Status   string `db:"post_status"`
	Slug     string `db:"post_name"`
	Title    string `db:"post_title"`
	Excerpt  string `db:"post_excerpt"`
	Content  string `db:"post_content"`
	Password string `db:"post_password"`
	// Modified is post_modified_gmt as stored ("2006-01-02 15:04:05" UTC;
	// all zeros for a draft).
	Modified string `db:"post_modified_gmt"`
	// MenuOrder orders variations, and products for the menu_order sort.
	MenuOrder int64 `db:"menu_order"`
	// Date is a product's post_date as stored ("2006-01-02 15:04:05", the
	// site's local time), for the date sort.
	Date string `db:"post_date"`
	// TitleKey is a product's post_title as the database's ORDER BY
	// post_title compares it: bytes that compare as the titles do under
	// the column's collation (the Source makes them).
	TitleKey string `db:"title_key"`
}

// ModifiedTime is the post's post_modified_gmt; zero when unset.
func (p Post) ModifiedTime() time.Time {
	t, err := time.ParseInLocation(time.DateTime, p.Modified, time.UTC)
	if err != nil || t.Year() < 1970 {
		return time.Time{}
	}
	return t
}

// Meta holds post meta: post ID → the post's rows of the keys read, in
// meta_id order (a variable product has several _price rows), but for the
// empty rows Reads.MetaLists lets the Source leave out. A post's rows
// are a slice, not a map by key: a whole load holds every product's and
// variation's meta, and a small map costs several times what a post's
// handful of rows (two strings each) do.
type Meta map[int64][]MetaRow

// MetaRow is one postmeta row of a post.
type MetaRow struct{ Key, Value string }

// First returns the first value of a post's key, "" when there is none.
func (m Meta) First(id int64, key string) string {
	for _, r := range m[id] {
		if r.Key == key {
			return r.Value
		}
	}
	return ""
}

// Values returns every value of a post's key, in meta_id order; nil when
// there is none.
func (m Meta) Values(id int64, key string) []string {
	var out []string
	for _, r := range m[id] {
		if r.Key == key {
			out = append(out, r.Value)
		}
	}
	return out
}

// AttributeTaxonomy is a global attribute as registered
// (woocommerce_attribute_taxonomies); its taxonomy is pa_{Name}.
type AttributeTaxonomy struct {
	Name    string `db:"attribute_name"`
	Label   string `db:"attribute_label"`
	OrderBy string `db:"attribute_orderby"`
}

// AttributeTaxonomyPrefix begins the name of every global attribute's
// taxonomy (wc_attribute_taxonomy_name).
const AttributeTaxonomyPrefix = "pa_"

// Term is one term of a taxonomy, joined on term_taxonomy.
type Term struct {
	TTID     int64  `db:"term_taxonomy_id"`
	TermID   int64  `db:"term_id"`
	Taxonomy string `db:"taxonomy"`
	Slug     string `db:"slug"`
	Name     string `db:"name"`   // as stored: HTML-escaped
	Parent   int64  `db:"parent"` // the parent's term_id, 0 at the top
	// Order is the "order" term meta (WooCommerce's drag-and-drop order),
	// as a number; 0 when missing, as the storefront's meta_value+0 sorts.
	Order int64 `db:"term_order"`
}

// Member is one term relationship: an object carrying a term.
type Member struct {
	TTID     int64 `db:"term_taxonomy_id"`
	ObjectID int64 `db:"object_id"`
}

// Language is one language a translation plugin has set up.
type Language struct {
	Code string `db:"code"`
	Name string `db:"name"`
}

// WPMLElement is a post's row in icl_translations.
type WPMLElement struct {
	Language string
	TRID     int64
}
