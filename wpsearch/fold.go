package wpsearch

import "unicode/utf8"

//go:generate go run ./internal/collgen fold_table.go

// foldRun is a run of code points folded alike: lo folds to to, lo+1 to
// to+step, and so on to hi (step is 0 or 1).
type foldRun struct{ lo, hi, to, step rune }

// pageBits is the size of foldPages' pages: 256 code points.
const pageBits = 8

var (
	// foldPages holds, for each page of code points with any fold, every
	// code point's representative; a nil page folds nothing.
	foldPages [(utf8.MaxRune >> pageBits) + 1]*[1 << pageBits]rune
	// asciiFold is ASCII's representatives, ASCII all: a class's lowest
	// code point is never above its member.
	asciiFold [utf8.RuneSelf]byte
)

func init() {
	for _, r := range foldRuns {
		for cp := r.lo; cp <= r.hi; cp++ {
			p := foldPages[cp>>pageBits]
			if p == nil {
				p = new([1 << pageBits]rune)
				base := cp &^ (1<<pageBits - 1)
				for i := range p {
					p[i] = base + rune(i)
				}
				foldPages[cp>>pageBits] = p
			}
			p[cp&(1<<pageBits-1)] = r.to + r.step*(cp-r.lo)
		}
	}
	for c := range asciiFold {
		asciiFold[c] = byte(foldRune(rune(c)))
	}
}

// foldRune is r's representative: the lowest code point LIKE finds equal
// to r under utf8mb4_unicode_520_ci.
func foldRune(r rune) rune {
	if uint32(r) > utf8.MaxRune {
		return r
	}
	if p := foldPages[r>>pageBits]; p != nil {
		return p[r&(1<<pageBits-1)]
	}
	return r
}

// Fold appends s to dst with each character replaced by its class's
// representative under utf8mb4_unicode_520_ci, as MariaDB's LIKE compares
// characters: one by one, by their collation weights, so case and accents
// fold (é, É and e are one class) but ß stays apart from "ss" and a
// combining accent stays a character of its own (it joins the class of
// the characters the collation ignores, whose representative is U+0000).
// So text LIKE '%t%' holds exactly when bytes.Contains(Fold(text), Fold(t)).
//
// A byte that does not start valid UTF-8 is copied as it is. MariaDB
// stores no such byte but the surrogates' encodings (U+D800 to U+DFFF),
// each a character equal only to itself in LIKE, as the copied bytes are.
func Fold(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, asciiFold[c])
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, c)
			i++
			continue
		}
		dst = utf8.AppendRune(dst, foldRune(r))
		i += n
	}
	return dst
}
