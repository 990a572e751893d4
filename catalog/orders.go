package catalog

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// An order is the served products' positions sorted by one of the list's
// sorts, ascending, ties by ID (by position: the served are in ID order).
// A sorted page walks it, forward or backward, keeping the positions the
// request selects. Each is made when a request first asks for it, once
// per snapshot; a snapshot made by patching a few products derives the
// orders its parent had made rather than sorting again (derive).
type orderKind uint8

const (
	orderDate     orderKind = iota // post_date
	orderMinPrice                  // the lookup's min_price
	orderMaxPrice                  // the lookup's max_price
	orderSales                     // total_sales
	orderRating                    // average_rating, then rating_count
	orderTitle                     // post_title under the column's collation
	orderMenu                      // menu_order, then post_title
	orderKinds
)

// orderOf is the order and direction of a sort as the storefront orders
// (WC_Query::get_catalog_ordering_args and its clauses): date is 'date
// ID' in the one direction; price ascending is min_price then ID
// ascending, descending max_price then ID descending; popularity
// total_sales then ID, rating average then count then ID, descending
// both; title and menu_order ('menu_order title') take the direction on
// every key, ties (which MySQL leaves in no set order) by ID likewise.
// ok is false for id and relevance, which are no order of this kind.
func orderOf(by string, desc bool) (k orderKind, backward, ok bool) {
	switch by {
	case "date":
		return orderDate, desc, true
	case "price":
		if desc {
			return orderMaxPrice, true, true
		}
		return orderMinPrice, false, true
	case "popularity":
		return orderSales, desc, true
	case "rating":
		return orderRating, desc, true
	case "title":
		return orderTitle, desc, true
	case "menu_order":
		return orderMenu, desc, true
	}
	return 0, false, false
}

// sortKey is what an order compares of a product, then its position.
type sortKey struct {
	n   int64
	s   string
	pos int32
}

func keyOf(k orderKind, it *item, pos int32) sortKey {
	r := &it.rank
	switch k {
	case orderDate:
		return sortKey{n: r.date, pos: pos}
	case orderMinPrice:
		return sortKey{n: int64(r.minPrice), pos: pos}
	case orderMaxPrice:
		return sortKey{n: int64(r.maxPrice), pos: pos}
	case orderSales:
		return sortKey{n: r.sales, pos: pos}
	case orderRating:
		// ratings is never negative: the count orders below the average.
		return sortKey{n: int64(r.rating)<<32 | int64(uint32(r.ratings)), pos: pos}
	case orderTitle:
		return sortKey{s: it.titleKey(), pos: pos}
	}
	return sortKey{n: int64(r.menuOrder), s: it.titleKey(), pos: pos}
}

func cmpKey(a, b sortKey) int {
	return cmp.Or(cmp.Compare(a.n, b.n), strings.Compare(a.s, b.s), cmp.Compare(a.pos, b.pos))
}

// orders are a snapshot's orders, each made at most once.
type orders [orderKinds]lazy[[]int32]

// lazy is a value made once, on first use, by whoever asks first; peek
// reads it without making it.
type lazy[T any] struct {
	once sync.Once
	v    atomic.Pointer[T]
}

func (l *lazy[T]) get(make func() *T) *T {
	l.once.Do(func() { l.v.Store(make()) })
	return l.v.Load()
}

func (l *lazy[T]) peek() *T { return l.v.Load() }

// set makes the value v, unless already made.
func (l *lazy[T]) set(v *T) { l.once.Do(func() { l.v.Store(v) }) }

// order returns the order of the kind over s's served products.
func (s *Snapshot) order(k orderKind) []int32 {
	return *s.find.orders[k].get(func() *[]int32 {
		keys := make([]sortKey, len(s.served))
		for i, it := range s.served {
			keys[i] = keyOf(k, it, int32(i))
		}
		slices.SortFunc(keys, cmpKey)
		perm := make([]int32, len(keys))
		for i, key := range keys {
			perm[i] = key.pos
		}
		return &perm
	})
}

// deriveOrder is the order of the kind over n's served products from the
// order p of its parent, whose served products are at the same positions,
// those at the positions changed (in the set out) replaced: they are
// taken out and put back where their new keys go, each a binary search
// and a copy of the order.
func (n *Snapshot) deriveOrder(k orderKind, p []int32, changed []int32, out bitset) []int32 {
	kept := make([]int32, 0, len(p))
	for _, pos := range p {
		if !out.has(int(pos)) {
			kept = append(kept, pos)
		}
	}
	for _, pos := range changed {
		key := keyOf(k, n.served[pos], pos)
		i, _ := slices.BinarySearchFunc(kept, key, func(q int32, key sortKey) int {
			return cmpKey(keyOf(k, n.served[q], q), key)
		})
		kept = slices.Insert(kept, i, pos)
	}
	return kept
}

// warm makes, on the calling goroutine, the orders old had made: a whole
// read's snapshot has none, and the first request of each sort would
// otherwise sort the whole shop while a visitor waits.
func (s *Snapshot) warm(old *Snapshot) {
	for k := range orderKinds {
		if old.find.orders[k].peek() != nil {
			s.order(k)
		}
	}
}
