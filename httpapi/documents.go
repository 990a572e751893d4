package httpapi

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"catalogd/api"
)

// The companion documents the reverse proxy routes to catalogd: the RFC 9727
// API catalog and llms.txt. The OpenAPI document is in openapi.go.

// serveAPICatalog answers /.well-known/api-catalog with an RFC 9264 linkset
// whose anchor is the API's base URL; a HEAD gets the Link header RFC 9727
// describes, and so does a GET.
func (s *server) serveAPICatalog(w http.ResponseWriter, r *http.Request) error {
	// The documents' kind, as the OpenAPI document's (serveOpenAPI).
	describe(r, 0, time.Time{}, time.Time{}, []string{s.tags.kind("docs")})
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
	// The example product of the single-product operation: the catalog's
	// first, so that the link answers 200 (a literal {slug} answers 400).
	first, err := s.cat.Products(ctx, api.ListQuery{Page: 1, PerPage: 1})
	if err != nil {
		return err
	}
	// It shows the shop's name, counts and categories, and the example
	// product's name and slug: a change to any of them purges it.
	tags := []string{s.tags.kind("docs")}
	modified := cats.Modified
	if len(first.Items) > 0 {
		tags = append(tags, s.tags.product(first.Items[0].ID))
		if m := first.Items[0].Modified; m.After(modified) {
			modified = m
		}
	}
	describe(r, cats.Version, time.Time{}, modified, tags)
	// Everything the shop controls (names, descriptions, the home URL, slugs)
	// is escaped as Markdown text, and links only go to http(s) or
	// site-relative URLs: a category named "](javascript:alert(1)) [x"
	// stays text.
	apiURL := s.site + s.base
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdText(idx.Name))
	summary := "A shop of game-server scripts for FiveM"
	if idx.Description != "" {
		summary = idx.Description
	}
	fmt.Fprintf(&b, "> %s. %d products in %d categories, priced in %s. Its catalog is readable through a read-only JSON API.\n\n",
		mdText(strings.TrimSuffix(summary, ".")), idx.ProductCount, idx.CategoryCount, mdText(idx.Currency))
	b.WriteString("Every operation is an anonymous GET answering JSON; nothing needs a key. Prices are decimal strings in the " +
		"shop base currency. Slugs are those the product list shows, in the one language the API serves; another language's slug answers 404 with a hint naming the served one.\n\n")
	b.WriteString("## API\n\n")
	fmt.Fprintf(&b, "- %s: shop name, currency, counts and links to every operation\n", mdLink("Catalog index", apiURL+"/catalog"))
	fmt.Fprintf(&b, "- %s: categories with their product counts\n", mdLink("Categories", apiURL+"/catalog/categories"))
	fmt.Fprintf(&b, "- %s: the catalog, paged; `page` (from 1), `per_page` (1 to %d, default %d), "+
		"`category` (a category slug, descendants included), `framework` (%s); filters combine with AND\n",
		mdLink("Products", apiURL+"/catalog/products?per_page="+strconv.Itoa(api.MaxPerPage)), api.MaxPerPage,
		api.DefaultPerPage, orList(api.Frameworks))
	// The operation as a URI template, in a code span (not a link: the
	// literal braces are no product), and a real product as its example.
	one := "One product"
	if u, ok := mdURL(apiURL + "/catalog/products/"); ok {
		one += " (URI template `" + u + "{slug}`)"
	}
	if len(first.Products) > 0 {
		p := first.Products[0]
		slug, ok := api.CanonicalSlug(p.Slug) // the stored form, escapes and all
		if !ok {
			slug = url.PathEscape(p.Slug)
		}
		one += ", e.g. " + mdLink(p.Name, apiURL+"/catalog/products/"+slug)
	}
	fmt.Fprintf(&b, "- %s: one product by its slug as listed, with its full description\n", one)
	fmt.Fprintf(&b, "- %s: the machine-readable contract\n", mdLink("OpenAPI description", s.site+"/openapi.json"))
	fmt.Fprintf(&b, "\nLimits: per_page is at most %d (more is rejected, not clamped); a page beyond total_pages is an error naming the last page. "+
		"Ask about one request per second and prefer a larger per_page over more pages; the RateLimit-* headers on every response show the window. "+
		"Errors are JSON with a stable `code`, a `message` and usually a `data.hint` saying what to do instead.\n\n",
		api.MaxPerPage)
	writeFinding(&b, apiURL+"/catalog/products", idx.Currency)
	b.WriteString("## Categories\n\n")
	for _, c := range cats.Categories {
		noun := "products"
		if c.Count == 1 {
			noun = "product"
		}
		fmt.Fprintf(&b, "- %s: %d %s", mdLink(c.Name, c.URL), c.Count, noun)
		if filter, ok := mdURL(apiURL + "/catalog/products?category=" + api.SlugQueryValue(c.Slug)); ok {
			fmt.Fprintf(&b, "; filter with `%s`", filter)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n## Frameworks\n\n")
	fmt.Fprintf(&b, "- %s: filter with `framework=`; a product's `frameworks` lists what it declares "+
		"(an empty list means none declared, not standalone)\n", strings.Join(api.Frameworks, ", "))
	b.WriteString("\n## Optional\n\n")
	if idx.Sitemap != "" { // none when the shop serves none
		fmt.Fprintf(&b, "- %s: the shop's indexable pages\n", mdLink("Sitemap", idx.Sitemap))
	}
	fmt.Fprintf(&b, "- %s: RFC 9727 links to the API's descriptions\n", mdLink("API catalog", s.site+"/.well-known/api-catalog"))
	if s.developers != "" {
		fmt.Fprintf(&b, "- %s: the developer page\n", mdLink("Developers", s.developers))
	}
	h := w.Header()
	h.Set("Content-Type", mime.FormatMediaType("text/markdown", map[string]string{"charset": "utf-8"}))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err = w.Write([]byte(b.String()))
	return err
}

// orList joins items as a sentence lists them: "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// mdEscaper backslash-escapes the ASCII punctuation that gives Markdown
// meaning to text (CommonMark lets any of it be escaped) and folds line
// breaks, which could open a block (a heading, a list item) of their own.
var mdEscaper = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"(", `\(`, ")", `\)`, "<", `\<`, ">", `\>`, "#", `\#`, "!", `\!`, "|", `\|`, "~", `\~`, "&", `\&`)

