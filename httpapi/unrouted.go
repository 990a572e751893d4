package httpapi

import (
	"net/http"
	"strings"

	"catalogd/catalog"
)

// The answers to requests no operation serves: a path the API does not
// have (404), a method it does not serve (405).

// eMethod is the kind of a request with a method the API does not serve;
// it is an HTTP matter, not the catalog's.
const eMethod = "method_not_allowed"

// notFound answers a path no operation serves: inside the namespace with
// {ns}_no_route, elsewhere with {ns}_not_found (the site-wide JSON 404 the
// reverse proxy hands JSON-wanting clients to).
func (s *server) notFound(w http.ResponseWriter, r *http.Request) error {
	if r.URL.Path == s.base || strings.HasPrefix(r.URL.Path, s.base+"/") ||
		r.URL.Path == "/wp-json/"+s.ns || strings.HasPrefix(r.URL.Path, "/wp-json/"+s.ns+"/") {
		return &catalog.Error{Kind: catalog.ENOTFOUND, Reason: "no_route",
			Message: "No API operation serves this path.",
			Hint:    "Start at " + s.site + s.base + "/catalog, which links every operation."}
	}
	return &catalog.Error{Kind: catalog.ENOTFOUND, Reason: "not_found",
		Message: "Nothing exists at this path.",
		Hint: "The shop's catalog API starts at " + s.site + s.base + "/catalog; " + s.site +
			"/llms.txt describes the shop and its API."}
}

// methodNotAllowed answers a method other than GET, HEAD and OPTIONS.
func (s *server) methodNotAllowed(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Allow", allowed)
	return &catalog.Error{Kind: eMethod, Reason: "method_not_allowed",
		Message: "The catalog API is read-only; " + r.Method + " is not served.",
		Hint:    "Use GET."}
}
