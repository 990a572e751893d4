package catalog

import (
	"bytes"
	"math/bits"
	"sync"
	"unicode/utf8"
	"unsafe"

	"catalogd/wpsearch"
)

// A search finds what WordPress's search (wpsearch) finds among the
// searchable products: each term held by the product's title, excerpt or
// content as stored, compared as the database's LIKE compares them. The
// texts many products share are read once per term (searchTexts), a
// product's title once.

// memos remember, for one term, whether each distinct text holds it:
// 0 not read yet, 1 no, 2 yes.
var memos sync.Pool

func memo(n int) *[]uint8 {
	if m, ok := memos.Get().(*[]uint8); ok && cap(*m) >= n {
		*m = (*m)[:n]
		clear(*m)
		return m
	}
	m := make([]uint8, n)
	return &m
}

// holds reports whether text i of the memo's holds pattern, reading it
// the first time only.
func holds(m []uint8, i uint32, text func(uint32) string, pattern []byte) bool {
	switch m[i] {
	case 1:
		return false
	case 2:
		return true
	}
	t := text(i)
	in := bytes.Contains(unsafe.Slice(unsafe.StringData(t), len(t)), pattern)
	m[i] = 1
	if in {
		m[i] = 2
	}
	return in
}

// matchSearch keeps of set the products the search q (parsed from raw)
// finds. A search not in UTF-8 finds nothing: WordPress's database layer
// refuses its query.
func (s *Snapshot) matchSearch(q *wpsearch.Query, raw string, set bitset) {
	if !utf8.ValidString(raw) {
		clear(set)
		return
	}
	x := s.searchTexts()
	ex := memo(len(x.excerpts) + len(x.moreExcerpts))
	co := memo(len(x.contents) + len(x.moreContents))
	defer memos.Put(ex)
	defer memos.Put(co)
	for ti, t := range q.Terms {
		if ti > 0 {
			clear(*ex)
			clear(*co)
		}
		for wi, w := range set {
			for rest := w; rest != 0; rest &= rest - 1 {
				b := bits.TrailingZeros64(rest)
				pos := wi*64 + b
				held := holds(*co, x.contentOf[pos], x.content, t.Pattern) ||
					holds(*ex, x.excerptOf[pos], x.excerpt, t.Pattern) ||
					bytes.Contains(x.title(pos), t.Pattern)
				if held == t.Exclude {
					w &^= 1 << b
				}
			}
			set[wi] = w
		}
	}
}

// ranks writes into rank the relevance WordPress orders the search's
// results by (wpsearch.Query.Rank) of each product in set. What a rank
// reads of an excerpt or a content, whether it holds the whole search, is
// read once per distinct text, and Rank handed the search itself for a
// text that holds it, nothing for one that does not.
func (s *Snapshot) ranks(q *wpsearch.Query, set bitset, rank []uint8) {
	x := s.searchTexts()
	ex := memo(len(x.excerpts) + len(x.moreExcerpts))
	co := memo(len(x.contents) + len(x.moreContents))
	defer memos.Put(ex)
	defer memos.Put(co)
	standIn := func(in bool) []byte {
		if in {
			return q.Sentence
		}
		return nil
	}
	for wi, w := range set {
		for ; w != 0; w &= w - 1 {
			pos := wi*64 + bits.TrailingZeros64(w)
			var exIn, coIn bool
			if q.Sentence != nil {
				exIn = holds(*ex, x.excerptOf[pos], x.excerpt, q.Sentence)
				coIn = holds(*co, x.contentOf[pos], x.content, q.Sentence)
			}
			rank[pos] = uint8(q.Rank(x.title(pos), standIn(exIn), standIn(coIn)))
		}
	}
}

// relevancePage returns the positions of the page from the offset-th on,
// at most limit, by relevance: rank, then post_date and ID descending
// (WordPress adds post_date DESC; the ID breaks ties as the date sort's).
func (s *Snapshot) relevancePage(q *wpsearch.Query, sel bitset, offset, limit int) []int {
	if !q.Ranks() {
		return walk(s.order(orderDate), true, sel, offset, limit)
	}
	rank := memo(len(s.served))
	defer memos.Put(rank)
	s.ranks(q, sel, *rank)
	var counts [256]int
	for wi, w := range sel {
		for ; w != 0; w &= w - 1 {
			counts[(*rank)[wi*64+bits.TrailingZeros64(w)]]++
		}
	}
	out := make([]int, 0, min(limit, 128))
	date := s.order(orderDate)
	for r := range counts {
		if len(out) == limit {
			break
		}
		if offset >= counts[r] {
			offset -= counts[r]
			continue
		}
		for i := len(date) - 1; i >= 0 && len(out) < limit; i-- {
			pos := int(date[i])
			if !sel.has(pos) || (*rank)[pos] != uint8(r) {
				continue
			}
			if offset > 0 {
				offset--
				continue
			}
			out = append(out, pos)
		}
	}
	return out
}
