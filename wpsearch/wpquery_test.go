package wpsearch

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// product is a product as the oracle stores it in wp_posts.
type product struct {
	ID      int    `json:"id"`
	Title   string `json:"title"`
	Excerpt string `json:"excerpt"`
	Content string `json:"content"`
	Date    string `json:"date"`
}

// folded is a product with its texts folded.
type folded struct {
	product
	title, excerpt, content []byte
}

// Dates: several products share one, so the date leaves ties to order.
const (
	jan = "2024-01-10 09:00:00"
	feb = "2024-02-10 09:00:00"
	mar = "2024-03-10 09:00:00"
	apr = "2024-04-10 09:00:00"
)

var products = []product{
	{101, "Pêche Melba", "A peach dessert", "<p>Vanilla ice cream &amp; peaches</p>", jan},
	{102, "PÊCHE au vin", "", "<strong>Pêche</strong> in red wine", feb},
	{103, "Peche", "plain", "no accent at all", feb},
	{104, "Großes Zelt", "Ein großes Zelt für die Familie", "<p>Das Zelt ist groß.</p>", jan},
	{105, "Grosses tentes", "", "grosses tentes rouges", mar},
	{106, "Red tent", "A red tent for two", "<p>The red tent.</p>", feb},
	{107, "Tent, red", "", "", feb},
	{108, "Blue tent", "Not red", "<em>blue</em> and light", mar},
	{109, "Red Tent", "duplicate", "the same red tent", feb},
	{110, "Red Tent", "duplicate", "the same red tent", feb},
	{111, "The Tent of Dreams", "about the tent", "<p>It is what it is.</p>", apr},
	{112, "100% cotton shirt", "_underscore_ and 50%", `C:\path\to\shirt`, jan},
	{113, "10 pegs", "steel", "for a tent", apr},
	{114, `Quote "double" and 'single'`, "it's", `<a href="x">it's</a>`, mar},
	{115, "Ｆｕｌｌ width", "", "ﬁlter ligature", jan},
	{116, "kırmızı çadır", "İstanbul", "Turkish tent", feb},
	{117, "Crème brûlée", "creme brulee", "<p>CRÈME</p>", apr},
	{118, "Tent pole", "", "pole for a tent", jan},
	{119, "Tent pegs", "steel", "red and blue", jan},
	{120, "Sleeping bag", "warm", "<p>For a <b>tent</b>.</p>", mar},
	{121, "a b c d e f g h i j k", "letters", "", feb},
	{122, "Something", "", "it is what it is", apr},
	{123, "Pe\u0301che decomposed", "", "", mar},
	{124, "Emoji 😀 tent", "", "red 😀", jan},
	{125, "red tent pole pegs blue steel warm bag", "", "", apr},
}

