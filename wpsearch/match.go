package wpsearch

import "bytes"

// Match says whether a post whose folded (Fold) title, excerpt and content
// are given is found by the search: every term held by one of the three,
// no excluded term held by any. Without a search every post matches.
func (q Query) Match(title, excerpt, content []byte) bool {
	if q.invalid {
		return false
	}
	for _, t := range q.Terms {
		held := bytes.Contains(title, t.Pattern) || bytes.Contains(excerpt, t.Pattern) ||
			bytes.Contains(content, t.Pattern)
		if held == t.Exclude {
			return false
		}
	}
	return true
}

// Rank is the value WordPress orders the search's results by before their
// date (lower first), for a post's folded title, excerpt and content. A
// search of one piece: 0 when the title holds the term, 1 otherwise.
// Longer ones rank as parse_search_order's CASE: 1 the title holds the
// whole search, 2 the title holds every term, 3 the title holds a term
// (only with two or more terms; 2 and 3 only with fewer than seven), 4 the
// excerpt holds the whole search, 5 the content does, 6 none of these.
// Where WordPress adds no relevance order (Ranks is false) every post
// ranks 0.
func (q Query) Rank(title, excerpt, content []byte) int {
	switch q.order {
	case orderTitle:
		if bytes.Contains(title, q.Terms[0].Pattern) {
			return 0
		}
		return 1
	case orderCase:
		return q.caseRank(title, excerpt, content)
	}
	return 0
}

func (q Query) caseRank(title, excerpt, content []byte) int {
	if q.Sentence != nil && bytes.Contains(title, q.Sentence) {
		return 1
	}
	positive, inTitle := 0, 0
	for _, t := range q.Terms {
		if !t.Exclude {
			positive++
			if bytes.Contains(title, t.Pattern) {
				inTitle++
			}
		}
	}
	if positive < 7 {
		if inTitle == positive {
			return 2
		}
		if positive > 1 && inTitle > 0 {
			return 3
		}
	}
	if q.Sentence != nil {
		if bytes.Contains(excerpt, q.Sentence) {
			return 4
		}
		if bytes.Contains(content, q.Sentence) {
			return 5
		}
	}
	return 6
}
