package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"catalogd/api"
)

// productsCmd lists products: one page, or every page with --all.
func (c *cli) productsCmd(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet("products")
	framework := fs.String("framework", "", "only products for framework `F`, one of "+strings.Join(api.Frameworks, ", "))
	category := fs.String("category", "", "only products in category `C` (a slug) or its subcategories")
	perPage := fs.String("per-page", "", fmt.Sprintf("`N` products per page, 1 to %d (the API's default is %d)", api.MaxPerPage, api.DefaultPerPage))
	page := fs.String("page", "", "show page `N`, from 1")
	search := fs.String("search", "", "only products the shop's search finds for `TEXT`: words, \"phrases\", -excluded")
	sort := fs.String("sort", "", "order by `BY[:ORDER]`: BY one of "+strings.Join(api.OrderBys, ", ")+
		" (relevance needs --search); ORDER asc or desc (default: desc for date, relevance, popularity and rating)")
	minPrice := fs.String("min-price", "", "only products whose price range reaches `P`, a decimal like 9.99")
	maxPrice := fs.String("max-price", "", "only products whose price range starts at or below `P`")
	inStock := fs.Bool("in-stock", false, "only products in stock; --in-stock=false: only those out of stock")
	onSale := fs.Bool("on-sale", false, "only products on sale; --on-sale=false: only those not on sale")
	facets := fs.Bool("facets", false, "also show the counts per category, framework, stock and sale, and the price range")
	all := fs.Bool("all", false, fmt.Sprintf("every product: follows the list's next links, %d a page, minding the rate limit", api.MaxPerPage))
	asJSON := fs.Bool("json", false, "print the API's JSON; with --all one object with all products and the total")
	pos, err := c.parseCommand(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		if isSet(fs, "search") {
			return usagef("products", "products takes no arguments, got %q (quote a search of several words: --search %q)",
				pos, strings.Join(append([]string{*search}, pos...), " "))
		}
		return usagef("products", "products takes no arguments, got %q (filters are options: --search, --category, --framework)", pos)
	}
	if *all && (isSet(fs, "page") || isSet(fs, "per-page")) {
		return usagef("products", "--all reads every page %d at a time; leave out --page and --per-page", api.MaxPerPage)
	}
	// The API's own parser checks the values, so that catalogctl rejects
	// exactly what the server would, before sending anything.
	// Only the options given are sent: the server's defaults stay the
	// server's.
	q := url.Values{}
	flagOf := map[string]string{}
	for _, o := range []struct {
		param, flag string
		value       *string
	}{{"page", "page", page}, {"per_page", "per-page", perPage}, {"category", "category", category},
		{"framework", "framework", framework}, {"search", "search", search},
		{"min_price", "min-price", minPrice}, {"max_price", "max-price", maxPrice}} {
		if isSet(fs, o.flag) {
			q.Set(o.param, *o.value)
			flagOf[o.param] = "--" + o.flag
		}
	}
	for _, o := range []struct {
		param, flag string
		value       *bool
	}{{"in_stock", "in-stock", inStock}, {"on_sale", "on-sale", onSale}, {"facets", "facets", facets}} {
		if isSet(fs, o.flag) {
			q.Set(o.param, strconv.FormatBool(*o.value))
			flagOf[o.param] = "--" + o.flag
		}
	}
	if isSet(fs, "sort") {
		if err := setSort(q, *sort); err != nil {
			return err
		}
		flagOf["orderby"], flagOf["order"] = "--sort", "--sort"
	}
	if _, problems := api.ParseListQuery(q); len(problems) > 0 {
		return usagef("products", "%s", describeParams(problems, flagOf, q))
	}
	cl, err := c.client(g)
	if err != nil {
		return err
	}
	if *all {
		var progress func(page, pages int)
		if c.status != nil {
			progress = func(page, pages int) { c.status.show(fmt.Sprintf("catalogctl: page %d/%d…", page, pages)) }
		}
		res, err := cl.allProducts(ctx, q, progress)
		if c.status != nil {
			c.status.clear() // before the table, on the same terminal
		}
		if err != nil {
			return err
		}
		if len(res.products) != res.total {
			fmt.Fprintf(c.stderr, "catalogctl: warning: the catalog changed while paging: %d products read, total now %d\n",
				len(res.products), res.total)
		}
		return c.output(func(w io.Writer) error {
			if *asJSON {
				return writeAllJSON(w, res)
			}
			if err := renderTable(w, res.products); err != nil {
				return err
			}
			if _, err := fmt.Fprintln(w, countLine(res.total)); err != nil {
				return err
			}
			return renderFacets(w, res.facets, currencyOf(res.products))
		})
	}
	pg, err := cl.products(ctx, q)
	if err != nil {
		return err
	}
	return c.print(*asJSON, pg.response, func(w io.Writer) error {
		if err := renderTable(w, pg.list.Products); err != nil {
			return err
		}
		if _, err := fmt.Fprintln(w, pagingLine(&pg.list)); err != nil {
			return err
		}
		return renderFacets(w, pg.list.Facets, currencyOf(pg.list.Products))
	})
}

// setSort sets orderby, and order when given, from --sort's BY[:ORDER].
// BY is left to the API's rule; ORDER is checked here, where its own
// message can name the form --sort takes.
func setSort(q url.Values, sort string) error {
	by, order, hasOrder := strings.Cut(sort, ":")
	q.Set("orderby", by)
	if hasOrder {
		if !slices.Contains(api.Orders, order) {
			return usagef("products", "--sort %q: want BY, BY:asc or BY:desc", sort)
		}
		q.Set("order", order)
	}
	return nil
}

// describeParams words the API's parameter problems in terms of the flags
// of the checked query q.
func describeParams(problems api.Problems, flagOf map[string]string, q url.Values) string {
	var msgs []string
	for _, p := range api.ParamOrder {
		msg, ok := problems[p]
		if !ok {
			continue
		}
		name := flagOf[p]
		if name == "" {
			name = p
		}
		rest, prefixed := strings.CutPrefix(msg, p+" ")
		switch by := q.Get("orderby"); {
		case p == "orderby" && slices.Contains(api.OrderBys, by):
			// A valid orderby is a problem by the one rule that joins it
			// to the search.
			msg = "--sort relevance needs a non-empty --search"
		case p == "order":
			// --sort's ORDER is asc or desc (setSort): the rule left is
			// that of the orders that are descending only.
			msg = "--sort " + by + " sorts in descending order only: leave out :asc"
		case prefixed:
			msg = name + " " + rest
		default:
			msg = name + ": " + msg
		}
		for _, bound := range []string{"min_price", "max_price"} {
			if f := flagOf[bound]; f != "" {
				msg = strings.ReplaceAll(msg, bound, f)
			}
		}
		msgs = append(msgs, strings.TrimSuffix(msg, "."))
	}
	return strings.Join(msgs, "; ")
}
