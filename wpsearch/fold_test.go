package wpsearch

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// likeCases are what MariaDB's LIKE answers under utf8mb4_unicode_520_ci
// for text LIKE '%pattern%'; the database oracle (TestFoldAgreesWithLike)
// asks the server the same.
var likeCases = []struct {
	name, text, pattern string
	want                bool
}{
	{"accents and case fold", "Pêche Melba", "peche", true},
	{"upper case with accents", "PÊCHE", "pêche", true},
	{"lower finds upper", "Pêche", "PECHE", true},
	{"ß is not ss", "Großes Zelt", "grosses", false},
	{"ss is not ß", "Grosses Zelt", "großes", false},
	{"ß finds ß", "Großes Zelt", "GROß", true},
	{"capital sharp s is ß", "GROẞES", "großes", true},
	{"ligature fi is not f i", "ﬁlter", "filter", false},
	{"ligature fi finds itself", "ﬁlter", "ﬁl", true},
	{"ligature ae is its own letter", "Æsir", "aesir", false},
	{"æ and Æ are one", "æsir", "ÆSIR", true},
	{"full-width letters are ASCII's", "ＡＢＣ ｄｅｆ", "abc def", true},
	{"Turkish dotless ı is not i", "kırmızı", "kirmizi", false},
	{"Turkish dotted İ is I", "İstanbul", "istanbul", true},
	{"a combining accent is a character of its own", "pe\u0301che", "peche", false},
	{"precomposed é does not find e and an accent", "pêche", "pe\u0302che", false},
	{"combining accents are all alike", "e\u0301", "e\u0300", true},
	{"no-break space is a space", "red\u00a0wine", "red wine", true},
	{"percent is literal", "100% cotton", "0% c", true},
	{"underscore is literal", "snake_case", "e_c", true},
	{"underscore is not a wildcard", "snakeXcase", "e_c", false},
	{"backslash is literal", `C:\shop`, `:\s`, true},
	{"trailing space counts", "ab", "ab ", false},
	{"Kelvin sign is K", "5 \u212a", "5 k", true},
	{"Greek final sigma is sigma", "λόγος", "ΛΟΓΟΣ", true},
	{"Cyrillic е is not Latin e", "тест", "tect", false},
	{"mathematical bold A is A", "𝐀", "a", true},
	{"Kangxi radical is not its ideograph", "⼀", "一", false},
	{"emoji finds itself", "I ❤️ 😀 tea", "😀 TEA", true},
	{"superscript two is 2", "m²", "m2", true},
	{"empty pattern finds all", "anything", "", true},
}

func TestFoldNamedCases(t *testing.T) {
	for _, tt := range likeCases {
		t.Run(tt.name, func(t *testing.T) {
			got := bytes.Contains(Fold(nil, tt.text), Fold(nil, tt.pattern))
			if got != tt.want {
				t.Errorf("Fold(%q) holds Fold(%q): %v, LIKE says %v (%q, %q)", tt.text, tt.pattern, got, tt.want,
					Fold(nil, tt.text), Fold(nil, tt.pattern))
			}
		})
	}
}

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"Hello, World 42!", "HELLO, WORLD 42!"},
		{"Pêche", "PECHE"},
		{"straße", "STRAßE"},
		{"ＡＢＣ", "ABC"},
		{"e\u0301", "E\x00"},
		{"\xff\xfeA", "\xff\xfeA"},           // bytes of no character, copied
		{"a\xed\xa0\x80b", "A\xed\xa0\x80B"}, // a surrogate, as MariaDB may store one
		{"日本", "日本"},
	}
	for _, tt := range tests {
		if got := string(Fold(nil, tt.in)); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := string(Fold([]byte("x:"), "é")); got != "x:E" {
		t.Errorf("Fold appends: got %q", got)
	}
}

// TestFoldTableInvariants: every run folds to a lower code point that
// represents itself, within Unicode.
func TestFoldTableInvariants(t *testing.T) {
	prev := rune(-1)
	for _, r := range foldRuns {
		if r.lo <= prev || r.hi < r.lo || (r.step != 0 && r.step != 1) {
			t.Fatalf("run %+v out of order or malformed", r)
		}
		prev = r.hi
		for cp := r.lo; cp <= r.hi; cp++ {
			to := foldRune(cp)
			if to >= cp || foldRune(to) != to || !utf8.ValidRune(to) {
				t.Fatalf("%U folds to %U (which folds to %U)", cp, to, foldRune(to))
			}
		}
	}
}

func FuzzFold(f *testing.F) {
	for _, c := range likeCases {
		f.Add(c.text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Fold(nil, s)
		if utf8.ValidString(s) && !utf8.Valid(got) {
			t.Fatalf("Fold(%q) = %q: not UTF-8", s, got)
		}
		if again := Fold(nil, string(got)); !bytes.Equal(again, got) {
			t.Fatalf("Fold(%q) = %q, folded again %q", s, got, again)
		}
	})
}

func BenchmarkFold(b *testing.B) {
	for _, bb := range []struct{ name, s string }{
		{"ascii", "<p>A sturdy tent for two, with a porch and a groundsheet.</p>"},
		{"accents", "<p>Une tente robuste pour deux, avec un auvent et un tapis de sol épais.</p>"},
	} {
		b.Run(bb.name, func(b *testing.B) {
			var dst []byte
			b.SetBytes(int64(len(bb.s)))
			for b.Loop() {
				dst = Fold(dst[:0], bb.s)
			}
		})
	}
}
