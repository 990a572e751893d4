package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"catalogd/api"
)

// categoriesCmd lists the categories, whose slugs products --category
// takes.
func (c *cli) categoriesCmd(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet("categories")
	asJSON := fs.Bool("json", false, "print the API's JSON instead of text")
	pos, err := c.parseCommand(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("categories", "categories takes no arguments, got %q", pos)
	}
	cl, err := c.client(g)
	if err != nil {
		return err
	}
	list, resp, err := cl.categories(ctx)
	if err != nil {
		return err
	}
	return c.print(*asJSON, resp, func(w io.Writer) error { return renderCategories(w, list.Categories) })
}

// renderCategories prints the categories as a table, in the API's order:
// slug (what --category takes), name, the products it holds (its
// subcategories' included, as the API counts them) and its parent's slug.
// The name column gives way when the table would pass width columns.
func renderCategories(w io.Writer, cats []api.Category) error {
	cols := columns("SLUG", "NAME", "PRODUCTS", "PARENT")
	cols[2].right = true
	for _, c := range cats {
		parent := "-"
		if c.Parent != nil {
			parent = oneLine(*c.Parent)
		}
		addRow(cols, oneLine(c.Slug), oneLine(c.Name), strconv.Itoa(c.Count), parent)
	}
	var b strings.Builder
	writeTable(&b, cols, []shrink{{1, 4}}) // the name alone gives way
	switch len(cats) {
	case 0:
		b.WriteString("no categories\n")
	case 1:
		b.WriteString("1 category\n")
	default:
		fmt.Fprintf(&b, "%d categories\n", len(cats))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
