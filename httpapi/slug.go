package httpapi

import (
	"net/http"
	"strings"

	"catalogd/api"
)

// canonicalSlugs rewrites the spellings of a product slug the API accepts
// (as listed, decoded to UTF-8 by the client or by net/http, with
// uppercase hex digits) in the single-product path to the stored form,
// api.CanonicalSlug, before the response cache, whose key there is the
// path: every spelling then shares one cache entry. (The category
// parameter needs no rewrite: the cache key and the handler both read it
// through api.ParseListQuery, which canonicalizes it.) net/http has
// already decoded the path once, so "/products/%d1%81" arrives as UTF-8
// and "/products/%25d1%2581" as "%d1%81"; both become "%d1%81". What
// CanonicalSlug rejects passes untouched and is answered 400.
func canonicalSlugs(productsPrefix string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slug, ok := strings.CutPrefix(r.URL.Path, productsPrefix)
		if ok && !strings.Contains(slug, "/") {
			if c, ok := api.CanonicalSlug(slug); ok && c != slug {
				r = r.WithContext(r.Context()) // a shallow copy; the URL is copied below
				u := *r.URL
				// Routing reads Path (gorilla/mux without UseEncodedPath); an
				// empty RawPath keeps EscapedPath consistent with it.
				u.Path, u.RawPath = productsPrefix+c, ""
				r.URL = &u
			}
		}
		next.ServeHTTP(w, r)
	})
}