// mdText is shop-controlled text made inert in Markdown.
func mdText(s string) string {
	return mdEscaper.Replace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s))
}

// mdURL returns raw as a Markdown link destination: only an absolute http
// or https URL, or a site-relative path (the links when no site URL is
// known), never javascript:, data: or a scheme-relative //host; with
// spaces, control and non-ASCII bytes, parentheses, angle brackets,
// backslashes and backticks percent-encoded, so that it can close neither
// the link nor a code span.
func mdURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	switch scheme := strings.ToLower(u.Scheme); {
	case (scheme == "http" || scheme == "https") && u.Host != "":
	case scheme == "" && u.Host == "" && strings.HasPrefix(raw, "/") && !strings.HasPrefix(raw, "//"):
	default:
		return "", false
	}
	s := u.String()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || strings.IndexByte("()<>\\`\"", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// mdLink is a Markdown link with escaped text, or the text alone when the
// URL is not one to follow.
func mdLink(text, href string) string {
	if u, ok := mdURL(href); ok {
		return "[" + mdText(text) + "](" + u + ")"
	}
	return mdText(text)
}

// writeFinding tells how to find products: the list's search, sort and
// filters, which the products operation takes beside its paging.
func writeFinding(b *strings.Builder, list, currency string) {
	b.WriteString("## Finding products\n\n")
	b.WriteString("The products operation finds products as the shop's own search box, sort menu and filters do; " +
		"each parameter is optional and they combine with each other and with the ones above.\n\n")
	fmt.Fprintf(b, "- `search`: words, \"quoted phrases\" and -excluded words, each found in the name, short description or "+
		"description, case- and accent-insensitive, as WordPress's search finds them; at most %d characters; empty is no filter\n",
		api.MaxSearchLength)
	fmt.Fprintf(b, "- `orderby`: %s (id is the default; relevance only with a search); `order`: asc or desc "+
		"(date defaults to newest first, relevance, popularity and rating are descending only)\n", orList(api.OrderBys))
	fmt.Fprintf(b, "- `min_price`, `max_price`: plain decimals in %s like 9.99; a product matches when its price range overlaps them\n",
		mdText(currency))
	b.WriteString("- `in_stock`, `on_sale`: true or false\n")
	b.WriteString("- `facets=true`: adds counts per category, framework, stock and sale, and the price range, over every page of the result\n")
	if u, ok := mdURL(list + "?search=radar&orderby=price&order=desc&in_stock=true&facets=true"); ok {
		fmt.Fprintf(b, "\nFor example `%s`.\n", u)
	}
	b.WriteString("\n")
}
