package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/api"
	"catalogd/wpsearch"
)

// searchShop is the search tests' shop: texts with accents, ß, HTML and
// entities as stored, and products of every search visibility.
func searchShop() *store {
	s := newStore()
	s.category("Food", "food", "", 0)
	s.category("Hidden stuff", "hidden-stuff", "", 1) // holds a search-only product only
	day := func(d int) time.Time { return time.Date(2026, 2, d, 9, 0, 0, 0, time.UTC) }
	add := func(p product) {
		p.Regular = "5"
		if p.Date.IsZero() {
			p.Date = day(1)
		}
		s.add(p)
	}
	add(product{Slug: "peche", Title: "Pêche Melba", Excerpt: "<p>Fruit &amp; cream</p>", Categories: []string{"food"}, Date: day(3)})
	add(product{Slug: "gross", Title: "Großes Paket", Content: "<!-- wp:paragraph --><p>A <strong>big</strong> box</p>", Date: day(4)})
	add(product{Slug: "grosses", Title: "Grosses Paket", Excerpt: "Radar kit", Date: day(2)})
	add(product{Slug: "radar", Title: "Police Radar", Content: "Reads plates. Police radar for servers.", Date: day(5)})
	add(product{Slug: "plates", Title: "Plate reader", Excerpt: "Works with the police radar", Date: day(6)})
	add(product{Slug: "search-only", Title: "Radar hidden in catalog", Visibility: "search", Categories: []string{"hidden-stuff"}, Date: day(7)})
	add(product{Slug: "shop-only", Title: "Radar shop only", Visibility: "catalog"})
	add(product{Slug: "hidden", Title: "Radar hidden", Visibility: "hidden"})
	add(product{Slug: "locked", Title: "Radar locked", Password: "secret"})
	add(product{Slug: "sold-out", Title: "Radar sold out", Stock: "outofstock", Date: day(8)})
	add(product{Slug: "kamera", Title: "Radar und Kamera", Date: day(9)})
	// Saved in the same second: WordPress leaves them tied.
	add(product{Slug: "tandem-one", Title: "Tandem bike", Date: day(10)})
	add(product{Slug: "tandem-two", Title: "Tandem seat", Date: day(10)})
	return s
}

// TestSearchFinds: a search finds what WordPress's search finds for an
// anonymous visitor: its terms in the title, excerpt or content as
// stored, compared as the collation's LIKE compares; among the products
// the search may show.
func TestSearchFinds(t *testing.T) {
	tests := []struct {
		name   string
		search string
		shop   func(s *store)
		want   []string
	}{
		{"case and accents fold", "PECHE", nil, []string{"peche"}},
		{"accented search, plain text", "pêche", nil, []string{"peche"}},
		{"ß is not ss", "grosses", nil, []string{"grosses"}},
		{"ß finds ß", "großes", nil, []string{"gross"}},
		{"the stored HTML is searched", "strong", nil, []string{"gross"}},
		{"an entity as stored", "&amp;", nil, []string{"peche"}},
		{"the excerpt", "cream", nil, []string{"peche"}},
		{"the content", "plates.", nil, []string{"radar"}},
		// Search results only is found, shop only, hidden and
		// password-protected products are not; out of stock is while the
		// shop shows it.
		{"search visibility", "radar", nil, []string{"grosses", "radar", "plates", "search-only", "sold-out", "kamera"}},
		{"out of stock hidden", "radar", func(s *store) { s.options["woocommerce_hide_out_of_stock_items"] = "yes" },
			[]string{"grosses", "radar", "plates", "search-only", "kamera"}},
		{"terms are ANDed, anywhere", "police servers", nil, []string{"radar"}},
		{"a phrase is one term", `"police radar"`, nil, []string{"radar", "plates"}},
		{"an exclusion", "radar -police", nil, []string{"grosses", "search-only", "sold-out", "kamera"}},
		{"a stopword is dropped", "the radar kit", nil, []string{"grosses"}},
		{"not in another language", "radar und", nil, []string{"kamera"}},
		{"the site's language's stopwords", "radar und kit", func(s *store) { s.options["WPLANG"] = "de_DE" }, []string{"grosses"}},
		{"nothing", "zzz", nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := searchShop()
			if tt.shop != nil {
				tt.shop(s)
			}
			c, _, _ := serve(t, s)
			l := getList(t, c, api.ListQuery{Search: tt.search})
			if got := listSlugs(l.Products); !slices.Equal(got, tt.want) || l.Total != len(tt.want) {
				t.Errorf("search %q: %v (total %d), want %v", tt.search, got, l.Total, tt.want)
			}
			if !l.Finding {
				t.Error("a search's page is no finding page")
			}
		})
	}
}

