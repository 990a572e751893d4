package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
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
	all := fs.Bool("all", false, fmt.Sprintf("every product: follows the list's next links, %d a page, minding the rate limit", api.MaxPerPage))
	asJSON := fs.Bool("json", false, "print the API's JSON; with --all one object with all products and the total")
	pos, err := c.parseCommand(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("products", "products takes no arguments, got %q (filters are options: --category, --framework)", pos)
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
	}{{"page", "page", page}, {"per_page", "per-page", perPage}, {"category", "category", category}, {"framework", "framework", framework}} {
		if isSet(fs, o.flag) {
			q.Set(o.param, *o.value)
			flagOf[o.param] = "--" + o.flag
		}
	}
	if _, problems := api.ParseListQuery(q); len(problems) > 0 {
		return usagef("products", "%s", describeParams(problems, flagOf))
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
			_, err := fmt.Fprintln(w, countLine(res.total))
			return err
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
		_, err := fmt.Fprintln(w, pagingLine(&pg.list))
		return err
	})
}

// describeParams words the API's parameter problems in terms of the flags.
func describeParams(problems api.Problems, flagOf map[string]string) string {
	var msgs []string
	for _, p := range []string{"page", "per_page", "category", "framework"} {
		msg, ok := problems[p]
		if !ok {
			continue
		}
		name := flagOf[p]
		if name == "" {
			name = p
		}
		if rest, ok := strings.CutPrefix(msg, p+" "); ok {
			msg = name + " " + rest
		} else {
			msg = name + ": " + msg
		}
		msgs = append(msgs, strings.TrimSuffix(msg, "."))
	}
	return strings.Join(msgs, "; ")
}
