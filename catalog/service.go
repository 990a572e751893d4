package catalog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"catalogd/api"
)

// Config is what the catalog needs beyond the database.
type Config struct {
	// SiteURL overrides the home option as the origin of every URL.
	SiteURL string
	// UploadsURL overrides the uploads base URL derived from the options,
	// for sites that move uploads with PHP constants.
	UploadsURL string
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
	// OnBuild, when set, is told every whole snapshot swapped in and how
	// long reading and building it took.
	OnBuild func(s *Snapshot, took time.Duration)
}

// withDefaults fills in the defaults.
func (cfg Config) withDefaults() Config {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return cfg
}

// Catalog implements Service from snapshots of the shop a Source reads.
type Catalog struct {
	src Source
	cfg Config
	log *slog.Logger

	cur     atomic.Pointer[Snapshot]
	loadMu  sync.Mutex // one load or refresh at a time
	version atomic.Uint64
	seen    seen

	lastLoad atomic.Pointer[loadOutcome]

	firstMu sync.Mutex
	first   *firstLoad // the load requests wait for while there is no snapshot
}

// firstLoad is a load that requests without a snapshot share.
type firstLoad struct {
	done chan struct{}
	err  error
}

var _ Service = (*Catalog)(nil)

// New returns the catalog of the shop src reads. Nothing is read until the
// first request, Ready, Reload or Watch.
func New(src Source, cfg Config) *Catalog {
	return &Catalog{src: src, cfg: cfg.withDefaults(), log: slog.Default()}
}

// Snapshot returns the current snapshot. While there is none (at start, or
// after Invalidate), the callers share one load and wait for it as long as
// their context allows; the load itself runs to its own deadline, so that
// a caller giving up does not waste it.
func (c *Catalog) Snapshot(ctx context.Context) (*Snapshot, error) {
	if s := c.cur.Load(); s != nil {
		return s, nil
	}
	c.firstMu.Lock()
	f := c.first
	if f == nil {
		f = &firstLoad{done: make(chan struct{})}
		c.first = f
		go func() {
			_, f.err = c.reload(context.WithoutCancel(ctx))
			c.firstMu.Lock()
			c.first = nil // the next caller without a snapshot tries again
			c.firstMu.Unlock()
			close(f.done)
		}()
	}
	c.firstMu.Unlock()
	select {
	case <-f.done:
		if f.err != nil {
			return nil, domainError(f.err)
		}
		if s := c.cur.Load(); s != nil {
			return s, nil
		}
		return c.Snapshot(ctx) // invalidated meanwhile
	case <-ctx.Done():
		return nil, domainError(ctx.Err())
	}
}

// Reload reads the whole shop again and swaps the new snapshot in; until it
// is built, requests are answered from the old one. A failed reload keeps
// the old one.
func (c *Catalog) Reload(ctx context.Context) error {
	_, err := c.reload(ctx)
	return domainError(err)
}

func (c *Catalog) reload(ctx context.Context) (*Snapshot, error) {
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	s, err := c.load(ctx)
	if err != nil {
		return nil, err
	}
	c.lastSeen(c.cfg.Now()) // the first load starts the clocks of Modified
	c.swap(s)
	if c.cfg.OnBuild != nil {
		c.cfg.OnBuild(s, s.took)
	}
	return s, nil
}

// Refresh re-reads the products with the IDs (and the grouped products
// listing them) and swaps in a snapshot that shares everything else with
// the current one. Without a current snapshot it loads the whole shop.
func (c *Catalog) Refresh(ctx context.Context, ids ...int64) error {
	if c.cur.Load() == nil {
		return c.Reload(ctx)
	}
	if _, _, err := c.refresh(ctx, ids); err != nil {
		return err
	}
	// The lists, counts and index may have moved with these products, with
	// no product left on them to say so (one unpublished): their Modified
	// is when catalogd saw the shop change. The settings did not.
	c.sawChange(false)
	return nil
}

// refresh swaps in a snapshot with the products re-read, and returns it and
// the products it re-read (ids and those whose resources show them).
func (c *Catalog) refresh(ctx context.Context, ids []int64) (*Snapshot, []int64, error) {
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	old := c.cur.Load()
	if old == nil { // invalidated meanwhile: read the whole shop
		s, err := c.load(ctx)
		if err != nil {
			return nil, nil, domainError(err)
		}
		c.swap(s)
		return s, nil, nil
	}
	ids = old.Affected(ids)
	rows, err := c.src.LoadProducts(ctx, ShopReads, ids)
	if err != nil {
		return nil, nil, domainError(err)
	}
	s := old.With(rows, ids, c.version.Add(1), c.cfg)
	c.swap(s)
	return s, ids, nil
}

// Invalidate drops the current snapshot: the next request loads a new one
// and waits for it. Reload replaces it without making requests wait.
func (c *Catalog) Invalidate() {
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	c.cur.Store(nil)
}

