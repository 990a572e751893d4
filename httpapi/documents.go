package httpapi

import (
	"fmt"
	"mime"
	"net/http"
	"strings"
)

// The companion documents the reverse proxy routes to catalogd: the RFC 9727
// API catalog and llms.txt. The OpenAPI document is in openapi.go.

// serveAPICatalog answers /.well-known/api-catalog with an RFC 9264 linkset
// whose anchor is the API's base URL; a HEAD gets the Link header RFC 9727
// describes, and so does a GET.
func (s *server) serveAPICatalog(w http.ResponseWriter, r *http.Request) error {
	w.Header().Add("Link", "<"+s.site+"/.well-known/api-catalog>; rel=\"api-catalog\"")
	desc := []link{{Href: s.site + "/openapi.json", Type: "application/openapi+json"},
		{Href: s.site + "/.well-known/openapi.json", Type: "application/openapi+json"}}
	entry := map[string]any{"anchor": s.site + s.base, "service-desc": desc}
	if s.developers != "" {
		entry["service-doc"] = []link{{Href: s.developers, Type: "text/html"}}
	}
	entry["service-meta"] = []link{{Href: s.site + "/llms.txt", Type: "text/markdown"}}
	return s.writeBody(w, r, "application/linkset+json", map[string]any{"linkset": []any{entry}})
}

type link struct {
	Href string `json:"href"`
	Type string `json:"type,omitempty"`
}

// serveLLMsTxt writes /llms.txt in the llmstxt.org shape, from the live
// catalog: what the shop is, how to use the API, its categories and
// frameworks, and where the machine-readable documents are.
func (s *server) serveLLMsTxt(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	idx, err := s.cat.Index(ctx)
	if err != nil {
		return err
	}
	cats, err := s.cat.Categories(ctx)
	if err != nil {
		return err
	}
	api := s.site + s.base
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", idx.Name)
	summary := "A shop of game-server scripts for FiveM"
	if idx.Description != "" {
		summary = idx.Description
	}
	fmt.Fprintf(&b, "> %s. %d products in %d categories, priced in %s. Its catalog is readable through a read-only JSON API.\n\n",
		strings.TrimSuffix(summary, "."), idx.ProductCount, idx.CategoryCount, idx.Currency)
	b.WriteString("Every operation is an anonymous GET answering JSON; nothing needs a key. Prices are decimal strings in the " +
		"shop base currency. Only English slugs are served; translated sites (/de/, /fr/, …) use other slugs the API does not know.\n\n")
	b.WriteString("## API\n\n")
	fmt.Fprintf(&b, "- [Catalog index](%s/catalog): shop name, currency, counts and links to every operation\n", api)
	fmt.Fprintf(&b, "- [Categories](%s/catalog/categories): categories with their product counts\n", api)
	fmt.Fprintf(&b, "- [Products](%s/catalog/products?per_page=50): the catalog, paged; `page` (from 1), `per_page` (1 to 50, default 20), "+
		"`category` (a category slug, descendants included), `framework` (esx, qbcore, qbox or standalone); filters combine with AND\n", api)
	fmt.Fprintf(&b, "- [One product](%s/catalog/products/{slug}): one product by its English slug, with its full description\n", api)
	fmt.Fprintf(&b, "- [OpenAPI description](%s/openapi.json): the machine-readable contract\n", s.site)
	b.WriteString("\nLimits: per_page is at most 50 (more is rejected, not clamped); a page beyond total_pages is an error naming the last page. " +
		"Ask about one request per second and prefer a larger per_page over more pages; the RateLimit-* headers on every response show the window. " +
		"Errors are JSON with a stable `code`, a `message` and usually a `data.hint` saying what to do instead.\n\n")
	b.WriteString("## Categories\n\n")
	for _, c := range cats.Categories {
		noun := "products"
		if c.Count == 1 {
			noun = "product"
		}
		fmt.Fprintf(&b, "- [%s](%s): %d %s; filter with `%s/catalog/products?category=%s`\n", c.Name, c.URL, c.Count, noun, api, c.Slug)
	}
	b.WriteString("\n## Frameworks\n\n")
	b.WriteString("- esx, qbcore, qbox, standalone: filter with `framework=`; a product's `frameworks` lists what it declares " +
		"(an empty list means none declared, not standalone)\n")
	b.WriteString("\n## Optional\n\n")
	fmt.Fprintf(&b, "- [Sitemap](%s): the shop's indexable pages\n", idx.Sitemap)
	fmt.Fprintf(&b, "- [API catalog](%s/.well-known/api-catalog): RFC 9727 links to the API's descriptions\n", s.site)
	if s.developers != "" {
		fmt.Fprintf(&b, "- [Developers](%s): the developer page\n", s.developers)
	}
	h := w.Header()
	h.Set("Content-Type", mime.FormatMediaType("text/markdown", map[string]string{"charset": "utf-8"}))
	h.Set("Cache-Control", "public, max-age=600")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err = w.Write([]byte(b.String()))
	return err
}
