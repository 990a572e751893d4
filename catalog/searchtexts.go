package catalog

import (
	"bytes"
	"math/bits"
	"slices"
	"strings"
	"unsafe"
)

// searchTexts are what a search reads of the served products, laid out
// for it: their folded titles end to end, and their folded excerpts and
// contents as lists of distinct texts, each product's by index, so that a
// search reads a text many products share (a shop's boilerplate) once
// per term, and no item. Made on the first search of a snapshot; a
// patched snapshot derives them from its parent's (derive).
type searchTexts struct {
	// titles holds every product's title; a product's runs from
	// titleStart to titleEnd. Past its end they are in more: a patch's.
	titles, more         []byte
	titleStart, titleEnd []uint32
	// inTitles are the ends of every product's title in titles, as made
	// (shared, never patched); patched are the positions whose title is
	// in more instead.
	inTitles []uint32
	patched  []int32
	// excerpts and contents are the distinct texts; an index past their
	// end is one of moreExcerpts, moreContents: a patch's.
	excerpts, contents         []string
	moreExcerpts, moreContents []string
	excerptOf, contentOf       []uint32
	// excerptsAt and contentsAt are where each distinct text is, as made
	// (shared; a patched position is looked at on its own).
	excerptsAt, contentsAt postings
}

// postings are the positions of each of a list of distinct texts: a set
// for a text many products share, else the positions listed, those of
// text i from start[i] to start[i+1].
type postings struct {
	start []uint32
	pos   []int32
	sets  map[uint32]bitset
}

// makePostings lays out the positions of each text, by its index in of.
func makePostings(of []uint32, texts int) postings {
	n := len(of)
	p := postings{start: make([]uint32, texts+1), sets: map[uint32]bitset{}}
	for _, i := range of {
		p.start[i+1]++
	}
	for i := range texts {
		if p.start[i+1] > uint32(n/64) { // a set is the smaller
			p.sets[uint32(i)] = newBitset(n)
			p.start[i+1] = 0
		}
		p.start[i+1] += p.start[i]
	}
	p.pos = make([]int32, p.start[texts])
	fill := slices.Clone(p.start[:texts])
	for pos, i := range of {
		if b, ok := p.sets[i]; ok {
			b.set(pos)
			continue
		}
		p.pos[fill[i]] = int32(pos)
		fill[i]++
	}
	return p
}

// orInto adds text i's positions to dst.
func (p *postings) orInto(dst bitset, i uint32) {
	if b, ok := p.sets[i]; ok {
		dst.orInto(b)
		return
	}
	for _, pos := range p.pos[p.start[i]:p.start[i+1]] {
		dst.set(int(pos))
	}
}

func (x *searchTexts) title(pos int) []byte {
	from, to := x.titleStart[pos], x.titleEnd[pos]
	if n := uint32(len(x.titles)); from >= n {
		return x.more[from-n : to-n]
	}
	return x.titles[from:to]
}

func (x *searchTexts) excerpt(i uint32) string { return part(x.excerpts, x.moreExcerpts, i) }
func (x *searchTexts) content(i uint32) string { return part(x.contents, x.moreContents, i) }

func part(base, more []string, i uint32) string {
	if n := uint32(len(base)); i >= n {
		return more[i-n]
	}
	return base[i]
}

// textIndex numbers distinct texts by identity: the interner gives the
// products with equal texts one string, so comparing where they point
// finds the shared ones without reading them.
type textIndex struct {
	of   map[textID]uint32
	list *[]string
}

type textID struct {
	p *byte
	n int
}

func (t *textIndex) add(s string) uint32 {
	id := textID{unsafe.StringData(s), len(s)}
	if i, ok := t.of[id]; ok {
		return i
	}
	i := uint32(len(*t.list))
	*t.list = append(*t.list, s)
	t.of[id] = i
	return i
}

