package httpapi

import (
	"net/http"
	"strconv"

	"catalogd/api"
	"catalogd/catalog"
)

// setPagingHeaders gives a page of the product list the headers WordPress's
// REST collections carry (WP_REST_Posts_Controller::get_items): X-WP-Total,
// X-WP-TotalPages, and Link values to the neighbouring pages, so that a
// client written for WordPress pages through the catalog unchanged. Beyond
// WordPress's prev and next, first and last are given too (RFC 8288
// relations), so a client can jump to the end.
//
// The links are absolute, on the site URL, and carry the request's list
// parameters in the canonical form and order the cache key uses
// (api.ListQuery.Canonical), page always: every link to a page is one spelling, so one
// cache entry (a request that left page out is another entry, once). With
// total 0 no page holds a product, and, as WordPress does, no link is
// given. prev is omitted on page 1, next on the last.
//
// The headers depend on the query only, so they are kept in the cached
// entry with the body; the common rel="service-desc" Link is combined with
// them when the entry is served.
func (s *server) setPagingHeaders(h http.Header, q api.ListQuery, list *catalog.ProductList) {
	h.Set("X-WP-Total", strconv.Itoa(list.Total))
	h.Set("X-WP-TotalPages", strconv.Itoa(list.TotalPages))
	if list.TotalPages == 0 {
		return
	}
	link := func(page int, rel string) {
		h.Add("Link", "<"+s.site+s.base+"/catalog/products"+q.WithPage(page).Canonical()+">; rel=\""+rel+"\"")
	}
	link(1, "first")
	page, _ := q.Paging()
	if page > 1 {
		link(min(page-1, list.TotalPages), "prev")
	}
	if page < list.TotalPages {
		link(page+1, "next")
	}
	link(list.TotalPages, "last")
}
