package catalog

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"
	"unicode/utf8"

	"catalogd/wpdb"
)

// Config is what the catalog needs beyond the database.
type Config struct {
	// SiteURL overrides the home option as the origin of every URL.
	SiteURL string
	// UploadsURL overrides the uploads base URL derived from the options,
	// for sites that move uploads with PHP constants.
	UploadsURL string
	// Namespace is the API namespace word: the API lives at
	// {site}/wp-json/{Namespace}/v1.
	Namespace string
	// DevelopersURL is the developer page the index links, if any.
	DevelopersURL string
	// SitemapURL overrides the sitemap the index links: "" finds the one
	// the shop serves (sitemap.go), SitemapNone links none.
	SitemapURL string
	// Language is the language served on a multilingual shop (WPML or
	// Polylang code); empty: the translation plugin's default language.
	Language string
	// Now is the clock sales are evaluated against; time.Now by default.
	Now Clock
}

// Catalog implements Service over a WooCommerce database.
type Catalog struct {
	db   *wpdb.DB
	cfg  Config
	pop  populations
	seen seen
}

var _ Service = (*Catalog)(nil)

// New returns the catalog of the shop in db.
func New(db *wpdb.DB, cfg Config) *Catalog {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Namespace == "" {
		cfg.Namespace = "shop"
	}
	return &Catalog{db: db, cfg: cfg}
}

// view runs fn on one consistent read of the shop, with its population
// (settings, terms, membership) built if there is none, and turns storage
// failures into the domain's errors.
func (c *Catalog) view(ctx context.Context, fn func(ctx context.Context, tx *wpdb.Tx, st *population) error) error {
	err := c.db.View(ctx, func(ctx context.Context, tx *wpdb.Tx) error {
		now := c.cfg.Now()
		st, err := c.pop.get(now, func() (*population, error) {
			c.lastSeen(now) // the first load starts the clocks of Modified
			sh, err := c.readShop(ctx, tx)
			if err != nil {
				return nil, err
			}
			t, err := loadTerms(ctx, tx, sh)
			if err != nil {
				return nil, err
			}
			return buildPopulation(ctx, tx, sh, t, now)
		})
		if err != nil {
			return err
		}
		return fn(ctx, tx, st)
	})
	var ce *Error
	switch {
	case err == nil || errors.As(err, &ce):
		return err
	case wpdb.IsUnavailable(err) || errors.Is(err, context.Canceled) || errors.As(err, new(*LanguageError)):
		// A configured language the site lacks (seen when the database came
		// back after start-up) is the operator's to fix, like a denied
		// table: the catalog cannot be served, /readyz says why.
		return &Error{Kind: EUNAVAILABLE, Reason: "unavailable",
			Message: "The catalog database is not reachable right now.",
			Hint:    "Retry after the number of seconds in the Retry-After header.", Err: err}
	default:
		return &Error{Kind: EINTERNAL, Reason: "internal_error",
			Message: "The catalog could not be read.", Err: err}
	}
}

// baseURL is the API's base URL.
func (c *Catalog) baseURL(sh *shop) string {
	return sh.home + "/wp-json/" + c.cfg.Namespace + "/v1"
}

// languageFilter selects the published products of the language served
// where the plugin translates products; on a shop without a translation
// plugin, with TranslatePress (one post per product), or where products are
// not translated, every product.
func languageFilter(sh *shop) wpdb.Filter {
	if !sh.products {
		return wpdb.Filter{}
	}
	switch sh.plugin {
	case pluginWPML:
		return wpdb.Filter{WPMLLanguage: sh.language}
	case pluginPolylang:
		return wpdb.Filter{Require: [][]int64{{sh.pllLanguageTT}}}
	}
	return wpdb.Filter{}
}

// Index describes the catalog.
func (c *Catalog) Index(ctx context.Context) (*Index, error) {
	var idx *Index
	err := c.view(ctx, func(ctx context.Context, tx *wpdb.Tx, st *population) error {
		sh, t := st.sh, st.t
		visible := st.visible(t.catalogExclusions(sh.hideOutOfStock)).count()
		published := st.all.count()
		cats := categories(st)
		base := c.baseURL(sh)
		idx = &Index{
			Name:                       sh.name,
			Description:                sh.description,
			Currency:                   sh.currency,
			ProductCount:               visible,
			PublishedProductCount:      published,
			CatalogVisibleProductCount: visible,
			CategoryCount:              len(cats),
			Developers:                 c.cfg.DevelopersURL,
			OpenAPI:                    sh.home + "/openapi.json",
			LLMsTxt:                    sh.home + "/llms.txt",
			Sitemap:                    sh.sitemap,
			Endpoints: Endpoints{
				Catalog:    base + "/catalog",
				Categories: base + "/catalog/categories",
				Products:   base + "/catalog/products",
				Product:    base + "/catalog/products/{slug}",
			},
		}
		now := c.cfg.Now()
		_, shopSeen := c.lastSeen(now)
		idx.Modified = notAfter(shopSeen, now)
		return nil
	})
	return idx, err
}

