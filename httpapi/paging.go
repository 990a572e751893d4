package httpapi

import (
	"net/http"
	"strconv"

	"catalogd/api"
	"catalogd/catalog"
)

// setPagingHeaders gives a page of the product list the headers WordPress's
// REST collections carry (WP_REST_Posts_Controller::get_items): X-WP-Total,
// X-WP-TotalPages, and Link values to the neighbouring pages (prev and
// next, and first and last beyond WordPress's: RFC 8288), so that a client
// written for WordPress pages through the catalog unchanged. The links are
// absolute and carry the list parameters in the cache key's canonical form
// and order (api.ListQuery.Canonical), page always: one spelling, one
// cache entry. With total 0, as WordPress does, no link is given; prev is
// omitted on page 1, next on the last. The headers depend on the query
// only, so they are cached with the body; the common rel="service-desc"
// Link is combined with them when the entry is served.
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
