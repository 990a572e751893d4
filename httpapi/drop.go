package httpapi

import (
	"slices"

	"catalogd/catalog"
)

// Apply drops from the cache what a change the catalog applied touched:
// everything when the settings or terms moved, else only the responses
// that show a changed product (its own, and the list pages listing it),
// and the lists, counts, index and documents when a product entered or
// left them. Every other response stays fresh: a stock change on one
// product leaves the other products' responses cached. It returns the purge
// tags the change named (also in the change log), for the edge purger.
func (c *Cache) Apply(a catalog.Applied) []string {
	switch {
	case a.Everything:
		return c.Invalidate()
	case !a.Nothing():
		return c.Drop(a.Products, a.Lists)
	}
	return nil
}

// listKinds are the kinds of response that a product entering or leaving
// the catalog moves; miss the 400s and 404s (a slug just published).
var listKinds = []string{"index", "categories", "list", "docs", "miss"}

// Drop removes the cached responses that show one of the products, and the
// index; when lists is set, every list, category list and document, and every
// answer other than a 200 (a 404 for a slug just published, a 400 for a
// category just created). The tags it names go to the change log, for a
// CDN's purge job, and are returned.
func (c *Cache) Drop(products []int64, lists bool) []string {
	c.mu.Lock()
	tg := tagger{ns: c.ns}
	var named tagSet
	for _, id := range products {
		named.add(tg.product(id))
	}
	if len(products) > 0 {
		// The responses whose product tags did not fit carry this one
		// instead (tagger.fit): any product may be among theirs.
		named.add(tg.kind("overflow"))
	}
	if lists {
		for _, k := range listKinds {
			named.add(tg.kind(k))
		}
	}
	// The index names the snapshot it was made from (SnapshotHeader),
	// which a starting replica compares with the edge's copy: every change
	// drops it and purges it, so that the copy the edge holds names the
	// fleet's latest snapshot, not the last one that moved a count (a busy
	// shop's scale-up would purge everything). It is one small answer.
	named.add(tg.kind("index"))
	c.drops.Add(1)
	c.dropping = true
	for _, key := range c.lru.Keys() {
		e, ok := c.lru.Peek(key)
		if !ok {
			continue
		}
		if (lists && e.status != 200) || slices.ContainsFunc(e.tags, func(t string) bool { return named.seen[t] }) {
			c.lru.Remove(key)
		}
	}
	c.dropping = false
	c.mu.Unlock()
	c.changes.record(c.now(), named.list, tg.ns)
	return named.list
}
