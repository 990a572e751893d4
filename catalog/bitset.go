package catalog

import "math/bits"

// bitset is a set of positions in a snapshot's served products: the
// products the list pages, filters and counts are computed on.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int)   { b[i/64] |= 1 << (uint(i) % 64) }
func (b bitset) clear(i int) { b[i/64] &^= 1 << (uint(i) % 64) }
func (b bitset) count() (n int) {
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// and, or and andNot return new sets.
func (b bitset) and(o bitset) bitset {
	out := make(bitset, len(b))
	for i := range b {
		out[i] = b[i] & o[i]
	}
	return out
}

// andCount is the size of b and o's intersection, made without a set.
func (b bitset) andCount(o bitset) (n int) {
	for i := range b {
		n += bits.OnesCount64(b[i] & o[i])
	}
	return n
}

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

// page returns the positions from the offset-th set bit on, at most limit.
func (b bitset) page(offset, limit int) []int {
	out := make([]int, 0, min(limit, 128))
	for wi, w := range b {
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
