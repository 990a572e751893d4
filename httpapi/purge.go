package httpapi

import (
	"strconv"

	"catalogd/catalog"
)

// Purge tags name what a cacheable response shows, so that a CDN or
// Varnish can drop exactly the responses a change touches: one tag per
// product ({ns}-product-{post ID}) and category ({ns}-category-{term ID})
// shown, and one per kind of response ({ns}-index, {ns}-categories,
// {ns}-list, {ns}-product, {ns}-docs). IDs, not slugs: short, and stable
// when a slug is edited. They go out as Cache-Tag (Cloudflare, comma
// separated) and Surrogate-Key (Fastly, Varnish xkey; space separated).

// tagKinds are the kind suffixes, one per kind of response.
var tagKinds = []string{"index", "categories", "list", "product", "docs"}

// KindTags are the namespace's kind tags: together they purge every
// response catalogd serves. The edge purger sends them when it cannot know
// what changed (at start, after the change feed lost its place).
func KindTags(ns string) []string {
	out := make([]string, 0, len(tagKinds))
	for _, k := range tagKinds {
		out = append(out, ns+"-"+k)
	}
	return out
}

// tagger builds the tags of the namespace.
type tagger struct{ ns string }

func (tg tagger) kind(k string) string { return tg.ns + "-" + k }

func (tg tagger) product(id int64) string {
	return tg.ns + "-product-" + strconv.FormatInt(id, 10)
}

func (tg tagger) category(id int64) string {
	return tg.ns + "-category-" + strconv.FormatInt(id, 10)
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

func (tg tagger) addProduct(s *tagSet, p *catalog.Product) {
	s.add(tg.product(p.ID))
	for _, c := range p.CategoryIDs {
		s.add(tg.category(c))
	}
}

// listTags: the kind, the category filtered on, every product and category
// shown.
func (tg tagger) listTags(l *catalog.ProductList) []string {
	var s tagSet
	s.add(tg.kind("list"))
	if l.CategoryID != 0 {
		s.add(tg.category(l.CategoryID))
	}
	for i := range l.Items {
		tg.addProduct(&s, &l.Items[i])
	}
	return s.list
}

func (tg tagger) productTags(p *catalog.Product) []string {
	var s tagSet
	s.add(tg.kind("product"))
	tg.addProduct(&s, p)
	return s.list
}

func (tg tagger) categoryTags(l *catalog.CategoryList) []string {
	var s tagSet
	s.add(tg.kind("categories"))
	for _, c := range l.Items {
		s.add(tg.category(c.ID))
	}
	return s.list
}
