package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

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
	rows := [][4]string{{"SLUG", "NAME", "PRODUCTS", "PARENT"}}
	for _, c := range cats {
		parent := "-"
		if c.Parent != nil {
			parent = oneLine(*c.Parent)
		}
		rows = append(rows, [4]string{oneLine(c.Slug), oneLine(c.Name), strconv.Itoa(c.Count), parent})
	}
	var widths [4]int
	for _, r := range rows {
		for i, cell := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	if total := widths[0] + widths[1] + widths[2] + widths[3] + 3*len(gap); total > width {
		widths[1] = max(widths[1]-(total-width), 4)
	}
	var b strings.Builder
	for _, r := range rows {
		var l strings.Builder
		for i, cell := range r {
			if i > 0 {
				l.WriteString(gap)
			}
			if i == 2 && cell != "PRODUCTS" {
				fmt.Fprintf(&l, "%*s", widths[i], cell) // counts align right
				continue
			}
			l.WriteString(pad(fit(cell, widths[i]), widths[i]))
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
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