// load reads and builds a whole snapshot.
func (c *Catalog) load(ctx context.Context) (*Snapshot, error) {
	start := time.Now()
	rows, err := c.src.LoadShop(ctx, ShopReads)
	if err != nil {
		return nil, err
	}
	read := time.Since(start)
	s, err := Build(rows, c.cfg, c.version.Add(1), c.cfg.Now())
	if err != nil {
		return nil, err
	}
	c.log.DebugContext(ctx, "snapshot built", "version", s.Version, "products", len(s.served),
		"read", read, "build", time.Since(start)-read)
	s.took = time.Since(start)
	return s, nil
}

// swap makes s current, logging what the shop's storage holds that
// WordPress overlooks when it differs from the last snapshot's.
func (c *Catalog) swap(s *Snapshot) {
	old := c.cur.Load()
	if old == nil || !slices.Equal(old.Warnings, s.Warnings) {
		for _, w := range s.Warnings {
			c.log.Warn(w)
		}
	}
	c.cur.Store(s)
}

// domainError turns a failure to load into the domain's errors.
func domainError(err error) error {
	var ce *Error
	switch {
	case err == nil || errors.As(err, &ce):
		return err
	case errors.Is(err, ErrUnavailable) || errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded) || errors.As(err, new(*LanguageError)):
		// A configured language the site lacks (seen when the database came
		// back after start-up) is the operator's to fix, like a denied
		// table: the catalog cannot be served, /readyz says why.
		return &Error{Kind: EUNAVAILABLE, Reason: "unavailable",
			Message: "The catalog database is not reachable right now.", Err: err}
	default:
		return &Error{Kind: EINTERNAL, Reason: "internal_error",
			Message: "The catalog could not be read.", Err: err}
	}
}

// ErrUnavailable marks a Source's failure to reach its storage (as opposed
// to storage that answers wrongly): a 503, not a 500.
var ErrUnavailable = errors.New("storage unavailable")

// Index describes the catalog.
func (c *Catalog) Index(ctx context.Context) (*Index, error) {
	snap, err := c.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	sh := snap.sh
	visible := snap.visible().count()
	now := c.cfg.Now()
	_, shopSeen := c.lastSeen(now)
	return &Index{Index: api.Index{
		Name:                       sh.name,
		Description:                sh.description,
		Currency:                   sh.currency,
		ProductCount:               visible,
		PublishedProductCount:      snap.every.count(),
		CatalogVisibleProductCount: visible,
		CategoryCount:              len(snap.categories()),
		Developers:                 c.cfg.DevelopersURL,
		Sitemap:                    sh.sitemap,
	}, Site: sh.home, Modified: notAfter(shopSeen, now), Version: snap.Version}, nil
}

// Categories lists the categories holding at least one visible product.
func (c *Catalog) Categories(ctx context.Context) (*CategoryList, error) {
	snap, err := c.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	now := c.cfg.Now()
	_, shopSeen := c.lastSeen(now)
	list := &CategoryList{Items: snap.categories(), Modified: notAfter(shopSeen, now), Version: snap.Version}
	list.Categories = make([]api.Category, len(list.Items))
	for i, c := range list.Items {
		list.Categories[i] = c.Category
	}
	return list, nil
}

// categories counts the catalog-visible products of every category and its
// descendants, as the storefront's archive shows them (and as WooCommerce's
// product_count_product_cat meta would, were it not stale after the
// out-of-stock option changes).
func (s *Snapshot) categories() []Category {
	visible := s.visible()
	out := []Category{}
	for _, cat := range s.t.categories {
		n := visible.and(s.union(cat.subtree)).count()
		if n < 1 {
			continue
		}
		var parent *string
		if cat.parent != nil {
			p := cat.parent.Slug
			parent = &p
		}
		out = append(out, Category{Category: api.Category{Slug: cat.Slug, Name: cat.name, Count: n,
			URL: s.sh.categoryURL(cat.Slug, cat.path), Parent: parent}, ID: cat.TermID})
	}
	return out
}

