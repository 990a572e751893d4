package catalog

import (
	"hash/maphash"
	"slices"
	"sync"
)

// interner makes the items of one build share their equal read-only
// values: the term lists, category and framework lists, sale windows and
// formatted prices that most products have in common with others. A
// shared value is one object where there would be as many as products;
// the collector marks every object of the snapshot at every cycle, and
// that marking slows the requests a cycle overlaps
// (docs/performance.md#the-collector-and-the-first-requests-tail).
//
// Items never change a value once built (a change to a product builds a
// new item), so sharing is safe. The cores building items intern them
// as they go (items): an interner locks.
type interner struct {
	// The lists by a hash of their values: a list is shared only with an
	// equal one, and one whose hash an unequal list took first is kept
	// apart (rare: it costs sharing, never a value). Hashed as numbers,
	// not keyed by a string of their bytes: building and hashing that
	// string would be a large part of an item's build.
	ints    map[uint64][]int64
	strs    map[uint64][]string
	windows map[uint64][]window
	attrs   map[uint64]*[]attribute
	prices  map[string]*string
	ranges  map[[2]string]*priceRange // the fixed ones, by min and max
	// texts are the folded excerpts and contents a search reads: many
	// products share theirs (a shop's boilerplate), and a text is most of
	// an item's bytes.
	texts map[uint64]string
	mu    sync.Mutex
}

func newInterner() *interner {
	return &interner{ints: map[uint64][]int64{}, strs: map[uint64][]string{},
		windows: map[uint64][]window{}, attrs: map[uint64]*[]attribute{}, prices: map[string]*string{}, ranges: map[[2]string]*priceRange{},
		texts: map[uint64]string{}}
}

// text is the build's string equal to b (scratch), made when it has none.
// Safe for concurrent use.
func (in *interner) text(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	h := maphash.Bytes(stringSeed, b)
	in.mu.Lock()
	defer in.mu.Unlock()
	got, ok := in.texts[h]
	if ok && got == string(b) {
		return got
	}
	s := string(b)
	if !ok {
		in.texts[h] = s
	}
	return s
}

// item replaces the item's shareable values by the build's copies. Its
// category and framework lists and its windows are the builder's scratch:
// a list no item had before is copied; its terms are the rows' own, kept.
// Safe for concurrent use: the cores building items intern them as they
// go, which a build did after each chunk on one core.
func (in *interner) item(it *item) {
	// Hashed before the lock: only the lookups are shared.
	hTT, hCatIDs, hCats, hFws, hWindows := hashInts(it.ttids), hashInts(it.catIDs), hashStrings(it.cats), hashStrings(it.fws), hashWindows(it.windows)
	hAttrs := hashAttributes(it.attrs)
	in.mu.Lock()
	defer in.mu.Unlock()
	it.ttids = share(in.ints, hTT, it.ttids, false)
	it.catIDs = share(in.ints, hCatIDs, it.catIDs, true)
	it.cats = share(in.strs, hCats, it.cats, true)
	it.fws = share(in.strs, hFws, it.fws, true)
	it.windows = share(in.windows, hWindows, it.windows, true)
	it.attrs = in.attributes(hAttrs, it.attrs)
	it.price = in.price(it.price)
	it.regular = in.price(it.regular)
	it.prange = in.priceRange(it.prange)
}

// priceRange shares a fixed range with the items of equal ones; a range
// the clock moves is the item's own, its prices shared.
func (in *interner) priceRange(r *priceRange) *priceRange {
	switch {
	case r == nil:
		return nil
	case r.fixed != nil:
		k := [2]string{r.fixed.Min, r.fixed.Max}
		if got, ok := in.ranges[k]; ok {
			return got
		}
		in.ranges[k] = r
		return r
	}
	for i := range r.kids {
		r.kids[i].regular, r.kids[i].sale = in.price(r.kids[i].regular), in.price(r.kids[i].sale)
	}
	return r
}

// mix folds v into the hash h.
func mix(h, v uint64) uint64 {
	h = (h ^ v) * 0x9e3779b97f4a7c15
	return h ^ h>>29
}

func hashInts(v []int64) uint64 {
	h := uint64(len(v))
	for _, n := range v {
		h = mix(h, uint64(n))
	}
	return h
}

var stringSeed = maphash.MakeSeed()

func hashStrings(v []string) uint64 {
	h := uint64(len(v))
	for _, s := range v {
		h = mix(h, maphash.String(stringSeed, s))
	}
	return h
}

// attributes is the build's list equal to *p, p itself when it is the
// first.
func (in *interner) attributes(h uint64, p *[]attribute) *[]attribute {
	if p == nil {
		return nil
	}
	got, ok := in.attrs[h]
	if ok && slices.Equal(*got, *p) {
		return got
	}
	if !ok {
		in.attrs[h] = p
	}
	return p
}

func hashAttributes(p *[]attribute) uint64 {
	if p == nil {
		return 0
	}
	v := *p
	h := uint64(len(v))
	for _, a := range v {
		h = mix(mix(mix(h, maphash.String(stringSeed, a.key)), maphash.String(stringSeed, a.label)), maphash.String(stringSeed, a.local))
	}
	return h
}

func hashWindows(v []window) uint64 {
	h := uint64(len(v))
	for _, w := range v {
		var flags uint64
		for i, b := range []bool{w.hasSale, w.below, w.hasFrom, w.hasTo} {
			if b {
				flags |= 1 << i
			}
		}
		h = mix(mix(mix(h, flags), uint64(w.from)), uint64(w.to))
	}
	return h
}

// share is the build's list equal to v with v's hash h: v (a copy of it
// when v is scratch) when it is the first, capped at its length, so that
// an append by a reader copies it rather than writing into the shared
// array. An empty list is v itself.
func share[T comparable](m map[uint64][]T, h uint64, v []T, scratch bool) []T {
	if len(v) == 0 {
		return v
	}
	got, ok := m[h]
	if ok && slices.Equal(got, v) {
		return got
	}
	if scratch {
		v = append(make([]T, 0, len(v)), v...)
	}
	v = v[:len(v):len(v)]
	if !ok {
		m[h] = v
	}
	return v
}

func (in *interner) price(p *string) *string {
	if p == nil {
		return nil
	}
	if got, ok := in.prices[*p]; ok {
		return got
	}
	in.prices[*p] = p
	return p
}

// packer makes an item's short texts substrings of one string: one object
// for the collector to mark where there would be up to six, made in a buffer
// the core reuses, so that the texts made for it (a URL, an image's) are
// not garbage too. The description, most of an item's bytes and one
// object already, is left alone: copying it would cost a build much time
// and as much garbage again as the descriptions.
type packer struct {
	b    []byte
	ends []int // of each text in b; the item keeps them (item.cut)
}

func (p *packer) start() { p.b, p.ends = p.b[:0], p.ends[:0] }

// add appends a text.
func (p *packer) add(s string) {
	p.b = append(p.b, s...)
	p.end()
}

// end ends the text appended to b directly.
func (p *packer) end() { p.ends = append(p.ends, len(p.b)) }
