package catalog

import "unsafe"

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
	// excerpts and contents are the distinct texts; an index past their
	// end is one of moreExcerpts, moreContents: a patch's.
	excerpts, contents         []string
	moreExcerpts, moreContents []string
	excerptOf, contentOf       []uint32
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
			excerptOf: make([]uint32, n), contentOf: make([]uint32, n)}
		ex := textIndex{of: map[textID]uint32{}, list: &x.excerpts}
		co := textIndex{of: map[textID]uint32{}, list: &x.contents}
		for pos, it := range s.served {
			x.titleStart[pos] = uint32(len(x.titles))
			x.titles = append(x.titles, it.searchTitle()...)
			x.titleEnd[pos] = uint32(len(x.titles))
			x.excerptOf[pos] = ex.add(it.searchExcerpt)
			x.contentOf[pos] = co.add(it.searchContent)
		}
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
	d := &searchTexts{titles: x.titles, excerpts: x.excerpts, contents: x.contents,
		more: append([]byte(nil), x.more...), moreExcerpts: append([]string(nil), x.moreExcerpts...),
		moreContents: append([]string(nil), x.moreContents...),
		titleStart:   clone32(x.titleStart), titleEnd: clone32(x.titleEnd),
		excerptOf: clone32(x.excerptOf), contentOf: clone32(x.contentOf)}
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
