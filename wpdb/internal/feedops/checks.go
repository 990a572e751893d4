package feedops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"catalogd/api"
	"catalogd/catalog"
)

// The checks of the operations: what a visitor sees, through the
// catalog's public API.

func product(slug string, f func(*catalog.Product) error) func(context.Context, *catalog.Catalog, *opsShop) error {
	return func(ctx context.Context, cat *catalog.Catalog, _ *opsShop) error {
		p, err := cat.Product(ctx, slug)
		if err != nil {
			return err
		}
		return f(p)
	}
}

func price(slug, wantPrice string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return product(slug, func(p *catalog.Product) error { return want("price", str(p.Price), wantPrice) })
}

func regularPrice(slug, wantPrice string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return product(slug, func(p *catalog.Product) error { return want("regular_price", str(p.RegularPrice), wantPrice) })
}

// priceRange: "min–max", "" for none.
func priceRange(slug, wantRange string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return product(slug, func(p *catalog.Product) error {
		got := ""
		if r := p.PriceRange; r != nil {
			got = r.Min + "–" + r.Max
		}
		return want("price_range", got, wantRange)
	})
}

func sku(slug, wantSKU string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return product(slug, func(p *catalog.Product) error { return want("sku", str(p.SKU), wantSKU) })
}

func tags(slug string, wantTags ...string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return product(slug, func(p *catalog.Product) error {
		if p.Tags == nil || !slices.Equal(*p.Tags, wantTags) {
			return fmt.Errorf("tags %v, want %v", p.Tags, wantTags)
		}
		return nil
	})
}

// attributes checks the single product's attributes as the page's table
// reads: "Label: a, b; …".
func attributes(slug, wantText string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return product(slug, func(p *catalog.Product) error {
		if p.Attributes == nil {
			return fmt.Errorf("no attributes, want %s", wantText)
		}
		var rows []string
		for _, a := range *p.Attributes {
			var names []string
			for _, v := range a.Values {
				names = append(names, v.Name)
			}
			rows = append(rows, a.Label+": "+strings.Join(names, ", "))
		}
		return want("attributes", strings.Join(rows, "; "), wantText)
	})
}

// both holds when each check does.
func both(a, b func(context.Context, *catalog.Catalog, *opsShop) error) func(context.Context, *catalog.Catalog, *opsShop) error {
	return func(ctx context.Context, cat *catalog.Catalog, s *opsShop) error {
		return errors.Join(a(ctx, cat, s), b(ctx, cat, s))
	}
}

func inStock(slug string, in bool) func(context.Context, *catalog.Catalog, *opsShop) error {
	return product(slug, func(p *catalog.Product) error { return want("in_stock", fmt.Sprint(p.InStock), fmt.Sprint(in)) })
}

func image(slug, suffix string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return product(slug, func(p *catalog.Product) error {
		if p.Image == nil || !strings.HasSuffix(*p.Image, suffix) {
			return fmt.Errorf("image %s, want …%s", str(p.Image), suffix)
		}
		return nil
	})
}

func summary(slug, text string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return product(slug, func(p *catalog.Product) error {
		if !strings.Contains(p.Summary, text) {
			return fmt.Errorf("summary %q, want %q in it", p.Summary, text)
		}
		return nil
	})
}

// gone: the product is served neither alone nor in the list.
func gone(slug string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return func(ctx context.Context, cat *catalog.Catalog, _ *opsShop) error {
		_, err := cat.Product(ctx, slug)
		var ce *catalog.Error
		if !errors.As(err, &ce) || ce.Kind != catalog.ENOTFOUND {
			return fmt.Errorf("Product(%q): %v, want not found", slug, err)
		}
		return unlisted(slug)(ctx, cat, nil)
	}
}

// listed: the product is served, and in the list (of the category, if any).
func listed(slug, category string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return func(ctx context.Context, cat *catalog.Catalog, s *opsShop) error {
		if _, err := cat.Product(ctx, slug); err != nil {
			return err
		}
		return listedIn(slug, api.ListQuery{Category: category})(ctx, cat, s)
	}
}

func listedIn(slug string, q api.ListQuery) func(context.Context, *catalog.Catalog, *opsShop) error {
	return func(ctx context.Context, cat *catalog.Catalog, _ *opsShop) error {
		slugs, err := list(ctx, cat, q)
		if err != nil {
			return err
		}
		if !slices.Contains(slugs, slug) {
			return fmt.Errorf("%q not in the list %+v: %v", slug, q, slugs)
		}
		return nil
	}
}

func unlisted(slug string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return func(ctx context.Context, cat *catalog.Catalog, _ *opsShop) error {
		slugs, err := list(ctx, cat, api.ListQuery{})
		if err != nil {
			return err
		}
		if slices.Contains(slugs, slug) {
			return fmt.Errorf("%q still listed", slug)
		}
		return nil
	}
}

func list(ctx context.Context, cat *catalog.Catalog, q api.ListQuery) ([]string, error) {
	q.PerPage = api.MaxPerPage
	var out []string
	for q.Page = 1; ; q.Page++ {
		l, err := cat.Products(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, p := range l.Products {
			out = append(out, p.Slug)
		}
		if q.Page >= l.TotalPages {
			return out, nil
		}
	}
}

func category(slug string, f func(api.Category) error) func(context.Context, *catalog.Catalog, *opsShop) error {
	return func(ctx context.Context, cat *catalog.Catalog, _ *opsShop) error {
		l, err := cat.Categories(ctx)
		if err != nil {
			return err
		}
		for _, c := range l.Categories {
			if c.Slug == slug {
				return f(c)
			}
		}
		return fmt.Errorf("no category %q", slug)
	}
}

func categoryBefore(first, second string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return func(ctx context.Context, cat *catalog.Catalog, _ *opsShop) error {
		l, err := cat.Categories(ctx)
		if err != nil {
			return err
		}
		var order []string
		for _, c := range l.Categories {
			order = append(order, c.Slug)
		}
		i, j := slices.Index(order, first), slices.Index(order, second)
		if i < 0 || j < 0 || i > j {
			return fmt.Errorf("categories in the order %v, want %s before %s", order, first, second)
		}
		return nil
	}
}

func started(ids []int64, err error) error {
	if err == nil && len(ids) == 0 {
		return errors.New("no product was due")
	}
	return err
}

func want(what, got, wanted string) error {
	if got != wanted {
		return fmt.Errorf("%s %q, want %q", what, got, wanted)
	}
	return nil
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}