// searchTexts returns s's search texts, made on first use.
func (s *Snapshot) searchTexts() *searchTexts {
	return s.find.texts.get(func() *searchTexts {
		n := len(s.served)
		size := 0
		for _, it := range s.served {
			size += len(it.searchTitle())
		}
		x := &searchTexts{titles: make([]byte, 0, size), titleStart: make([]uint32, n), titleEnd: make([]uint32, n),
			inTitles:  make([]uint32, n),
			excerptOf: make([]uint32, n), contentOf: make([]uint32, n)}
		ex := textIndex{of: map[textID]uint32{}, list: &x.excerpts}
		co := textIndex{of: map[textID]uint32{}, list: &x.contents}
		for pos, it := range s.served {
			x.titleStart[pos] = uint32(len(x.titles))
			x.titles = append(x.titles, it.searchTitle()...)
			x.titleEnd[pos] = uint32(len(x.titles))
			x.inTitles[pos] = x.titleEnd[pos]
			x.excerptOf[pos] = ex.add(it.searchExcerpt)
			x.contentOf[pos] = co.add(it.searchContent)
		}
		x.excerptsAt = makePostings(x.excerptOf, len(x.excerpts))
		x.contentsAt = makePostings(x.contentOf, len(x.contents))
		return x
	})
}

// derive is x for n, a snapshot whose products at the positions changed
// replace its parent's: their titles and texts go into n's own additions,
// the rest is shared. Nil when the additions would grow too large a part
// (the replaced texts stay in what is shared): n makes its texts anew.
func (x *searchTexts) derive(n *Snapshot, changed []int32) *searchTexts {
	if len(x.moreExcerpts)+len(changed) > len(x.titleStart)/8+64 {
		return nil
	}
	d := &searchTexts{titles: x.titles, inTitles: x.inTitles, excerpts: x.excerpts, contents: x.contents,
		excerptsAt: x.excerptsAt, contentsAt: x.contentsAt,
		more: append([]byte(nil), x.more...), moreExcerpts: append([]string(nil), x.moreExcerpts...),
		moreContents: append([]string(nil), x.moreContents...),
		titleStart:   clone32(x.titleStart), titleEnd: clone32(x.titleEnd),
		excerptOf: clone32(x.excerptOf), contentOf: clone32(x.contentOf)}
	d.patched = append(slices.Clone(x.patched), changed...)
	slices.Sort(d.patched)
	d.patched = slices.Compact(d.patched)
	for _, pos := range changed {
		it := n.served[pos]
		d.titleStart[pos] = uint32(len(d.titles) + len(d.more))
		d.more = append(d.more, it.searchTitle()...)
		d.titleEnd[pos] = uint32(len(d.titles) + len(d.more))
		d.excerptOf[pos] = uint32(len(d.excerpts) + len(d.moreExcerpts))
		d.moreExcerpts = append(d.moreExcerpts, it.searchExcerpt)
		d.contentOf[pos] = uint32(len(d.contents) + len(d.moreContents))
		d.moreContents = append(d.moreContents, it.searchContent)
	}
	return d
}

func clone32[T ~int32 | ~uint32](v []T) []T { return append([]T(nil), v...) }

// titlesHolding adds to dst the positions in within whose title holds
// pattern: the titles as made are scanned end to end, each occurrence
// checked and placed by the ends, which is far quicker than a search of
// each title when most are candidates; the patched ones are searched one
// by one. The scan looks for the pattern's byte seldomest in a sample of
// the titles, and checks the pattern where it is; when even that byte is
// in most titles, each title is searched instead.
func (x *searchTexts) titlesHolding(pattern []byte, within, dst bitset) {
	if len(pattern) == 0 {
		dst.orInto(within)
		return
	}
	buf := x.titles
	sample := buf[:min(len(buf), 1<<14)]
	k, seen := 0, -1
	for i := range pattern {
		if n := bytes.Count(sample, pattern[i:i+1]); seen < 0 || n < seen {
			k, seen = i, n
		}
	}
	patched := func(pos int) bool { _, found := slices.BinarySearch(x.patched, int32(pos)); return found }
	if titles := len(x.inTitles) * len(sample) / max(len(buf), 1); seen*2 > titles {
		// Even that byte is in most titles: each is searched.
		start := uint32(0)
		for pos, end := range x.inTitles {
			if within.has(pos) && bytes.Contains(buf[start:end], pattern) && (len(x.patched) == 0 || !patched(pos)) {
				dst.set(pos)
			}
			start = end
		}
	} else {
		x.titlesScan(pattern, k, within, dst, patched)
	}
	for _, pos := range x.patched {
		if within.has(int(pos)) && bytes.Contains(x.title(int(pos)), pattern) {
			dst.set(int(pos))
		}
	}
}