var searches = []string{
	"peche", "PÊCHE", "pêche melba", "grosses", "großes", "groß", "red tent", "tent red", `"red tent"`, "Red Tent",
	"tent -red", "-red", "-red -blue", `tent -"red tent"`, `tent "-red"`, "the", "the of is", "a", "a tent", "-", "0",
	"10", "100%", "%", "_", `\`, `c:\path`, `""`, `" "`, `'single'`, `"double"`, "ﬁlter", "filter", "full", "ｆｕｌｌ",
	"kirmizi", "kırmızı", "istanbul", "creme brulee", "CRÈME", "a b c d e f g h i j k",
	"red tent pole pegs blue steel warm bag sleeping dreams", "red tent pole pegs blue steel warm", "tent pole",
	"<p>", "strong", "it's", "😀", "tent,pole", "tent+pole", "e\u0301", "red\ntent", "\n", "tent -", "it is what",
}

// searched is what WP_Query answered for a search.
type searched struct {
	S     string         `json:"s"`
	IDs   []int          `json:"ids"`
	Paged []int          `json:"paged"`
	Error string         `json:"error"`
	Terms []string       `json:"terms"`
	Count int            `json:"count"`
	Order *string        `json:"order"`
	Ranks map[string]int `json:"ranks"`
}

// TestWPQueryOracle runs the searches with WP_Query on Debian's WordPress
// as the storefront runs a product search (anonymous, ordered by
// relevance) and compares the products found and their order with Parse,
// Match and Rank and then the date, newest first; and every product's
// value of WordPress's relevance expression with Rank. Products of one
// rank and date are a tie WordPress leaves to the database.
func TestWPQueryOracle(t *testing.T) {
	site := newSite(t)
	var columns []map[string]any
	oracle(t, site, map[string]any{"op": "seed", "products": products}, &columns)
	for _, c := range columns {
		if c["Collation"] != "utf8mb4_unicode_520_ci" {
			t.Fatalf("WordPress made %v with the collation %v: the oracle tests another", c["Field"], c["Collation"])
		}
	}
	var answers []searched
	oracle(t, site, map[string]any{"op": "search", "searches": searches}, &answers)
	if len(answers) != len(searches) {
		t.Fatalf("%d answers to %d searches", len(answers), len(searches))
	}
	var all []folded
	for _, p := range products {
		all = append(all, folded{p, Fold(nil, p.Title), Fold(nil, p.Excerpt), Fold(nil, p.Content)})
	}
	english := Stopwords("")
	found, ranked, ties := 0, 0, 0
	for i, s := range searches {
		a, q := answers[i], Parse(s, english)
		name := fmt.Sprintf("%q", s)
		if failed := a.Error != ""; failed != q.RelevanceFails() {
			t.Errorf("%s: WordPress's database error %q, RelevanceFails %v", name, a.Error, q.RelevanceFails())
		}
		if !slices.Equal(a.Terms, terms(q)) || a.Count != q.Count {
			t.Errorf("%s: WordPress's terms %q (%d pieces), Parse's %q (%d)", name, a.Terms, a.Count, terms(q), q.Count)
		}
		rank := func(p folded) int { return q.Rank(p.title, p.excerpt, p.content) }
		// Ties of rank and date by ID ascending: all is in ID order and
		// the sort is stable.
		var want []folded
		for _, p := range all {
			if !q.RelevanceFails() && q.Match(p.title, p.excerpt, p.content) {
				want = append(want, p)
			}
		}
		slices.SortStableFunc(want, func(a, b folded) int {
			return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(b.Date, a.Date))
		})
		found += len(want)
		var wantIDs, keys []string
		for j, p := range want {
			wantIDs = append(wantIDs, fmt.Sprint(p.ID))
			keys = append(keys, fmt.Sprintf("%d:%d %s", p.ID, rank(p), p.Date))
			if j > 0 && rank(p) == rank(want[j-1]) && p.Date == want[j-1].Date {
				ties++
			}
		}
		if got := fmt.Sprint(a.IDs); got != "["+strings.Join(wantIDs, " ")+"]" {
			t.Errorf("%s: WordPress finds %s; Match, Rank, date and ID order %v (ID:rank date)", name, got, keys)
		}
		if !slices.Equal(a.Paged, a.IDs) {
			t.Errorf("%s: page by page, WordPress finds %v; in one list %v", name, a.Paged, a.IDs)
		}
		for _, p := range all {
			wp, ok := a.Ranks[fmt.Sprint(p.ID)]
			if !ok {
				continue
			}
			ranked++
			if q.order == orderTitle {
				wp = 1 - wp // title LIKE … DESC: a match (1) first
			}
			if got := rank(p); got != wp {
				t.Errorf("%s: product %d ranks %d in WordPress's expression %s, Rank %d", name, p.ID, wp, deref(a.Order), got)
			}
		}
	}
	if found < 3*len(searches) || ranked < 30*len(products) || ties < 20 {
		t.Errorf("the searches found %d products, ranked %d, tied %d: the fixture tests too little", found, ranked, ties)
	}
	t.Logf("%d searches found %d products, %d of them tied with the one before (same rank and date); %d ranks compared",
		len(searches), found, ties, ranked)
}

func deref(s *string) string {
	if s == nil {
		return "(none)"
	}
	return *s
}
