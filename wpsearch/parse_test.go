package wpsearch

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// terms writes a query's terms as WordPress's search_terms holds them:
// an exclusion with its '-'.
func terms(q Query) []string {
	var out []string
	for _, t := range q.Terms {
		if t.Exclude {
			out = append(out, "-"+t.Text)
		} else {
			out = append(out, t.Text)
		}
	}
	return out
}

func TestParse(t *testing.T) {
	english := Stopwords("")
	tests := []struct {
		name     string
		s        string
		terms    []string
		count    int
		sentence bool
		order    order
	}{
		{"no search", "", nil, 0, false, orderNone},
		{"one word", "tent", []string{"tent"}, 1, false, orderTitle},
		{"two words", "red tent", []string{"red", "tent"}, 2, true, orderCase},
		{"commas, plus signs and tabs split", "red,tent+blue\tsky", []string{"red", "tent", "blue", "sky"}, 4, true, orderCase},
		{"a closed phrase keeps its spaces", `" red tent " pole`, []string{" red tent ", "pole"}, 2, true, orderCase},
		{"an open phrase runs to the end, trimmed", `pole "red tent `, []string{"pole", "red tent"}, 2, true, orderCase},
		{"empty quotes are dropped", `"" tent`, []string{"tent"}, 2, true, orderCase},
		{"single quotes are trimmed", `'tent'`, []string{"tent"}, 1, false, orderTitle},
		{"a quote inside a word splits it", `red"tent"pole`, []string{"red", "tent", "pole"}, 3, true, orderCase},
		{"an exclusion", "tent -red", []string{"tent", "-red"}, 2, false, orderCase},
		{"a quoted exclusion keeps the sentence", `tent "-red"`, []string{"tent", "-red"}, 2, true, orderCase},
		{"a dash inside a word is no exclusion", "tent-pole", []string{"tent-pole"}, 1, false, orderTitle},
		{"only exclusions break the relevance order", "-red -blue", []string{"-red", "-blue"}, 2, false, orderBroken},
		{"one exclusion breaks it too", "-red", []string{"-red"}, 1, false, orderBroken},
		{"single letters and dashes are dropped", "a tent - b", []string{"tent"}, 4, false, orderCase},
		{"a single letter alone is the whole search", "a", []string{"a"}, 1, false, orderTitle},
		{"a single dash alone excludes nothing", "-", []string{"-"}, 1, false, orderBroken},
		{"a single digit stays", "7 tents", []string{"7", "tents"}, 2, true, orderCase},
		{"0 is dropped as PHP's false", "0 tents", []string{"tents"}, 2, true, orderCase},
		{"0 alone: no relevance order", "0", []string{"0"}, 1, false, orderNone},
		{"a single accented letter stays", "é", []string{"é"}, 1, false, orderTitle},
		{"stopwords are dropped", "the tent of dreams", []string{"tent", "dreams"}, 4, true, orderCase},
		{"stopwords lowered first", "THE Tent", []string{"Tent"}, 2, true, orderCase},
		{"only stopwords: the whole search", "the of", []string{"the of"}, 2, true, orderCase},
		{"ten terms: the whole search", "a1 a2 a3 a4 a5 a6 a7 a8 a9 a10",
			[]string{"a1 a2 a3 a4 a5 a6 a7 a8 a9 a10"}, 10, true, orderCase},
		{"nine terms", "a1 a2 a3 a4 a5 a6 a7 a8 a9",
			[]string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"}, 9, true, orderCase},
		{"seven terms and an exclusion: no relevance order", "a1 a2 a3 a4 a5 a6 a7 -a8",
			[]string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "-a8"}, 8, false, orderNone},
		{"whole search starting with a dash excludes it", "-a1 a2 a3 a4 a5 a6 a7 a8 a9 a10",
			[]string{"-a1 a2 a3 a4 a5 a6 a7 a8 a9 a10"}, 10, false, orderBroken},
		{"line breaks are removed", "red\r\ntent", []string{"redtent"}, 1, false, orderTitle},
		{"only line breaks: one empty term", "\n", []string{""}, 1, false, orderNone},
		{"only separators: the whole search", " , ", []string{" , "}, 1, false, orderTitle},
		{"wildcards are literal text", `100% cotton_\`, []string{"100%", `cotton_\`}, 2, true, orderCase},
		{"a dash after a vertical tab is negative", "tent\v-red pole", []string{"tent\v-red", "pole"}, 2, false, orderCase},
		{"too long once slashed: no search", strings.Repeat(`"`, 801), nil, 0, false, orderNone},
		{"as long as allowed once slashed", strings.Repeat(`"`, 800), []string{strings.Repeat(`"`, 800)}, 400, true, orderCase},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := Parse(tt.s, english)
			if got := terms(q); !slices.Equal(got, tt.terms) {
				t.Errorf("terms %q, want %q", got, tt.terms)
			}
			if q.Count != tt.count || (q.Sentence != nil) != tt.sentence || q.order != tt.order {
				t.Errorf("count %d, sentence %q, order %d; want %d, %v, %d", q.Count, q.Sentence, q.order,
					tt.count, tt.sentence, tt.order)
			}
			for _, term := range q.Terms {
				if string(term.Pattern) != string(Fold(nil, term.Text)) {
					t.Errorf("term %q: pattern %q", term.Text, term.Pattern)
				}
			}
			if q.Empty() != (tt.terms == nil) || q.RelevanceFails() != (tt.order == orderBroken) ||
				q.Ranks() != (tt.order == orderTitle || tt.order == orderCase) {
				t.Errorf("Empty %v, RelevanceFails %v, Ranks %v", q.Empty(), q.RelevanceFails(), q.Ranks())
			}
		})
	}
}

