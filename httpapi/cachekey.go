package httpapi

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"catalogd/api"
)

// The product list's query is parsed once a request, at the most: a query
// in its canonical spelling (api.CanonicalQuery) is its own cache key, so a
// hit parses nothing and the handler parses it on a miss; any other is
// parsed before the cache (parseList), keyed by its canonical spelling, and
// handed to the handler as parsed (listQueryOf).

// listQueryKey is the request context's key of a list query parseList read.
type listQueryKey struct{}

// parseList parses the list's query (at listPath) when it is not in its
// canonical spelling, for the cache key and the handler both.
func parseList(listPath string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if raw := r.URL.RawQuery; raw != "" && r.URL.Path == listPath && !api.CanonicalQuery(raw) {
			q := parseListQuery(raw)
			r = r.WithContext(context.WithValue(r.Context(), listQueryKey{}, &q))
		}
		next.ServeHTTP(w, r)
	})
}

// listQueryOf is the request's list query: parseList's, else the query
// string, canonical, parsed now.
func listQueryOf(r *http.Request) api.ListQuery {
	if q, ok := r.Context().Value(listQueryKey{}).(*api.ListQuery); ok {
		return *q
	}
	return parseListQuery(r.URL.RawQuery)
}

// parseListQuery is the one parse of a request's list query (a test counts
// its calls).
var parseListQuery = api.ParseListQueryString

// apiKey is the cache key of the API's requests: the path, and the query
// only for the product list at listPath, the one operation that reads it.
func apiKey(listPath string) func(*http.Request) string {
	return func(r *http.Request) string { return cacheKey(r, r.URL.Path == listPath) }
}

// pathKey keys a request by its path alone: a handler that reads no query.
func pathKey(r *http.Request) string { return r.URL.Path }

// QueryParams are the query parameters catalogd reads, sorted: WordPress's
// rest_route (restRoute) and the product list's (api.ListParamNames). It
// ignores every other, as its cache key does; a cache in front that keys
// by the query drops the others and sorts the rest (the shipped VCL,
// which deploy/varnish's test checks against this list).
var QueryParams = func() []string {
	names := append([]string{"rest_route"}, api.ListParamNames...)
	slices.Sort(names)
	return names
}()

// cacheKey is what a request means, so that requests meaning the same share
// one entry and no spelling makes a fresh miss: the path, and, for the one
// operation that reads the query (readsQuery), its canonical spelling
// (api.ListQuery.Canonical): each parameter it reads in the form the
// handler's parse makes of it, sorted; "page=007" is page=7. A value the
// parse rejects is keyed by the reason (the 400 names the reason, never
// the value), so every bad spelling of a parameter shares one entry too.
// Other parameters, and the query of any other operation, are ignored as
// the handlers ignore them.
func cacheKey(r *http.Request, readsQuery bool) string {
	raw := r.URL.RawQuery
	if raw == "" || !readsQuery {
		return r.URL.Path
	}
	if q, ok := r.Context().Value(listQueryKey{}).(*api.ListQuery); ok {
		return r.URL.Path + q.Canonical()
	}
	// Canonical already (parseList let it pass): nothing to parse. The
	// request line's target is usually this very string, already made by
	// net/http: reusing it saves the hit its one allocation.
	if requestTargetIs(r.RequestURI, r.URL.Path, raw) {
		return r.RequestURI
	}
	return r.URL.Path + "?" + raw
}

// requestTargetIs reports whether target, a request line's target, is
// path+"?"+query byte for byte (it is not when the path was escaped or
// rewritten, or the target is absolute).
func requestTargetIs(target, path, query string) bool {
	return len(target) == len(path)+1+len(query) && target[len(path)] == '?' &&
		strings.HasPrefix(target, path) && strings.HasSuffix(target, query)
}
