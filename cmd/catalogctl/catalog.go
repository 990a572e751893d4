package main

import (
	"context"
	"io"
)

// catalogCmd shows the catalog index.
func (c *cli) catalogCmd(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet("catalog")
	asJSON := fs.Bool("json", false, "print the API's JSON instead of text")
	pos, err := c.parseCommand(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("catalog", "catalog takes no arguments, got %q", pos)
	}
	cl, err := c.client(g)
	if err != nil {
		return err
	}
	idx, resp, err := cl.index(ctx)
	if err != nil {
		return err
	}
	return c.print(*asJSON, resp, func(w io.Writer) error { return renderIndex(w, idx) })
}