// Categories lists the categories holding at least one visible product.
func (c *Catalog) Categories(ctx context.Context) (*CategoryList, error) {
	var list *CategoryList
	err := c.view(ctx, func(ctx context.Context, tx *wpdb.Tx, st *population) error {
		now := c.cfg.Now()
		_, shopSeen := c.lastSeen(now)
		list = &CategoryList{Categories: categories(st), Modified: notAfter(shopSeen, now)}
		return nil
	})
	return list, err
}

// categories counts the catalog-visible products of every category and its
// descendants, as the storefront's archive shows them (and as WooCommerce's
// product_count_product_cat meta would, were it not stale after the
// out-of-stock option changes).
func categories(st *population) []Category {
	sh, t := st.sh, st.t
	visible := st.visible(t.catalogExclusions(sh.hideOutOfStock))
	out := []Category{}
	for _, cat := range t.categories {
		n := visible.and(st.union(cat.subtree)).count()
		if n < 1 {
			continue
		}
		var parent *string
		if cat.parent != nil {
			s := cat.parent.Slug
			parent = &s
		}
		out = append(out, Category{Slug: cat.Slug, Name: cat.name, Count: n,
			URL: sh.categoryURL(cat.Slug, cat.path), Parent: parent, ID: cat.TermID})
	}
	return out
}

// Products returns one page of the catalog-visible products.
func (c *Catalog) Products(ctx context.Context, q ListQuery) (*ProductList, error) {
	if q.Page == 0 {
		q.Page = 1
	}
	if q.PerPage == 0 {
		q.PerPage = DefaultPerPage
	}
	problems := q.check()
	if len(problems) > 0 && q.Category == "" {
		return nil, InvalidParams(problems) // nothing the database could add
	}
	var list *ProductList
	err := c.view(ctx, func(ctx context.Context, tx *wpdb.Tx, st *population) error {
		sh, t := st.sh, st.t
		now := c.cfg.Now()
		set := st.visible(t.catalogExclusions(sh.hideOutOfStock))
		var catID int64
		if q.Category != "" {
			cat, ok := t.catBySlug[q.Category]
			if !ok {
				problems["category"] = fmt.Sprintf("No product category has the slug %q.", q.Category)
			} else {
				set = set.and(st.union(cat.subtree))
				catID = cat.TermID
			}
		}
		if len(problems) > 0 {
			e := InvalidParams(problems)
			if e.Reason == "invalid_category" {
				e.Hint = "Use a slug from " + c.baseURL(sh) + "/catalog/categories."
			}
			return e
		}
		if q.Framework != "" {
			// No such term in this shop: the union of nothing, nothing matches.
			set = set.and(st.union([]int64{t.fwBySlug[q.Framework]}))
		}
		total := set.count()
		pages := (total + q.PerPage - 1) / q.PerPage
		if q.Page > pages && q.Page > 1 {
			return invalidPage(q, pages)
		}
		settingsSeen, shopSeen := c.lastSeen(now)
		list = &ProductList{Products: []Product{}, Page: q.Page, PerPage: q.PerPage, Total: total, TotalPages: pages,
			CategoryID: catID, Modified: notAfter(shopSeen, now)}
		if total == 0 {
			return nil
		}
		var ids []int64
		for _, pos := range set.page((q.Page-1)*q.PerPage, q.PerPage) {
			ids = append(ids, st.ids[pos])
		}
		d, err := loadProducts(ctx, tx, t, ids, false)
		if err != nil {
			return err
		}
		for _, id := range ids {
			// A product unpublished since the population was built is
			// dropped from the page rather than shown.
			if post, ok := d.posts[id]; ok && post.Status == "publish" && post.Type == "product" {
				p := mapProduct(sh, t, d, id, false, now)
				p.Modified = notAfter(latest(p.Modified, settingsSeen), now)
				list.Until = earliest(list.Until, p.Until)
				list.Modified = latest(list.Modified, p.Modified)
				list.Products = append(list.Products, p)
			}
		}
		return nil
	})
	return list, err
}

