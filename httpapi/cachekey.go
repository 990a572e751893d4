package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"catalogd/api"
)

// apiKey is the cache key of the API's requests: the path, and the query
// only for the product list at listPath, the one operation that reads it.
func apiKey(listPath string) func(*http.Request) string {
	return func(r *http.Request) string { return cacheKey(r, r.URL.Path == listPath) }
}

// pathKey keys a request by its path alone: a handler that reads no query.
func pathKey(r *http.Request) string { return r.URL.Path }

// listParamNames are the query parameters the product list reads
// (listParams), in the order its cache key names them (sorted).
var listParamNames = func() []string {
	names := paramNames(listParams)
	slices.Sort(names)
	return names
}()

// QueryParams are the query parameters catalogd reads, sorted: WordPress's
// rest_route (restRoute) and the product list's (listParamNames). It
// ignores every other, as its cache key does; a cache in front that keys
// by the query drops the others and sorts the rest (the shipped VCL,
// which deploy/varnish's test checks against this list).
var QueryParams = func() []string {
	names := append([]string{"rest_route"}, listParamNames...)
	slices.Sort(names)
	return names
}()

// cacheKey is what a request means, so that requests meaning the same share
// one entry and no spelling makes a fresh miss: the path, and, for the one
// operation that reads the query (readsQuery), each parameter it reads in
// its canonical form, sorted. Other parameters, and the query of any other
// operation, are ignored as the handlers ignore them. The canonical form is
// what api.ParseListQuery, the rule the handler applies, makes of the
// value: "page=007" is page=7. A value it rejects is keyed by the reason
// (the 400 names the reason, never the value), so every bad spelling of a
// parameter shares one entry too.
func cacheKey(r *http.Request, readsQuery bool) string {
	raw := r.URL.RawQuery
	if raw == "" || !readsQuery {
		return r.URL.Path
	}
	if canonicalQuery(raw) {
		// The hit path: nothing to parse. The request line's target is
		// usually this very string, already made by net/http: reusing it
		// saves the hit its one allocation.
		if requestTargetIs(r.RequestURI, r.URL.Path, raw) {
			return r.RequestURI
		}
		return r.URL.Path + "?" + raw
	}
	v := queryValues(raw)
	q, problems := api.ParseListQuery(v)
	return r.URL.Path + listQuery(q, func(k string) bool { _, ok := v[k]; return ok }, problems)
}

// listQuery is the canonical query string of the product list ("" or
// "?k=v&…"): each parameter the list reads and has says it is present, in
// listParamNames' order, valid values in the form ParseListQuery made of
// them, rejected ones by their reason. The cache key and the paging links
// are both built with it, so a link the list gives is the key it is cached
// under, and takes canonicalQuery's fast path.
func listQuery(q api.ListQuery, has func(name string) bool, problems map[string]string) string {
	var b strings.Builder
	sep := byte('?')
	for _, k := range listParamNames {
		if !has(k) {
			continue
		}
		b.WriteByte(sep)
		sep = '&'
		b.WriteString(k)
		if msg, bad := problems[k]; bad {
			b.WriteString("!" + msg) // "!" never appears in a canonical pair
			continue
		}
		b.WriteByte('=')
		switch k {
		case "page":
			b.WriteString(strconv.Itoa(q.Page))
		case "per_page":
			b.WriteString(strconv.Itoa(q.PerPage))
		case "category":
			b.WriteString(url.QueryEscape(q.Category))
		case "framework":
			b.WriteString(q.Framework)
		}
	}
	return b.String()
}

// canonicalQuery reports whether a raw query already is in the key's form,
// so the hit path need not parse it: only parameters the list reads, each
// once, sorted, page and per_page as plain numbers without leading zeros
// (per_page within its range), a known framework, and a plain category slug
// (api.PlainSlug: QueryEscape leaves it as it is). Anything else takes the
// long way through cacheKey; FuzzCacheKey checks both ways give one key.
func canonicalQuery(raw string) bool {
	prev := ""
	for raw != "" {
		pair, rest, more := strings.Cut(raw, "&")
		raw = rest
		if more && rest == "" {
			return false // a trailing "&"
		}
		k, val, _ := strings.Cut(pair, "=")
		if k <= prev {
			return false
		}
		prev = k
		switch k {
		case "page":
			if !plainNumber(val, 18) {
				return false
			}
		case "per_page":
			if n, err := strconv.Atoi(val); !plainNumber(val, 18) || err != nil || n > api.MaxPerPage {
				return false
			}
		case "framework":
			if !api.ValidFramework(val) {
				return false
			}
		case "category":
			if len(val) > api.MaxSlugLength || !api.PlainSlug(val) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// plainNumber reports whether s is a positive number of at most n digits
// written without a leading zero.
func plainNumber(s string, n int) bool {
	if s == "" || len(s) > n || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// requestTargetIs reports whether target, a request line's target, is
// path+"?"+query byte for byte (it is not when the path was escaped or
// rewritten, or the target is absolute).
func requestTargetIs(target, path, query string) bool {
	return len(target) == len(path)+1+len(query) && target[len(path)] == '?' &&
		strings.HasPrefix(target, path) && strings.HasSuffix(target, query)
}
