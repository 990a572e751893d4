package catalog

import (
	"encoding/binary"
	"strings"
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
// new item), so sharing is safe. Not safe for concurrent use: items
// are built in parallel and interned one after another (items).
type interner struct {
	ints    map[string][]int64
	strs    map[string][]string
	windows map[string][]window
	prices  map[string]*string
	key     []byte
}

func newInterner() *interner {
	return &interner{ints: map[string][]int64{}, strs: map[string][]string{},
		windows: map[string][]window{}, prices: map[string]*string{}}
}

// item replaces the item's shareable values by the build's copies, and
// puts its own texts in one allocation.
func (in *interner) item(it *item) {
	in.pack(it)
	it.ttids = in.int64s(it.ttids)
	it.catIDs = in.int64s(it.catIDs)
	it.cats = in.strings(it.cats)
	it.fws = in.strings(it.fws)
	it.windows = in.windowList(it.windows)
	it.price = in.price(it.price)
	it.regular = in.price(it.regular)
}

func (in *interner) int64s(v []int64) []int64 {
	if len(v) == 0 {
		return v
	}
	in.key = in.key[:0]
	for _, n := range v {
		in.key = binary.AppendVarint(in.key, n)
	}
	return share(in.ints, in.key, v)
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
	return share(in.strs, in.key, v)
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
	return share(in.windows, in.key, v)
}

// share is the build's list with the key, v when it is the first: capped
// at its length, so that an append by a reader copies it rather than
// writing into the shared array.
func share[T any](m map[string][]T, key []byte, v []T) []T {
	if got, ok := m[string(key)]; ok {
		return got
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

// pack makes the item's short texts substrings of one string: one object
// for the collector to mark where there were up to six, at the cost of a
// copy of a few hundred bytes. The description, most of an item's bytes
// and one object already, is left alone: copying it cost the 100k build a
// quarter of a second and as much garbage again as the descriptions.
func (in *interner) pack(it *item) {
	short := it.listSummary != it.summary // else one string, kept as one
	fields := []*string{&it.slug, &it.name, &it.url, &it.image, &it.summary}
	if short {
		fields = append(fields, &it.listSummary)
	}
	var b strings.Builder
	n := 0
	for _, f := range fields {
		n += len(*f)
	}
	b.Grow(n)
	for _, f := range fields {
		b.WriteString(*f)
	}
	all := b.String()
	off := 0
	for _, f := range fields {
		*f = all[off : off+len(*f)]
		off += len(*f)
	}
	if !short {
		it.listSummary = it.summary
	}
}