// Product returns the published product with the English slug, hidden
// from the catalog or not. The slug may be spelt as listed or decoded
// (CanonicalSlug).
func (c *Catalog) Product(ctx context.Context, slug string) (*Product, error) {
	canonical, ok := CanonicalSlug(slug)
	if !ok {
		return nil, invalidSlug(slug)
	}
	slug = canonical
	var p *Product
	err := c.view(ctx, func(ctx context.Context, tx *wpdb.Tx, st *population) error {
		sh, t := st.sh, st.t
		id, found, err := tx.ProductIDBySlug(ctx, slug, languageFilter(sh))
		if err != nil {
			return err
		}
		if !found {
			return c.notFound(ctx, tx, sh, slug)
		}
		d, err := loadProducts(ctx, tx, t, []int64{id}, true)
		if err != nil {
			return err
		}
		now := c.cfg.Now()
		settingsSeen, _ := c.lastSeen(now)
		mp := mapProduct(sh, t, d, id, true, now)
		mp.Modified = notAfter(latest(mp.Modified, settingsSeen), now)
		p = &mp
		return nil
	})
	return p, err
}

// check returns the problems of the query: those ParseListQuery found,
// and the ranges of a query built in code.
func (q ListQuery) check() map[string]string {
	problems := map[string]string{}
	for k, v := range q.problems {
		problems[k] = v
	}
	if q.Page < 1 && problems["page"] == "" {
		problems["page"] = "page must be a plain whole number of at least 1."
	}
	if (q.PerPage < 1 || q.PerPage > MaxPerPage) && problems["per_page"] == "" {
		problems["per_page"] = fmt.Sprintf("per_page must be a plain whole number from 1 to %d.", MaxPerPage)
	}
	if q.Framework != "" && !ValidFramework(q.Framework) && problems["framework"] == "" {
		problems["framework"] = "framework must be one of esx, qbcore, qbox, standalone."
	}
	return problems
}

// paramOrder is the order in which an error's code names the first
// offending parameter.
var paramOrder = []string{"page", "per_page", "category", "framework", "slug"}

// InvalidParams is the error for a request whose parameters are wrong:
// params has a message for every offending one; the code names the first
// of them in paramOrder.
func InvalidParams(params map[string]string) *Error {
	first := ""
	for _, p := range paramOrder {
		if params[p] != "" {
			first = p
			break
		}
	}
	return &Error{Kind: EINVALID, Reason: "invalid_" + first, Message: params[first],
		Hint: paramHints[first], Params: params}
}

// paramHints say what to send instead, per parameter.
var paramHints = map[string]string{
	"page":      "Send page as a plain whole number from 1 up to total_pages, or leave it out for the first page.",
	"per_page":  "Send per_page as a plain whole number from 1 to 50 (default 20); larger pages are rejected, not clamped.",
	"category":  "Use a slug from the categories endpoint.",
	"framework": "Use one of esx, qbcore, qbox, standalone, or leave framework out.",
	"slug":      "Use the product's slug as the product list shows it: lowercase letters, digits, underscores and hyphens, other characters percent-encoded (or sent as UTF-8).",
}

func invalidPage(q ListQuery, pages int) *Error {
	e := InvalidParams(map[string]string{"page": fmt.Sprintf("page %d is beyond the last page, %d.", q.Page, pages)})
	e.Hint = fmt.Sprintf("The last page is %d at per_page=%d; ask for page %d or lower.", pages, q.PerPage, pages)
	if pages == 0 {
		e.Hint = "Nothing matches these filters: page 1 answers with an empty list."
	}
	return e
}

func invalidSlug(slug string) *Error {
	msg := "slug must be lowercase letters, digits, underscores, hyphens and percent-encoded (or UTF-8) characters."
	if len(slug) > MaxSlugLength || utf8.ValidString(slug) && slugRE.MatchString(slug) {
		msg = fmt.Sprintf("slug must be at most %d characters, percent-encoded as the product list shows it.", MaxSlugLength)
	}
	return InvalidParams(map[string]string{"slug": msg})
}

