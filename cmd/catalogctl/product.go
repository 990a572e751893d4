package main

import (
	"context"
	"io"

	"catalogd/api"
)

// productCmd shows one product by its slug.
func (c *cli) productCmd(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet("product")
	asJSON := fs.Bool("json", false, "print the API's JSON instead of text")
	pos, err := c.parseCommand(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return usagef("product", "product needs a slug, e.g. catalogctl product dispatch-system")
	case len(pos) > 1:
		return usagef("product", "product takes one slug, got %d arguments: %q", len(pos), pos)
	}
	// The server's own rule: the slug as the list shows it (other
	// characters percent-encoded) or decoded to UTF-8; one spelling is sent.
	slug, ok := api.CanonicalSlug(pos[0])
	if !ok {
		return usagef("product", "%q is not a product slug: use the slug as the product list shows it, lowercase letters, digits, underscores, hyphens and percent-encoded characters (at most %d), or decoded to UTF-8",
			pos[0], api.MaxSlugLength)
	}
	cl, err := c.client(g)
	if err != nil {
		return err
	}
	p, resp, err := cl.product(ctx, slug)
	if err != nil {
		return err
	}
	return c.print(*asJSON, resp, func(w io.Writer) error { return renderProduct(w, p) })
}
