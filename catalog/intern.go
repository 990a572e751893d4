package catalog

import (
	"encoding/binary"
	"sync"
)

// interner makes the items of one build share their equal read-only
// values: the term lists, category and framework lists, sale windows and
// formatted prices that most products have in common with others. A
// shared value is one object where there were as many as products; the
// collector marks every object of the snapshot at every cycle, and at
// 100 000 products the snapshot held 1.8 million of them, 19 a product,
// whose marking slowed the requests a cycle overlapped.
//
// Items never change a value once built (a change to a product builds a
// new item), so sharing is safe. The cores building items intern them
// as they go (items): an interner locks.
type interner struct {
	ints    map[string][]int64
	strs    map[string][]string
	windows map[string][]window
	prices  map[string]*string
	key     []byte
	mu      sync.Mutex
}

func newInterner() *interner {
	return &interner{ints: map[string][]int64{}, strs: map[string][]string{},
		windows: map[string][]window{}, prices: map[string]*string{}}
}

// item replaces the item's shareable values by the build's copies. Its
// category and framework lists and its windows are the builder's scratch:
// a list no item had before is copied; its terms are the rows' own, kept.
// Safe for concurrent use: the cores building items intern them as they
// go, which a build did after each chunk on one core.
func (in *interner) item(it *item) {
	in.mu.Lock()
	defer in.mu.Unlock()
	it.ttids = in.int64s(it.ttids, false)
	it.catIDs = in.int64s(it.catIDs, true)
	it.cats = in.strings(it.cats)
	it.fws = in.strings(it.fws)
	it.windows = in.windowList(it.windows)
	it.price = in.price(it.price)
	it.regular = in.price(it.regular)
}

func (in *interner) int64s(v []int64, scratch bool) []int64 {
	if len(v) == 0 {
		return v
	}
	in.key = in.key[:0]
	for _, n := range v {
		in.key = binary.AppendVarint(in.key, n)
	}
	return share(in.ints, in.key, v, scratch)
}

func (in *interner) strings(v []string) []string {
	if len(v) == 0 {
		return v
	}
	// Each slug with its length before it: the slugs are read as stored,
	// and one holding a separator ("a\x00b") must not pass for two.
	in.key = in.key[:0]
	for _, s := range v {
		in.key = append(binary.AppendUvarint(in.key, uint64(len(s))), s...)
	}
	return share(in.strs, in.key, v, true)
}

func (in *interner) windowList(v []window) []window {
	if len(v) == 0 {
		return v
	}
	in.key = in.key[:0]
	for _, w := range v {
		var flags byte
		for i, b := range []bool{w.hasSale, w.below, w.hasFrom, w.hasTo} {
			if b {
				flags |= 1 << i
			}
		}
		in.key = binary.AppendVarint(binary.AppendVarint(append(in.key, flags), w.from), w.to)
	}
	return share(in.windows, in.key, v, true)
}

// share is the build's list with the key, v (a copy of it when v is
// scratch) when it is the first: capped at its length, so that an append
// by a reader copies it rather than writing into the shared array.
func share[T any](m map[string][]T, key []byte, v []T, scratch bool) []T {
	if got, ok := m[string(key)]; ok {
		return got
	}
	if scratch {
		v = append(make([]T, 0, len(v)), v...)
	}
	v = v[:len(v):len(v)]
	m[string(key)] = v
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
// for the collector to mark where there were up to six, made in a buffer
// the core reuses, so that the texts made for it (a URL, an image's) are
// not garbage too. The description, most of an item's bytes and one
// object already, is left alone: copying it cost the 100k build a quarter
// of a second and as much garbage again as the descriptions.
type packer struct {
	b    []byte
	ends []int // of each text in b
}

func (p *packer) start() { p.b, p.ends = p.b[:0], p.ends[:0] }

// add appends a text.
func (p *packer) add(s string) {
	p.b = append(p.b, s...)
	p.end()
}

// end ends the text appended to b directly.
func (p *packer) end() { p.ends = append(p.ends, len(p.b)) }

// cut is the i-th text in all, the string of b.
func (p *packer) cut(all string, i int) string {
	from := 0
	if i > 0 {
		from = p.ends[i-1]
	}
	return all[from:p.ends[i]]
}