// titlesScan is titlesHolding's scan for the pattern's k-th byte.
func (x *searchTexts) titlesScan(pattern []byte, k int, within, dst bitset, patched func(int) bool) {
	buf := x.titles
	c, n := pattern[k], len(pattern)
	pos, off := 0, 0
	for off < len(buf) {
		i := bytes.IndexByte(buf[off+k:], c)
		if i < 0 {
			break
		}
		at := off + i // where the pattern would start
		if at+n > len(buf) {
			break
		}
		if !bytes.Equal(buf[at:at+n], pattern) {
			off = at + 1
			continue
		}
		for x.inTitles[pos] <= uint32(at) {
			pos++
		}
		end := int(x.inTitles[pos])
		if at+n > end { // across two titles: look on
			off = at + 1
			continue
		}
		if within.has(pos) && (len(x.patched) == 0 || !patched(pos)) {
			dst.set(pos)
		}
		off = end // the next title
	}
}

// Where holders looks for a pattern.
const (
	inTitle = 1 << iota
	inExcerpt
	inContent
	inAny = inTitle | inExcerpt | inContent
)

// holders writes into dst the positions in within whose title, excerpt
// or content (those where says) holds pattern: the titles scanned end to
// end, each distinct text read once and its positions added at once.
func (x *searchTexts) holders(pattern []byte, within, dst bitset, where int) {
	clear(dst)
	// left counts those in within not found holding it yet.
	left := within.count()
	// texts adds those whose text of a list holds it: each distinct
	// text read and its positions added at once, or, when fewer are left
	// than there are texts, each left one's read (once per text).
	texts := func(list, more []string, of []uint32, at *postings) {
		if left == 0 {
			return
		}
		if len(list) <= left {
			for i, t := range list {
				if bytes.Contains(unsafe.Slice(unsafe.StringData(t), len(t)), pattern) {
					at.orInto(dst, uint32(i))
				}
			}
		} else {
			m := memo(len(list) + len(more))
			text := func(i uint32) string { return part(list, more, i) }
			for i, w := range within {
				for w &^= dst[i]; w != 0; w &= w - 1 {
					if pos := i*64 + bits.TrailingZeros64(w); holds(*m, of[pos], text, pattern) {
						dst.set(pos)
					}
				}
			}
			memos.Put(m)
		}
		left = 0
		for i := range dst {
			dst[i] &= within[i]
			left += bits.OnesCount64(within[i] &^ dst[i])
		}
	}
	// Contents first: a shop's shared description holds a word for all.
	if where&inContent != 0 {
		texts(x.contents, x.moreContents, x.contentOf, &x.contentsAt)
	}
	if where&inExcerpt != 0 {
		texts(x.excerpts, x.moreExcerpts, x.excerptOf, &x.excerptsAt)
	}
	// The titles of those whose texts do not hold it: all at once when
	// they are many, else one by one.
	switch {
	case where&inTitle == 0 || left == 0:
	case left*64 > len(x.titles):
		x.titlesHolding(pattern, within, dst)
	default:
		for i, w := range within {
			for w &^= dst[i]; w != 0; w &= w - 1 {
				if pos := i*64 + bits.TrailingZeros64(w); bytes.Contains(x.title(pos), pattern) {
					dst.set(pos)
				}
			}
		}
	}
	// A patched product's texts are its own, not the postings'.
	for _, p := range x.patched {
		pos := int(p)
		if !within.has(pos) {
			continue
		}
		held := where&inTitle != 0 && bytes.Contains(x.title(pos), pattern) ||
			where&inExcerpt != 0 && strings.Contains(x.excerpt(x.excerptOf[pos]), string(pattern)) ||
			where&inContent != 0 && strings.Contains(x.content(x.contentOf[pos]), string(pattern))
		if held {
			dst.set(pos)
		} else {
			dst.clear(pos)
		}
	}
}