func TestMatchAndRank(t *testing.T) {
	type post struct{ title, excerpt, content string }
	tests := []struct {
		name  string
		s     string
		post  post
		match bool
		rank  int
	}{
		{"no search finds all", "", post{"Tent", "", ""}, true, 0},
		{"one term in the title", "tent", post{"Große Tent", "", ""}, true, 0},
		{"one term in the content only", "tent", post{"Shelter", "", "<p>a tent</p>"}, true, 1},
		{"one term nowhere", "tent", post{"Shelter", "roof", "walls"}, false, 1},
		{"accents fold", "PECHE", post{"Pêche", "", ""}, true, 0},
		{"ß does not find ss", "grosses", post{"Großes Zelt", "", ""}, false, 1},
		{"HTML is text", "strong", post{"Tent", "", "<strong>big</strong>"}, true, 1},
		{"every term must be held", "red tent", post{"Red shelter", "", ""}, false, 3},
		{"the whole search in the title", "red tent", post{"A red tent", "", ""}, true, 1},
		{"every term in the title", "red tent", post{"Tent, red", "", ""}, true, 2},
		{"a term in the title, the other elsewhere", "red tent", post{"Tent", "red", ""}, true, 3},
		{"the whole search in the excerpt", "red tent", post{"Shelter", "a red tent", ""}, true, 4},
		{"the whole search in the content", "red tent", post{"Shelter", "red, a tent", "a red tent"}, true, 5},
		{"the terms apart, not in the title", "red tent", post{"Shelter", "red", "tent"}, true, 6},
		{"an excluded term held", "tent -red", post{"Tent", "", "red"}, false, 2},
		{"an excluded term not held", "tent -red", post{"Tent", "", "blue"}, true, 2},
		{"no sentence rank with an exclusion", "red tent -blue", post{"Shelter", "red tent", ""}, true, 6},
		{"an empty exclusion excludes all", "-", post{"Tent", "", ""}, false, 0},
		{"quoted phrase", `"red tent"`, post{"A red tent", "", ""}, true, 0},
		{"quoted phrase apart", `"red tent"`, post{"A red, tent", "", ""}, false, 1},
		{"wildcards are literal", "100%", post{"1000 pegs", "", ""}, false, 1},
		{"invalid UTF-8 finds nothing", "tent\xff", post{"tent\xff", "", ""}, false, 0},
		{"0: no rank", "0", post{"10 pegs", "", ""}, true, 0},
		{"seven terms: no title ranks", "a1 a2 a3 a4 a5 a6 a7", post{"a1 a2 a3 a4 a5 a6 a7", "", ""}, true, 1},
		{"seven terms apart", "a1 a2 a3 a4 a5 a6 a7", post{"a7 a6 a5 a4 a3 a2 a1", "", ""}, true, 6},
	}
	english := Stopwords("")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := Parse(tt.s, english)
			ti, ex, co := Fold(nil, tt.post.title), Fold(nil, tt.post.excerpt), Fold(nil, tt.post.content)
			if got := q.Match(ti, ex, co); got != tt.match {
				t.Errorf("Match = %v, want %v", got, tt.match)
			}
			if got := q.Rank(ti, ex, co); got != tt.rank {
				t.Errorf("Rank = %d, want %d", got, tt.rank)
			}
		})
	}
}

func TestStopwords(t *testing.T) {
	tests := []struct {
		locale string
		has    []string
		hasNot []string
	}{
		{"", []string{"the", "www", "about"}, []string{"und"}},
		{"en_US", []string{"the"}, nil},
		{"xx_XX", []string{"the"}, nil},
		{"de_DE", []string{"und", "für", "www"}, []string{"the"}},
		{"es_ES", []string{"un", "cómo"}, []string{" un"}}, // ", " separated: trimmed
		{"fr_FR", []string{"the"}, nil},                    // not translated: English
		{"cy", []string{"yn"}, []string{""}},               // a trailing comma: no empty word
	}
	for _, tt := range tests {
		got := Stopwords(tt.locale)
		for _, w := range tt.has {
			if !slices.Contains(got, w) {
				t.Errorf("Stopwords(%q) lacks %q", tt.locale, w)
			}
		}
		for _, w := range tt.hasNot {
			if slices.Contains(got, w) {
				t.Errorf("Stopwords(%q) has %q", tt.locale, w)
			}
		}
	}
	if got := SplitStopwords(" a ,\t0, ,b\r\n,"); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("SplitStopwords: %q", got)
	}
}

func TestMBLower(t *testing.T) {
	for in, want := range map[string]string{"ABC": "abc", "ÉTÉ": "été", "İ": "i\u0307", "ΣΑΣ": "σασ", "ǅ": "ǆ", "ß": "ß", "ẞ": "ß"} {
		if got := mbLower(in); got != want {
			t.Errorf("mbLower(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "red tent", `"a b" -c`, "-", "0", "a1 a2 a3 a4 a5 a6 a7 a8 a9 a10", "\r\n", "\xff"} {
		f.Add(s)
	}
	english := Stopwords("")
	f.Fuzz(func(t *testing.T, s string) {
		q := Parse(s, english)
		if s != "" && slashedLen(s) <= MaxSlashedLength && len(q.Terms) == 0 {
			t.Fatalf("Parse(%q): no term", s)
		}
		if len(q.Terms) > maxTerms || (q.Count < 1 && !q.Empty()) {
			t.Fatalf("Parse(%q): %d terms, count %d", s, len(q.Terms), q.Count)
		}
		folded := Fold(nil, s)
		if utf8.ValidString(s) && !utf8.Valid(folded) {
			t.Fatalf("Fold(%q) = %q: not UTF-8", s, folded)
		}
		q.Match(folded, nil, folded)
		q.Rank(folded, folded, nil)
	})
}
