package catalog

import (
	"context"
	"fmt"
	"slices"

	"catalogd/api"
)

// The Service's operations: each computes its resource from the
// current snapshot and the clock, and runs no statement.

// Index describes the catalog.
func (c *Catalog) Index(ctx context.Context) (*Index, error) {
	snap, err := c.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	sh := snap.sh
	visible := snap.agg.visibleCount
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
	}, Site: sh.home, Modified: notAfter(shopSeen, now), Version: snap.Version, Digest: snap.Digest()}, nil
}

// Categories lists the categories holding at least one visible product.
func (c *Catalog) Categories(ctx context.Context) (*CategoryList, error) {
	snap, err := c.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	now := c.cfg.Now()
	_, shopSeen := c.lastSeen(now)
	// The lists are the snapshot's, shared by every request and read
	// only (CategoryList); capped, so that an append copies them.
	agg := snap.agg
	list := &CategoryList{CategoryList: api.CategoryList{Categories: slices.Clip(agg.wire)},
		Items: slices.Clip(agg.categories), Modified: notAfter(shopSeen, now), Version: snap.Version}
	return list, nil
}

// categories are the categories holding a catalog-visible product, with
// their counts, computed with the snapshot (aggregates); shared read-only.
func (s *Snapshot) categories() []Category { return s.agg.categories }

// Products returns one page of the catalog-visible products, or of those
// a finding request (find.go) selects, in its order. The query is
// trusted as api.ParseListQuery made it; the problems that parse found are
// reported together with an unknown category, in the contract's order.
func (c *Catalog) Products(ctx context.Context, q api.ListQuery) (*ProductList, error) {
	pageNo, perPage := q.Paging()
	problems := q.Problems()
	if len(problems) > 0 && q.Category == "" {
		return nil, InvalidParams(problems) // nothing the shop could add
	}
	snap, err := c.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	sh, t := snap.sh, snap.t
	now := c.cfg.Now()
	var catID int64
	var cat, fw []bitset
	if q.Category != "" {
		ct, ok := t.catBySlug[q.Category]
		if !ok {
			problems["category"] = fmt.Sprintf("No product category has the slug %q.", q.Category)
		} else {
			cat, catID = snap.memberSets(ct.subtree), ct.TermID
		}
	}
	if len(problems) > 0 {
		return nil, InvalidParams(problems)
	}
	if q.Framework != "" {
		// No such term in this shop: the union of nothing, nothing matches.
		fw = snap.memberSets([]int64{t.fwBySlug[q.Framework]})
	}
	var found *finding
	var total int
	var set selection
	if _, desc := q.Sort(); isFinding(q) || desc {
		found = snap.finding(q, cat, fw, now)
		defer found.release()
		total = found.total
	} else {
		set = selection{base: snap.visible()}
		if cat != nil {
			set.where(cat)
		}
		if fw != nil {
			set.where(fw)
		}
		total = set.count()
	}
	pages := (total + perPage - 1) / perPage
	if pageNo > pages && pageNo > 1 {
		return nil, invalidPage(pageNo, perPage, pages)
	}
	settingsSeen, shopSeen := c.lastSeen(now)
	list := &ProductList{ProductList: api.ProductList{Products: []api.Product{}, Page: pageNo, PerPage: perPage,
		Total: total, TotalPages: pages}, CategoryID: catID, Modified: notAfter(shopSeen, now), Version: snap.Version,
		Finding: isFinding(q)}
	var page []int
	if found != nil {
		page = found.page((pageNo-1)*perPage, perPage)
		if q.Facets {
			list.Facets = found.facets()
		}
		if found.sale != nil {
			// The selection or the counts move as a sale starts or ends.
			list.ExpiresAt = found.sale.until
			list.Modified = latest(list.Modified, notAfter(found.sale.from, now))
		}
	} else {
		page = set.page((pageNo-1)*perPage, perPage)
	}
	// Sized once: grown by append, a page left as much again in garbage.
	list.Items = make([]Listed, 0, len(page))
	list.Products = make([]api.Product, 0, len(page))
	for _, pos := range page {
		it := snap.served[pos]
		p := sh.product(it, false, now)
		p.Modified = notAfter(latest(latest(p.Modified, settingsSeen), c.productSeen(it.id)), now)
		p.Version = snap.Version
		list.ExpiresAt = earliest(list.ExpiresAt, p.ExpiresAt)
		list.Modified = latest(list.Modified, p.Modified)
		list.Items = append(list.Items, Listed{ID: p.ID, Modified: p.Modified})
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
	p := snap.single(it, now)
	p.Modified = notAfter(latest(latest(p.Modified, settingsSeen), c.productSeen(it.id)), now)
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

func invalidPage(page, perPage, pages int) *Error {
	e := InvalidParams(api.Problems{"page": fmt.Sprintf("page %d is beyond the last page, %d.", page, pages)})
	e.Hint = fmt.Sprintf("The last page is %d at per_page=%d; ask for page %d or lower.", pages, perPage, pages)
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