// Products returns one page of the catalog-visible products. The query's
// problems (api.ParseListQuery's) are reported together with an unknown
// category, in the contract's order.
func (c *Catalog) Products(ctx context.Context, q api.ListQuery) (*ProductList, error) {
	if q.Page == 0 {
		q.Page = 1
	}
	if q.PerPage == 0 {
		q.PerPage = api.DefaultPerPage
	}
	problems := q.Check()
	if len(problems) > 0 && q.Category == "" {
		return nil, InvalidParams(problems) // nothing the shop could add
	}
	snap, err := c.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	sh, t := snap.sh, snap.t
	now := c.cfg.Now()
	set := snap.visible()
	var catID int64
	if q.Category != "" {
		cat, ok := t.catBySlug[q.Category]
		if !ok {
			problems["category"] = fmt.Sprintf("No product category has the slug %q.", q.Category)
		} else {
			set = set.and(snap.union(cat.subtree))
			catID = cat.TermID
		}
	}
	if len(problems) > 0 {
		return nil, InvalidParams(problems)
	}
	if q.Framework != "" {
		// No such term in this shop: the union of nothing, nothing matches.
		set = set.and(snap.union([]int64{t.fwBySlug[q.Framework]}))
	}
	total := set.count()
	pages := (total + q.PerPage - 1) / q.PerPage
	if q.Page > pages && q.Page > 1 {
		return nil, invalidPage(q, pages)
	}
	settingsSeen, shopSeen := c.lastSeen(now)
	list := &ProductList{ProductList: api.ProductList{Products: []api.Product{}, Page: q.Page, PerPage: q.PerPage,
		Total: total, TotalPages: pages}, CategoryID: catID, Modified: notAfter(shopSeen, now), Version: snap.Version}
	for _, pos := range set.page((q.Page-1)*q.PerPage, q.PerPage) {
		p := sh.product(snap.served[pos], false, now)
		p.Modified = notAfter(latest(p.Modified, settingsSeen), now)
		p.Version = snap.Version
		list.ExpiresAt = earliest(list.ExpiresAt, p.ExpiresAt)
		list.Modified = latest(list.Modified, p.Modified)
		list.Items = append(list.Items, p)
		list.Products = append(list.Products, p.Product)
	}
	return list, nil
}

// Product returns the published product with the slug, hidden from the
// catalog or not. The slug may be spelt as listed or decoded
// (CanonicalSlug).
func (c *Catalog) Product(ctx context.Context, slug string) (*Product, error) {
	canonical, ok := api.CanonicalSlug(slug)
	if !ok {
		return nil, InvalidParams(api.Problems{"slug": api.SlugProblem(slug)})
	}
	snap, err := c.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	it, ok := snap.bySlug(canonical)
	if !ok {
		return nil, c.notFound(snap, canonical)
	}
	now := c.cfg.Now()
	settingsSeen, _ := c.lastSeen(now)
	p := snap.sh.product(it, true, now)
	p.Modified = notAfter(latest(p.Modified, settingsSeen), now)
	p.Version = snap.Version
	return &p, nil
}

// InvalidParams is the error for a request whose parameters are wrong:
// problems has a message for every offending one; the code names the first
// of them in api.ParamOrder. An unknown category's hint links the
// categories.
func InvalidParams(problems api.Problems) *Error {
	first := problems.First()
	e := &Error{Kind: EINVALID, Reason: "invalid_" + first, Message: problems[first],
		Hint: api.ParamHints[first], Params: problems}
	if first == "category" {
		e.Hint, e.Link = "Use a slug from the categories endpoint:", "/catalog/categories"
	}
	return e
}

func invalidPage(q api.ListQuery, pages int) *Error {
	e := InvalidParams(api.Problems{"page": fmt.Sprintf("page %d is beyond the last page, %d.", q.Page, pages)})
	e.Hint = fmt.Sprintf("The last page is %d at per_page=%d; ask for page %d or lower.", pages, q.PerPage, pages)
	if pages == 0 {
		e.Hint = "Nothing matches these filters: page 1 answers with an empty list."
	}
	return e
}

// SiteURL is the origin every URL is built on: the configured site URL, or
// the shop's home option.
func (c *Catalog) SiteURL(ctx context.Context) (string, error) {
	snap, err := c.Snapshot(ctx)
	if err != nil {
		return "", err
	}
	return snap.sh.home, nil
}

// notFound is the 404 for a slug: when the slug is a translation's, the hint
// names the product's slug in the language served and its API URL.
func (c *Catalog) notFound(snap *Snapshot, slug string) error {
	sh := snap.sh
	e := &Error{Kind: ENOTFOUND, Reason: "product_not_found",
		Message: fmt.Sprintf("No published product has the slug %q.", slug),
		Hint:    "List the products to find the " + sh.label() + " slug:", Link: "/catalog/products"}
	if source, ok := snap.translationOf(slug); ok && source != slug {
		e.Message = fmt.Sprintf("%q is the slug of a translation; the API serves the %s catalog only.", slug, sh.label())
		e.Hint = fmt.Sprintf("The product's %s slug is %q:", sh.label(), source)
		e.Link = "/catalog/products/" + source
	}
	return e
}

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
	snap, err := c.Snapshot(ctx)
	if err != nil {
		return LanguageInfo{}, err
	}
	sh := snap.sh
	return LanguageInfo{Plugin: sh.plugin, Language: sh.language, Ignored: sh.ignored, Products: len(snap.served)}, nil
}

// Ready reports whether the catalog can be served: a snapshot is loaded, or
// loads now. A database that answers with every table is not enough: a
// plugin's damaged tables or a language the site lacks leave every endpoint
// failing.
func (c *Catalog) Ready(ctx context.Context) error {
	_, err := c.Snapshot(ctx)
	return err
}
