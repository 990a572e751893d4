package catalog

// translationOf finds, for a slug the language served does not have, the
// slug of the same product in the language served: the 404's hint. Each
// plugin relates translations its own way: WPML by translation group
// (trid), Polylang by post_translations group, TranslatePress by a table
// of translated slugs over one post per product.
func (s *Snapshot) translationOf(slug string) (string, bool) {
	sh := s.sh
	others := s.slugs.products(s.all, slug)
	switch {
	case sh.plugin == pluginWPML && sh.products:
		for it := range others {
			if it.wpml.Language == sh.language || it.wpml.TRID == 0 {
				continue
			}
			if served, ok := s.wpmlServed[it.wpml.TRID]; ok {
				return s.all[served].slug(), true
			}
		}
	case sh.plugin == pluginPolylang && sh.products:
		for it := range others {
			if sh.serves(it) {
				continue
			}
			for _, tt := range it.ttids {
				id, ok := s.pllGroups[tt][sh.language]
				if !ok {
					continue
				}
				if t, ok := s.all[id]; ok {
					return t.slug(), true
				}
			}
		}
	case sh.plugin == pluginTranslatePress:
		original, ok := s.trpSlugs[foldSlug(slug)]
		if !ok {
			return "", false
		}
		// The original must be a published product to point at.
		for range s.slugs.products(s.all, original) {
			return original, true
		}
	}
	return "", false
}