// TestSearchRelevance: by relevance, a search's products come in
// WordPress's rank order, then newest first.
func TestSearchRelevance(t *testing.T) {
	c, _, _ := serve(t, searchShop())
	tests := []struct {
		search string
		want   []string
	}{
		// One word: the titles holding it first, each group newest first.
		{"radar", []string{"kamera", "sold-out", "search-only", "radar", "plates", "grosses"}},
		// The whole search in a title (1), then every term in one (2), a
		// term (3), the whole search in an excerpt (4), then the rest.
		{"police radar", []string{"radar", "plates"}},
		{"paket box", []string{"gross"}},
		{"radar reader", []string{"plates"}},
		{"radar kit", []string{"grosses"}},
		{"reads plates", []string{"radar"}},
		// Tied on rank and date: the lower ID first, as MariaDB returns them.
		{"tandem", []string{"tandem-one", "tandem-two"}},
	}
	for _, tt := range tests {
		l := getList(t, c, api.ListQuery{Search: tt.search, OrderBy: "relevance"})
		if got := listSlugs(l.Products); !slices.Equal(got, tt.want) {
			t.Errorf("search %q by relevance: %v, want %v", tt.search, got, tt.want)
		}
	}
	// Every term an exclusion: WordPress's relevance order is invalid SQL,
	// and the storefront shows nothing; another order finds the products.
	if l := getList(t, c, api.ListQuery{Search: "-radar", OrderBy: "relevance"}); l.Total != 0 {
		t.Errorf("-radar by relevance: %v, want nothing", listSlugs(l.Products))
	}
	if l := getList(t, c, api.ListQuery{Search: "-radar"}); !slices.Equal(listSlugs(l.Products), []string{"peche", "gross", "tandem-one", "tandem-two"}) {
		t.Errorf("-radar by ID: %v, want [peche gross tandem-one tandem-two]", listSlugs(l.Products))
	}
	// Pages of one walk the same order.
	var paged []string
	for page := 1; page <= 6; page++ {
		l := getList(t, c, api.ListQuery{Search: "radar", OrderBy: "relevance", Page: page, PerPage: 1})
		paged = append(paged, listSlugs(l.Products)...)
	}
	if want := tests[0].want; !slices.Equal(paged, want) {
		t.Errorf("radar by relevance, a page at a time: %v, want %v", paged, want)
	}
}

// TestSearchWithFiltersAndFacets: a search combines with the filters and
// sorts, and its facets count among what it finds, the categories the
// categories resource lists only.
func TestSearchWithFiltersAndFacets(t *testing.T) {
	c, _, _ := serve(t, searchShop())
	l := getList(t, c, api.ListQuery{Search: "radar", InStock: flag(true), OrderBy: "date", Facets: true})
	if got, want := listSlugs(l.Products), []string{"kamera", "search-only", "plates", "radar", "grosses"}; !slices.Equal(got, want) {
		t.Errorf("radar, in stock, by date: %v, want %v", got, want)
	}
	want := api.Facets{Categories: map[string]int{"uncategorized": 4}, Frameworks: map[string]int{},
		Stock: api.StockFacet{InStock: 5, OutOfStock: 1}, Price: &api.PriceFacet{Min: "5.00", Max: "5.00"}}
	if f := l.Facets; f == nil || !equalFacets(*f, want) {
		t.Errorf("radar's facets: %s, want %s (hidden-stuff holds no catalog-visible product)", facetString(f), facetString(&want))
	}
}

func equalFacets(a, b api.Facets) bool { return facetString(&a) == facetString(&b) }

// TestSearchAsWPSearch: what matchSearch finds and the ranks it gives are
// wpsearch's Match and Rank of each product's own texts, whichever way
// the texts are read (the titles scanned at once or one by one, shared
// texts once), a patched snapshot's included.
func TestSearchAsWPSearch(t *testing.T) {
	st := searchShop()
	for i := range 40 { // enough titles that both ways are taken
		st.add(product{Title: fmt.Sprintf("Police radar %d pêche", i), Regular: "1",
			Excerpt: []string{"Radar kit", "Police radar", "<b>Reads</b> plates"}[i%3],
			Content: []string{"", "Police radar for servers", "pêche melba"}[i%3]})
	}
	c, src, _ := serve(t, st)
	searches := []string{"radar", "police radar", "radar police", `"police radar" kit`, "pêche -radar", "reads plates",
		"radar 1", "police radar for servers", "a b c d e f g h", "-police", "kit", "p"}
	check := func(t *testing.T, snap *Snapshot) {
		t.Helper()
		all := snap.cols().searchable
		// A few products: each read on its own.
		few := newBitset(len(snap.served))
		for pos := range len(snap.served) {
			if all.has(pos) && pos%16 == 3 {
				few.set(pos)
			}
		}
		for _, search := range searches {
			for _, from := range []bitset{all, few} {
				q := wpsearch.Parse(search, snap.sh.stopwords)
				set := slices.Clone(from)
				snap.matchSearch(&q, search, set)
				rank := make([]uint8, len(snap.served))
				snap.ranks(&q, set, rank)
				for pos, it := range snap.served {
					if !from.has(pos) {
						continue
					}
					title, ex, co := []byte(it.searchTitle()), []byte(it.searchExcerpt), []byte(it.searchContent)
					if want := q.Match(title, ex, co); set.has(pos) != want {
						t.Errorf("%q on %q: found %v, Match says %v", search, it.name(), set.has(pos), want)
					}
					if want := q.Rank(title, ex, co); set.has(pos) && int(rank[pos]) != want {
						t.Errorf("%q on %q: rank %d, Rank says %d", search, it.name(), rank[pos], want)
					}
				}
			}
		}
	}
	snap, err := c.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	check(t, snap)
	// Renamed, a new excerpt: the patched snapshot derives its texts.
	var ids []int64
	src.do(func(s *store) {
		for id, p := range s.posts {
			if p.Type == "product" && strings.HasPrefix(p.Title, "Police radar 1") {
				s.update(id, t0, func(p *Post) { p.Title, p.Excerpt = "Pêche radar", "police radar" })
				ids = append(ids, id)
			}
		}
	})
	if err := c.Refresh(context.Background(), ids...); err != nil {
		t.Fatal(err)
	}
	if snap, err = c.Snapshot(context.Background()); err != nil {
		t.Fatal(err)
	}
	if x := snap.find.texts.peek(); x == nil || len(x.patched) == 0 {
		t.Fatal("the patched snapshot made its search texts anew: its parent's were not derived")
	}
	check(t, snap)
}
