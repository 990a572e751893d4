package catalog

import "math/bits"

// bitset is a set of positions in a snapshot's served products: the
// products the list pages, filters and counts are computed on.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int)      { b[i/64] |= 1 << (uint(i) % 64) }
func (b bitset) clear(i int)    { b[i/64] &^= 1 << (uint(i) % 64) }
func (b bitset) has(i int) bool { return b[i/64]&(1<<(uint(i)%64)) != 0 }
func (b bitset) count() (n int) {
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// andCount is the size of b and o's intersection, made without a set.
func (b bitset) andCount(o bitset) (n int) {
	for i := range b {
		n += bits.OnesCount64(b[i] & o[i])
	}
	return n
}

// andNot returns a new set.
func (b bitset) andNot(o bitset) bitset {
	out := make(bitset, len(b))
	for i := range b {
		out[i] = b[i] &^ o[i]
	}
	return out
}

func (b bitset) orInto(o bitset) {
	for i := range b {
		b[i] |= o[i]
	}
}

// selection is a set and the intersection of unions of others, read
// word by word: the list's filters (a category with its descendants, a
// framework) over the visible products. Made into sets, a filtered page
// would allocate two sets as large as the shop per request, garbage that
// paces the collector.
type selection struct {
	base   bitset
	unions [][]bitset // nil entries (a term no product carries) match nothing
}

// where narrows the selection to the products in any of the sets.
func (s *selection) where(sets []bitset) { s.unions = append(s.unions, sets) }

func (s *selection) word(i int) uint64 {
	w := s.base[i]
	for _, u := range s.unions {
		if w == 0 {
			return 0
		}
		var or uint64
		for _, b := range u {
			if b != nil {
				or |= b[i]
			}
		}
		w &= or
	}
	return w
}

func (s *selection) count() (n int) {
	for i := range s.base {
		n += bits.OnesCount64(s.word(i))
	}
	return n
}

// page returns the positions from the offset-th selected one on, at most
// limit.
func (s *selection) page(offset, limit int) []int {
	out := make([]int, 0, min(limit, 128))
	for wi := range s.base {
		w := s.word(wi)
		n := bits.OnesCount64(w)
		if offset >= n {
			offset -= n
			continue
		}
		for w != 0 && len(out) < limit {
			tz := bits.TrailingZeros64(w)
			w &= w - 1
			if offset > 0 {
				offset--
				continue
			}
			out = append(out, wi*64+tz)
		}
		if len(out) >= limit {
			break
		}
	}
	return out
}

// page returns the positions in b from the offset-th on, at most limit,
// ascending.
func (b bitset) page(offset, limit int) []int {
	s := selection{base: b}
	return s.page(offset, limit)
}

// pageBackward returns the positions in b from the offset-th on, counted
// from the highest, at most limit, descending.
func (b bitset) pageBackward(offset, limit int) []int {
	out := make([]int, 0, min(limit, 128))
	for wi := len(b) - 1; wi >= 0 && len(out) < limit; wi-- {
		w := b[wi]
		n := bits.OnesCount64(w)
		if offset >= n {
			offset -= n
			continue
		}
		for w != 0 && len(out) < limit {
			top := 63 - bits.LeadingZeros64(w)
			w &^= 1 << top
			if offset > 0 {
				offset--
				continue
			}
			out = append(out, wi*64+top)
		}
	}
	return out
}
