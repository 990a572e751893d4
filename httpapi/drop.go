package httpapi

import (
	"slices"

	"catalogd/catalog"
)

// Apply drops from the cache what a change the catalog applied touched
// (Tags.Invalidated names it): everything when the settings or terms
// moved, else only the responses that show a changed product (its own, and
// the list pages listing it), and the lists, counts, index and documents
// when a product entered or left them. Every other response stays fresh: a
// stock change on one product leaves the other products' responses cached.
// It returns the purge tags the change named (also in the change log), for
// the edge purger.
func (c *Cache) Apply(a catalog.Applied) []string {
	switch {
	case a.Everything:
		return c.Invalidate()
	case !a.Nothing():
		c.mu.Lock()
		tags := c.tags
		c.mu.Unlock()
		return c.drop(tags.Invalidated(a), a.Lists)
	}
	return nil
}

// drop removes the cached responses that carry one of the tags; when lists
// is set, also every answer other than a 200 (a 404 for a slug just
// published, a 400 for a category just created). The tags go to the change
// log, for a CDN's purge job, and are returned.
func (c *Cache) drop(tags []string, lists bool) []string {
	named := make(map[string]bool, len(tags))
	for _, t := range tags {
		named[t] = true
	}
	c.mu.Lock()
	ns := c.tags.tg.ns
	c.drops.Add(1)
	c.dropping = true
	for _, key := range c.lru.Keys() {
		e, ok := c.lru.Peek(key)
		if !ok {
			continue
		}
		if (lists && e.status != 200) || slices.ContainsFunc(e.tags, func(t string) bool { return named[t] }) {
			c.lru.Remove(key)
		}
	}
	c.dropping = false
	c.mu.Unlock()
	c.changes.record(c.now(), tags, ns)
	return tags
}
