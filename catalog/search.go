package catalog

import (
	"bytes"
	"cmp"
	"math/bits"
	"slices"
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
// refuses its query. The terms are taken longest first, exclusions last:
// the products left after a rare term are few, and each later term reads
// theirs only.
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
	terms := slices.Clone(q.Terms)
	slices.SortStableFunc(terms, func(a, b wpsearch.Term) int {
		if a.Exclude != b.Exclude {
			if a.Exclude {
				return 1
			}
			return -1
		}
		return cmp.Compare(len(b.Pattern), len(a.Pattern))
	})
	var held *bitset
	defer func() {
		if held != nil {
			scratchSets.Put(held)
		}
	}()
	for ti, t := range terms {
		left := set.count()
		if left == 0 {
			return
		}
		// Many products left: the texts are scanned whole, each once, and
		// whose they are added at once.
		if left*64 > len(x.titles) {
			if held == nil {
				held = scratchSet(len(s.served))
			}
			x.holders(t.Pattern, set, *held, inAny)
			for i := range set {
				if t.Exclude {
					set[i] &^= (*held)[i]
				} else {
					set[i] &= (*held)[i]
				}
			}
			continue
		}
		if ti > 0 {
			clear(*ex)
			clear(*co)
		}
		for wi, w := range set {
			for rest := w; rest != 0; rest &= rest - 1 {
				b := bits.TrailingZeros64(rest)
				pos := wi*64 + b
				held := bytes.Contains(x.title(pos), t.Pattern) ||
					holds(*co, x.contentOf[pos], x.content, t.Pattern) ||
					holds(*ex, x.excerptOf[pos], x.excerpt, t.Pattern)
				if held == t.Exclude {
					w &^= 1 << b
				}
			}
			set[wi] = w
		}
	}
}

// ranks writes into rank the relevance WordPress orders the search's
// results by (wpsearch.Query.Rank) of each product in set. A rank reads
// whether the title holds each term and the whole search, and whether the
// excerpt and the content hold the whole search: those are found for all
// products at once (holders), and Rank is asked once for each
// combination of them, of stand-ins holding just that: the terms the
// title holds, and the whole search if it does, each apart (a byte no
// UTF-8 text has between them); the search itself for an excerpt or a
// content that holds it, nothing for one that does not.
func (s *Snapshot) ranks(q *wpsearch.Query, set bitset, rank []uint8) {
	x := s.searchTexts()
	var facts []*bitset // per positive term, then the search in the title, excerpt, content
	defer func() {
		for _, b := range facts {
			scratchSets.Put(b)
		}
	}()
	fact := func(pattern []byte, where int) {
		b := scratchSet(len(s.served))
		if pattern == nil {
			clear(*b)
		} else {
			x.holders(pattern, set, *b, where)
		}
		facts = append(facts, b)
	}
	var positive [][]byte
	for _, t := range q.Terms {
		if !t.Exclude {
			positive = append(positive, t.Pattern)
		}
	}
	if len(positive) > wpsearchMaxTerms { // none Parse makes: each product's own texts
		for wi, w := range set {
			for ; w != 0; w &= w - 1 {
				pos := wi*64 + bits.TrailingZeros64(w)
				rank[pos] = uint8(q.Rank(x.title(pos), []byte(x.excerpt(x.excerptOf[pos])), []byte(x.content(x.contentOf[pos]))))
			}
		}
		return
	}
	for _, p := range positive {
		fact(p, inTitle)
	}
	fact(q.Sentence, inTitle)
	fact(q.Sentence, inExcerpt)
	fact(q.Sentence, inContent)
	// The rank of each combination, +1 (0: not asked yet).
	var known [1 << (wpsearchMaxTerms + 3)]uint8
	var title []byte
	for wi, w := range set {
		for ; w != 0; w &= w - 1 {
			b := bits.TrailingZeros64(w)
			var sig uint32
			for i, f := range facts {
				if (*f)[wi]&(1<<b) != 0 {
					sig |= 1 << i
				}
			}
			r := known[sig]
			if r == 0 {
				title = title[:0]
				for i, p := range positive {
					if sig&(1<<i) != 0 {
						title = append(append(title, p...), 0xff)
					}
				}
				has := func(i int) bool { return sig&(1<<(len(positive)+i)) != 0 }
				if has(0) {
					title = append(title, q.Sentence...)
				}
				r = uint8(q.Rank(title, standIn(q, has(1)), standIn(q, has(2)))) + 1
				known[sig] = r
			}
			rank[wi*64+b] = r - 1
		}
	}
}

// wpsearchMaxTerms is the most terms a search has (WordPress matches at
// most nine one by one; more are one term).
const wpsearchMaxTerms = 9

// standIn is an excerpt or content that holds the whole search, or not.
func standIn(q *wpsearch.Query, holds bool) []byte {
	if holds {
		return q.Sentence
	}
	return nil
}

// relevancePage returns the positions of the page from the offset-th on,
// at most limit, by relevance: rank, then post_date descending, then ID
// ascending (WordPress adds post_date DESC and no more; MariaDB returns
// the rows it leaves tied in the table's order, wpsearch's oracle shows).
func (s *Snapshot) relevancePage(q *wpsearch.Query, sel bitset, offset, limit int) []int {
	rank := memo(len(s.served))
	defer memos.Put(rank)
	if q.Ranks() {
		s.ranks(q, sel, *rank)
	} else {
		clear(*rank) // WordPress orders such a search by date alone
	}
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
		// Newest date first, and within one date the lowest ID first: the
		// date order's runs of equal dates walked forwards.
		for end := len(date); end > 0 && len(out) < limit; {
			d := s.served[date[end-1]].rank.date
			start := end - 1
			for start > 0 && s.served[date[start-1]].rank.date == d {
				start--
			}
			for _, p := range date[start:end] {
				pos := int(p)
				if len(out) == limit || !sel.has(pos) || (*rank)[pos] != uint8(r) {
					continue
				}
				if offset > 0 {
					offset--
					continue
				}
				out = append(out, pos)
			}
			end = start
		}
	}
	return out
}