// ParseListQuery reads the product list's parameters from query values,
// strictly: page and per_page are plain base-10 whole numbers (not empty,
// signed, fractional, huge or repeated) in range, category a non-empty slug,
// framework one of Frameworks. Other parameters are ignored, as WordPress
// ignores them. The error names every offending parameter; the query keeps
// them too, so that Products reports them along with an unknown category.
func ParseListQuery(values map[string][]string) (ListQuery, error) {
	q := ListQuery{Page: 1, PerPage: DefaultPerPage}
	params := map[string]string{}
	bad := func(name, msg string) { params[name] = msg }
	one := func(name string) (string, bool) {
		v, ok := values[name]
		if !ok {
			return "", false
		}
		if len(v) > 1 {
			bad(name, name+" was given more than once; send it once.")
			return "", false
		}
		return v[0], true
	}
	number := func(name string, min, max int, dst *int) {
		s, ok := one(name)
		if !ok {
			return
		}
		n, err := strconv.Atoi(s)
		if err != nil || !digitsRE.MatchString(s) || n < min || max > 0 && n > max {
			msg := fmt.Sprintf("%s must be a plain whole number of at least %d.", name, min)
			if max > 0 {
				msg = fmt.Sprintf("%s must be a plain whole number from %d to %d.", name, min, max)
			}
			bad(name, msg)
			return
		}
		*dst = n
	}
	number("page", 1, 0, &q.Page)
	number("per_page", 1, MaxPerPage, &q.PerPage)
	if s, ok := one("category"); ok {
		if s == "" || len(s) > MaxSlugLength || !utf8.ValidString(s) {
			bad("category", "category must be a category slug from the categories endpoint.")
		} else if canonical, ok := CanonicalSlug(s); ok {
			q.Category = canonical // as listed or decoded, the stored form
		} else {
			// Not a spelling SlugPattern knows: looked up exactly as sent,
			// so a stored slug outside the pattern (an "_") still filters.
			q.Category = s
		}
	}
	if s, ok := one("framework"); ok {
		if !ValidFramework(s) {
			bad("framework", "framework must be one of esx, qbcore, qbox, standalone.")
		} else {
			q.Framework = s
		}
	}
	if len(params) > 0 {
		q.problems = params
		return q, InvalidParams(params)
	}
	return q, nil
}

var digitsRE = regexp.MustCompile(`^[0-9]+$`)

// SiteURL is the origin every URL is built on: the configured site URL, or
// the shop's home option.
func (c *Catalog) SiteURL(ctx context.Context) (string, error) {
	var home string
	err := c.view(ctx, func(ctx context.Context, tx *wpdb.Tx, st *population) error {
		home = st.sh.home
		return nil
	})
	return home, err
}

// notFound is the 404 for a slug: when the slug is a translation's, the hint
// names the product's slug in the language served and its API URL.
func (c *Catalog) notFound(ctx context.Context, tx *wpdb.Tx, sh *shop, slug string) error {
	e := &Error{Kind: ENOTFOUND, Reason: "product_not_found",
		Message: fmt.Sprintf("No published product has the slug %q.", slug),
		Hint:    "List the products at " + c.baseURL(sh) + "/catalog/products to find the " + sh.label() + " slug."}
	var source string
	var ok bool
	var err error
	switch {
	case sh.plugin == pluginWPML && sh.products:
		source, ok, err = tx.WPMLSource(ctx, slug, sh.language)
	case sh.plugin == pluginPolylang && sh.products:
		source, ok, err = tx.PolylangSource(ctx, slug, sh.language, sh.pllLanguageTT)
	case sh.plugin == pluginTranslatePress:
		source, ok, err = tx.TranslatePressSource(ctx, slug)
		if err == nil && ok && source != slug {
			// The original must be a published product to point at.
			_, ok, err = tx.ProductIDBySlug(ctx, source, wpdb.Filter{})
		}
	}
	if err != nil {
		return err
	}
	if ok && source != slug {
		e.Message = fmt.Sprintf("%q is the slug of a translation; the API serves the %s catalog only.", slug, sh.label())
		e.Hint = fmt.Sprintf("The product's %s slug is %q: %s/catalog/products/%s", sh.label(), source, c.baseURL(sh), source)
	}
	return e
}

// Invalidate drops what the catalog keeps in memory about the shop's
// products, so that the next read sees the database as it is.
func (c *Catalog) Invalidate() { c.pop.invalidate() }

// LanguageInfo is what the catalog found about the shop's languages.
type LanguageInfo struct {
	Plugin   string // the translation plugin WordPress loads; "" when none
	Language string // the language served on a multilingual shop
	Products int    // the published products served
	// Ignored are translation plugins' leftovers (settings of a plugin that
	// is not active, or that lacks its tables), one line each.
	Ignored []string
}

// Languages reports the translation plugin found, the language served and
// the leftovers ignored.
func (c *Catalog) Languages(ctx context.Context) (LanguageInfo, error) {
	var info LanguageInfo
	err := c.view(ctx, func(ctx context.Context, tx *wpdb.Tx, st *population) error {
		info = LanguageInfo{Plugin: st.sh.plugin, Language: st.sh.language, Ignored: st.sh.ignored,
			Products: st.all.count()}
		return nil
	})
	return info, err
}

// Ready reports whether the catalog can be read: the shop's settings, terms
// and population load (or are loaded and current). A database that answers
// with every table is not enough: a plugin's damaged tables or a language the
// site lacks leave every endpoint failing.
func (c *Catalog) Ready(ctx context.Context) error {
	return c.view(ctx, func(context.Context, *wpdb.Tx, *population) error { return nil })
}
