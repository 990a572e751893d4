package catalog

import (
	"fmt"
	"hash/maphash"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// Snapshot is the shop as the API shows it, at one moment: its settings,
// its terms placed in their trees and orders, and every published product
// (of the language served) in the form the rules need. It is immutable:
// a change builds a new one, sharing what did not change, and swaps it in
// whole, so no response ever mixes two. Requests compute every resource
// from it (and the clock): no statement runs per request.
type Snapshot struct {
	// Version numbers the snapshots a Catalog builds, from 1; it goes into
	// the responses' ETag.
	Version uint64
	// Built is when the rows it holds were read.
	Built time.Time
	took  time.Duration // to read and build
	cost  time.Duration // the database time of its whole read (ShopRows.Cost)
	// Warnings are what the shop's storage holds that WordPress itself
	// overlooks (a damaged option, a plugin's leftovers), one line each.
	Warnings []string

	sh *shop
	t  *terms

	// all is every published product, of any language, by ID; served are
	// those of the language served, ascending by ID, and pos their
	// positions in it.
	all    map[int64]*item
	served []*item
	// slugs finds the published products of any language by folded slug,
	// lowest ID first: by ID, not item, so that a change to a product that
	// keeps its slug leaves the index as it is.
	slugs *slugIndex
	// members holds, for every term the catalog filters on, which served
	// products carry it; every is the whole served population.
	members map[int64]bitset
	every   bitset
	// groups maps a product to the grouped products listing it as a
	// child, and a variation to its product: a change to the child or the
	// variation changes their prices.
	groups map[int64][]int64
	// images maps an attachment to the products showing it as their
	// image: the media library's image editor saves a new file to the
	// attachment's meta alone, which changes those products' image.
	images map[int64][]int64

	// Translation hints: WPML's groups (trid → the served language's
	// product), Polylang's (term_taxonomy_id → language → post ID), and
	// TranslatePress's translated slugs.
	wpmlServed map[int64]int64 // trid → product ID
	pllGroups  map[int64]map[string]int64
	trpSlugs   map[string]string

	// agg are the counts the index and categories show (aggregates.go),
	// derived once the lookups are complete.
	agg *aggregates
	// find is what searches, sorts, filters and facets read (finder.go),
	// made as they ask for it.
	find *finder
	// sum names the content, for Digest.
	sum digest
}

// builder turns rows into a snapshot; it collects what it had to overlook.
type builder struct {
	cfg      Config
	warnings []string
}

func (b *builder) warn(msg string, err error) {
	if err != nil {
		msg += ": " + err.Error()
	}
	b.warnings = append(b.warnings, msg)
}

// Build turns the whole shop's rows into a snapshot. It fails only where
// the storefront would serve nothing either: a configured language the
// site lacks (*LanguageError). It consumes rows.Products: the posts' texts
// and meta are cleared as the products are built, and the rows are left
// empty, so that the rows and the snapshot are not both held whole.
func Build(rows *ShopRows, cfg Config, version uint64, built time.Time) (*Snapshot, error) {
	b := &builder{cfg: cfg.withDefaults()}
	sh, err := b.readShop(rows)
	if err != nil {
		return nil, err
	}
	t := buildTerms(rows, sh)
	s := &Snapshot{Version: version, Built: built, cost: rows.Cost, sh: sh, t: t,
		trpSlugs: make(map[string]string, len(rows.TranslatedSlugs)), sum: digest{shop: shopSum(rows, cfg)}, find: &finder{}}
	for k, v := range rows.TranslatedSlugs {
		s.trpSlugs[foldSlug(k)] = v
	}
	items := b.items(sh, t, &rows.Products, true)
	s.pllGroups = rows.Products.Groups
	// The rows are consumed: what the snapshot does not share with them
	// can go before the lookups are made. The map of every item is made
	// now, not before the items: made before, it would be held through the
	// build, where the load's heap peaks. It is filled while the lookups
	// are derived from the items sorted, on the other core.
	rows.Products = ProductRows{Groups: rows.Products.Groups}
	sorted := slices.Clone(items)
	var wg sync.WaitGroup
	wg.Go(func() {
		s.all = make(map[int64]*item, len(items))
		for _, it := range items {
			s.all[it.id] = it
		}
	})
	slices.SortFunc(sorted, byID)
	for i := 1; i < len(sorted); i++ {
		if sorted[i].id == sorted[i-1].id { // a post read twice: the last read counts, as in all
			wg.Wait()
			sorted = sortedItems(s.all)
			break
		}
	}
	s.indexSorted(sorted, &wg)
	wg.Wait()
	x := newItemHasher()
	for _, it := range s.all {
		s.sum.add(x, it)
	}
	s.aggregate()
	s.Warnings = b.warnings
	return s, nil
}

// With returns a snapshot in which the products the rows hold replace
// their old state (or leave it: a product no longer published is dropped),
// sharing everything else with s. ids are the products asked for: one
// missing from the rows was deleted.
func (s *Snapshot) With(rows *ProductRows, ids []int64, version uint64, cfg Config) *Snapshot {
	b := &builder{cfg: cfg.withDefaults()}
	n := *s
	n.Version = version
	n.find = &finder{} // unless patch derives it from s's
	n.all = maps.Clone(s.all)
	x := newItemHasher()
	for _, id := range ids {
		if it, ok := n.all[id]; ok {
			n.sum.remove(x, it)
			delete(n.all, id)
		}
	}
	for _, it := range b.items(s.sh, s.t, rows, false) {
		if old, ok := n.all[it.id]; ok {
			n.sum.remove(x, old) // read twice: the last read counts
		}
		n.all[it.id] = it
		n.sum.add(x, it)
	}
	if len(rows.Groups) > 0 {
		n.pllGroups = make(map[int64]map[string]int64, len(s.pllGroups)+len(rows.Groups))
		for k, v := range s.pllGroups {
			n.pllGroups[k] = v
		}
		for k, v := range rows.Groups {
			n.pllGroups[k] = v
		}
	}
	n.Warnings = append(slices.Clip(s.Warnings), b.warnings...)
	switch placed, moved := n.patch(s, ids); {
	case !placed:
		n.index()
		n.aggregate()
	case moved:
		n.aggregate()
	}
	// Else no product changed place and no term its members: a price, a
	// text, a date moved. The aggregates, derived from the served
	// population and the terms' members alone, are s's, which n shares:
	// their cost grows with the shop, and a stock change should not pay it.
	return &n
}

// patch updates n's lookups, copied from s, for the products with the IDs,
// when none of them changes place: each is served in both or neither, and
// keeps its slug, its translation group, its children, variations and image. The
// served products keep their positions, so only the served list's changed
// pointers and the term bitsets their terms moved in are copied; every
// other lookup is shared with s. A stock or price change takes this path,
// a small part of what index costs on a large shop. placed is false,
// nothing changed, when some product changes place: index rebuilds
// everything then. moved says a term's members changed (a category, a
// visibility or stock term).
func (n *Snapshot) patch(s *Snapshot, ids []int64) (placed, moved bool) {
	type swap struct {
		pos     int // in served; -1 when not served
		was, is *item
	}
	var swaps []swap
	for _, id := range ids {
		was, is := s.all[id], n.all[id]
		switch {
		case was == nil && is == nil:
			continue
		case was == nil || is == nil, was.slug() != is.slug(), was.wpml != is.wpml,
			!slices.Equal(was.childIDs, is.childIDs), !slices.Equal(was.varIDs, is.varIDs), was.thumb != is.thumb,
			s.sh.serves(was) != n.sh.serves(is):
			return false, false
		}
		pos := -1
		if n.sh.serves(is) {
			p, found := slices.BinarySearchFunc(s.served, id, func(it *item, id int64) int { return cmpID(it.id, id) })
			if !found {
				return false, false
			}
			pos = p
		}
		swaps = append(swaps, swap{pos, was, is})
	}
	n.served = slices.Clone(s.served)
	tracked := n.t.tracked()
	copied := map[int64]bool{} // bitsets already copied for n
	member := func(tt int64, pos int, in bool) {
		if !tracked[tt] {
			return
		}
		if !copied[tt] {
			if len(copied) == 0 {
				n.members = maps.Clone(s.members)
			}
			if b := n.members[tt]; b != nil {
				n.members[tt] = slices.Clone(b)
			} else {
				n.members[tt] = newBitset(len(n.served))
			}
			copied[tt] = true
		}
		if in {
			n.members[tt].set(pos)
		} else {
			n.members[tt].clear(pos)
		}
	}
	var changed []int32
	for _, sw := range swaps {
		if sw.pos < 0 {
			continue
		}
		changed = append(changed, int32(sw.pos))
		n.served[sw.pos] = sw.is
		for _, tt := range sw.was.ttids {
			if !slices.Contains(sw.is.ttids, tt) {
				member(tt, sw.pos, false)
			}
		}
		for _, tt := range sw.is.ttids {
			if !slices.Contains(sw.was.ttids, tt) {
				member(tt, sw.pos, true)
			}
		}
	}
	slices.Sort(changed)
	n.find = s.find.derive(n, slices.Compact(changed))
	return true, len(copied) > 0
}

// Affected returns the products whose resources a change to the posts with
// the IDs changes: themselves, the grouped products listing them, and the
// variable products a variation belongs to.
func (s *Snapshot) Affected(ids []int64) []int64 {
	out := slices.Clone(ids)
	for _, id := range ids {
		out = append(out, s.groups[id]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// index derives the lookups from all: the served population in ID order,
// the slug index, term membership, grouped parents, translation groups.
func (s *Snapshot) index() {
	var wg sync.WaitGroup
	s.indexSorted(sortedItems(s.all), &wg)
	wg.Wait()
}

// sortedItems are the items of all by ID.
func sortedItems(all map[int64]*item) []*item {
	out := make([]*item, 0, len(all))
	for _, it := range all {
		out = append(out, it)
	}
	slices.SortFunc(out, byID)
	return out
}

func byID(a, b *item) int { return cmpID(a.id, b.id) }

// indexSorted is index from all's items in ID order. The slug index, the
// images and the groups are made on goroutines of wg's (the caller
// waits): the lookups are apart, and a build on two cores made them one
// after another.
func (s *Snapshot) indexSorted(items []*item, wg *sync.WaitGroup) {
	wg.Go(func() {
		s.slugs = newSlugIndex(len(items))
		for _, it := range items {
			s.slugs.add(it.slug(), it.id)
		}
	})
	s.served = make([]*item, 0, len(items))
	s.wpmlServed = map[int64]int64{}
	for _, it := range items {
		if s.sh.serves(it) {
			s.served = append(s.served, it)
			if it.wpml.TRID != 0 {
				s.wpmlServed[it.wpml.TRID] = it.id
			}
		}
	}
	s.served = slices.Clip(s.served)
	// The images and the groups on a goroutine too, while the term
	// bitsets are made here.
	wg.Go(func() {
		images, grouped := 0, 0
		for _, it := range items {
			if it.thumb != 0 {
				images++
			}
			grouped += len(it.childIDs) + len(it.varIDs)
		}
		s.groups = map[int64][]int64{}
		s.images = make(map[int64][]int64, images)
		backing := make([]int64, 0, images+grouped)
		for _, it := range items {
			if it.thumb != 0 {
				addTo(s.images, it.thumb, it.id, &backing)
			}
			for _, k := range it.childIDs {
				addTo(s.groups, k, it.id, &backing)
			}
			for _, v := range it.varIDs {
				addTo(s.groups, v, it.id, &backing)
			}
		}
	})

	// A term's bitset is made at its first member; sets holds every
	// tracked term, so that a product's term is looked up once.
	sets := map[int64]bitset{}
	for tt := range s.t.tracked() {
		sets[tt] = nil
	}
	s.every = newBitset(len(s.served))
	for pos, it := range s.served {
		s.every.set(pos)
		for _, tt := range it.ttids {
			bs, tracked := sets[tt]
			if !tracked {
				continue
			}
			if bs == nil {
				bs = newBitset(len(s.served))
				sets[tt] = bs
			}
			bs.set(pos)
		}
	}
	s.members = map[int64]bitset{}
	for tt, bs := range sets {
		if bs != nil {
			s.members[tt] = bs
		}
	}
}

// addTo appends v to m[k]. A new list is carved from backing, capacity
// capped so that no append writes into a neighbour; a longer one is
// copied (rare: a shared child). Should backing
// fill up, carving goes on in a new array, and the old stays whole for
// the lists carved from it.
func addTo[K comparable](m map[K][]int64, k K, v int64, backing *[]int64) {
	if cur, ok := m[k]; ok {
		m[k] = append(cur[:len(cur):len(cur)], v)
		return
	}
	*backing = append(*backing, v)
	b := *backing
	m[k] = b[len(b)-1 : len(b) : len(b)]
}

func cmpID(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// foldSlug is how the database compares post_name (utf8mb4_unicode_ci:
// case-insensitive, trailing spaces ignored) for the stored forms a slug
// takes, which are ASCII.
func foldSlug(s string) string {
	return strings.ToLower(strings.TrimRight(s, " "))
}

// bySlug returns the served product with the slug, the lowest ID first as
// the storefront's query orders them.
func (s *Snapshot) bySlug(slug string) (*item, bool) {
	for it := range s.slugs.products(s.all, slug) {
		if s.sh.serves(it) {
			return it, true
		}
	}
	return nil, false
}

// slugIndex finds products by folded slug: their IDs by a 64-bit hash of
// it, the slug itself read back from the item to tell apart slugs whose
// hashes collide. Keyed by the slug, with a list of IDs each, it would be
// two pointer words a product (the key's string, the list) for the collector
// to mark at every cycle; one holds none, and the collector skips it.
type slugIndex struct {
	// one is the product of a hash only one product has.
	one map[uint64]int64
	// many are the products, lowest ID first, of a hash several have: a
	// slug several languages share, or slugs whose hashes collide (rare).
	many map[uint64][]int64
}

func newSlugIndex(n int) *slugIndex {
	return &slugIndex{one: make(map[uint64]int64, n), many: map[uint64][]int64{}}
}

func slugHash(folded string) uint64 { return maphash.String(stringSeed, folded) }

// add indexes the product with the ID under its slug.
func (x *slugIndex) add(slug string, id int64) {
	h := slugHash(foldSlug(slug))
	if ids, ok := x.many[h]; ok {
		if i, found := slices.BinarySearch(ids, id); !found {
			x.many[h] = slices.Insert(ids, i, id) // index adds in ID order: an append
		}
		return
	}
	if first, ok := x.one[h]; ok && first != id {
		delete(x.one, h)
		x.many[h] = []int64{min(first, id), max(first, id)}
		return
	}
	x.one[h] = id
}

// products yields the products in all with the slug (compared folded),
// lowest ID first.
func (x *slugIndex) products(all map[int64]*item, slug string) iter.Seq[*item] {
	return func(yield func(*item) bool) {
		folded := foldSlug(slug)
		h := slugHash(folded)
		// each yields the product with the ID if it has the slug, and says
		// whether to go on.
		each := func(id int64) bool {
			it := all[id]
			return it == nil || foldSlug(it.slug()) != folded || yield(it)
		}
		if id, ok := x.one[h]; ok {
			each(id)
			return
		}
		for _, id := range x.many[h] {
			if !each(id) {
				return
			}
		}
	}
}

// Products is the number of published products served.
func (s *Snapshot) Products() int { return len(s.served) }

// String identifies the snapshot in logs.
func (s *Snapshot) String() string {
	return fmt.Sprintf("snapshot %d (%d products, built %s)", s.Version, len(s.served), s.Built.UTC().Format(time.RFC3339))
}
