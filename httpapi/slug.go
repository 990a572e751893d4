package httpapi

import (
	"net/http"
	"net/url"
	"strings"

	"catalogd/catalog"
)

// canonicalSlugs rewrites the spellings of a slug the API accepts (as
// listed, decoded to UTF-8 by the client or by net/http, with uppercase hex
// digits) in the single-product path and the category parameter to the
// stored form, catalog.CanonicalSlug, before the response cache: they then
// share one cache entry, and the handlers see one form. net/http has
// already decoded the path once, so "/products/%d1%81" arrives as UTF-8 and
// "/products/%25d1%2581" as "%d1%81"; both become "%d1%81". What
// CanonicalSlug rejects passes untouched and is answered 400 by the
// handlers.
func canonicalSlugs(productsPrefix string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, query := r.URL.Path, r.URL.RawQuery
		if slug, ok := strings.CutPrefix(path, productsPrefix); ok && !strings.Contains(slug, "/") {
			if c, ok := catalog.CanonicalSlug(slug); ok && c != slug {
				path = productsPrefix + c
			}
		}
		if strings.Contains(query, "category=") {
			query = canonicalCategory(query)
		}
		if path != r.URL.Path || query != r.URL.RawQuery {
			r = r.WithContext(r.Context()) // a shallow copy; the URL is copied below
			u := *r.URL
			// Routing reads Path (gorilla/mux without UseEncodedPath); an
			// empty RawPath keeps EscapedPath consistent with it.
			u.Path, u.RawPath, u.RawQuery = path, "", query
			r.URL = &u
		}
		next.ServeHTTP(w, r)
	})
}

// canonicalCategory returns the raw query with each category value that
// is a spelling of a slug replaced by the escaped stored form; a query
// whose category values are plain English slugs is returned as it is,
// without allocating.
func canonicalCategory(raw string) string {
	plain := true
	for rest := raw; rest != "" && plain; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		if v, ok := strings.CutPrefix(pair, "category="); ok {
			plain = strings.Trim(v, "abcdefghijklmnopqrstuvwxyz0123456789-") == ""
		}
	}
	if plain {
		return raw
	}
	pairs := strings.Split(raw, "&")
	for i, pair := range pairs {
		v, ok := strings.CutPrefix(pair, "category=")
		if !ok {
			continue
		}
		if dec, err := url.QueryUnescape(v); err == nil {
			if c, ok := catalog.CanonicalSlug(dec); ok {
				pairs[i] = "category=" + url.QueryEscape(c)
			}
		}
	}
	return strings.Join(pairs, "&")
}
