package httpapi

import (
	"slices"
	"strconv"

	"catalogd/catalog"
)

// Purge tags name what a cacheable response shows, so that a CDN or
// Varnish can drop exactly the responses a change touches
// (docs/freshness.md#purge-tags). Every response names its kind
// ({ns}-index, -categories, -list, -product, -docs), which a change to the
// lists or to a term or setting purges; a product or list page also each
// product it shows ({ns}-product-{post ID}: stable when a slug is edited),
// a finding page {ns}-query instead (listTags); a 400 or 404 {ns}-miss,
// which a change to the lists purges. None names its categories: a
// category changes only with a term (every kind is purged) or a product
// moving (its tag and the lists' are). A response whose tags would not
// fit tagBudget names its kind and {ns}-overflow, which every product
// change purges: nothing is left unpurgeable.

// tagKinds are the kind suffixes: one per kind of response, miss for the
// 400s and 404s, overflow for the responses whose tags did not fit, query
// for the finding pages.
var tagKinds = []string{"index", "categories", "list", "product", "docs", "miss", "overflow", "query"}

// Tags are a namespace's purge tags as a change invalidates them: the one
// answer to what a change purges, which the response cache drops
// (Cache.Apply) and the edge purger sends (the follower hands it the
// cache's answer, and the kinds for a whole purge).
type Tags struct {
	tg tagger
	// kinds are the kind tags, built once: together they name every
	// response.
	kinds []string
}

// NewTags are the namespace's.
func NewTags(ns string) Tags {
	t := Tags{tg: tagger{ns: ns}}
	for _, k := range tagKinds {
		t.kinds = append(t.kinds, t.tg.kind(k))
	}
	return t
}

// Kinds are the namespace's kind tags: together they purge every response
// catalogd serves. The edge purger sends them when it cannot know what
// changed (at start, after the change feed lost its place).
func (t Tags) Kinds() []string { return slices.Clone(t.kinds) }

// listKinds are the kinds of response that a product entering or leaving
// the catalog moves; miss the 400s and 404s (a slug just published).
var listKinds = []string{"index", "categories", "list", "docs", "miss"}

// Invalidated is the tag set a change the catalog applied invalidates:
// every kind when the settings or terms moved, since any response may
// have; else the tags of the responses that show a changed product (its
// own, the list pages listing it, and every finding page), and every
// list's, count's, index's and document's when a product entered or left
// them; nothing when the change left every response as it was.
func (t Tags) Invalidated(a catalog.Applied) []string {
	switch {
	case a.Everything:
		return t.Kinds()
	case a.Nothing():
		return nil
	}
	var named tagSet
	for _, id := range a.Products {
		named.add(t.tg.product(id))
	}
	if len(a.Products) > 0 {
		// The responses whose product tags did not fit carry this one
		// instead (tagger.fit): any product may be among theirs.
		named.add(t.tg.kind("overflow"))
	}
	if len(a.Products) > 0 || a.Lists {
		// A finding page may gain, lose or reorder any product.
		named.add(t.tg.kind("query"))
	}
	if a.Lists {
		for _, k := range listKinds {
			named.add(t.tg.kind(k))
		}
	}
	// The index names the snapshot it was made from (SnapshotHeader),
	// which a starting replica compares with the edge's copy: every change
	// drops it and purges it, so that the copy the edge holds names the
	// fleet's latest snapshot, not the last one that moved a count (a busy
	// shop's scale-up would purge everything). It is one small answer.
	named.add(t.tg.kind("index"))
	return named.list
}

// TagHeader chooses the purge tag header(s) a response carries.
type TagHeader int

const (
	// TagSurrogateKey sends Surrogate-Key (Fastly, Varnish xkey).
	TagSurrogateKey TagHeader = iota
	// TagCacheTag sends Cache-Tag (Cloudflare).
	TagCacheTag
	// TagBoth sends both, each within half the budget.
	TagBoth
)

// tagBudget bounds the bytes of purge tag headers one response carries,
// both headers together when both are sent. Every header of a response
// must pass nginx's default proxy_buffer_size (4 KB, the status line and
// all headers together), Apache's ResponseFieldSize (8190 bytes per
// field) and Varnish's http_resp_hdr_len (8 KB per field) and http_resp_size
// (32 KB), with catalogd's other headers. 2 KB holds the largest page the
// API serves, 50 products with six-digit IDs under the default namespace,
// in both headers (docs/freshness.md#the-header-budget).
const tagBudget = 2048

// tagger builds the tags of the namespace.
type tagger struct {
	ns string
	// fields is how many headers carry the tags: 2 for TagBoth.
	fields int
}

func (tg tagger) kind(k string) string { return tg.ns + "-" + k }

func (tg tagger) product(id int64) string {
	return tg.ns + "-product-" + strconv.FormatInt(id, 10)
}

// tagSet collects tags once each, in order.
type tagSet struct {
	seen map[string]bool
	list []string
}

func (s *tagSet) add(tag string) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if !s.seen[tag] {
		s.seen[tag] = true
		s.list = append(s.list, tag)
	}
}

// fit returns tags (the kind first) when their header(s) fit tagBudget,
// else the kind and the overflow tag, which every product change names.
func (tg tagger) fit(tags []string) []string {
	n := len(tags) - 1 // the separators
	for _, t := range tags {
		n += len(t)
	}
	if n*max(tg.fields, 1) <= tagBudget {
		return tags
	}
	return []string{tags[0], tg.kind("overflow")}
}

// listTags: the kind and every product shown. The category filtered on
// needs no tag: a term change purges every list by its kind. A finding
// page (a search, an order other than by ID, a price, stock or sale
// filter, facets) can change with any product, one it does not show
// among them: it names the kind and {ns}-query, which every product's
// change purges, and no product, as each would purge it again.
func (tg tagger) listTags(l *catalog.ProductList) []string {
	if l.Finding {
		return []string{tg.kind("list"), tg.kind("query")}
	}
	tags := make([]string, 0, 1+len(l.Items))
	tags = append(tags, tg.kind("list"))
	for i := range l.Items {
		tags = append(tags, tg.product(l.Items[i].ID))
	}
	return tg.fit(tags)
}

func (tg tagger) productTags(p *catalog.Product) []string {
	return []string{tg.kind("product"), tg.product(p.ID)}
}
