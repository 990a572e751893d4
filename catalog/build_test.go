package catalog

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchShopRows is a synthetic shop of n products as a whole load reads
// it, built in memory: block-editor descriptions and classic excerpts with
// markup and entities, simple products on sale, variable products with
// three variations, an image each, forty categories in a tree.
func benchShopRows(n int) *ShopRows { return benchStore(n).shopRows() }

// benchStore is the store benchShopRows reads.
func benchStore(n int) *store {
	s := newStore()
	for i := range 40 {
		parent := ""
		if i >= 10 {
			parent = fmt.Sprintf("kind-%02d", i%10)
		}
		s.category(fmt.Sprintf("Scripts &amp; tools %02d", i), fmt.Sprintf("kind-%02d", i), parent, int64(i%7))
	}
	from, to := t0.Add(-24*time.Hour), t0.Add(30*24*time.Hour)
	for i := range n {
		p := product{
			Title:      fmt.Sprintf("Server script %06d", i),
			Excerpt:    fmt.Sprintf("<p>A FiveM script with <strong>config</strong> &amp; docs, number %d.</p>", i),
			Content:    "<!-- wp:paragraph --><p>Description of the script, with features and install steps.</p><!-- /wp:paragraph -->\n\n<!-- wp:list --><ul><li>Radar &amp; plates</li><li>Works with <a href=\"https://example.com/x?a=1&amp;b=2\">ESX</a></li></ul><!-- /wp:list -->",
			Regular:    fmt.Sprintf("%d.99", 5+i%40),
			Categories: []string{fmt.Sprintf("kind-%02d", i%40), fmt.Sprintf("kind-%02d", (i+7)%40)},
			Frameworks: []string{"esx", "qbcore"},
			Image:      fmt.Sprintf("2026/11/script-%d.jpg", i),
		}
		switch i % 5 {
		case 0:
			p.Sale, p.From, p.To = fmt.Sprintf("%d.49", 2+i%40), from, to
		case 1:
			p.Type, p.Regular = typeNameVariable, ""
			for k, fw := range []string{"esx", "qbcore", "qbox"} {
				p.Variations = append(p.Variations, variation{Framework: fw, Regular: fmt.Sprintf("%d.%d0", 9+k, i%10)})
			}
		}
		s.add(p)
	}
	return s
}

// BenchmarkBuild measures catalog.Build alone, from rows in memory: the
// CPU and the garbage of a whole load's build without a database
// (wpdb's BenchmarkLoadShop measures the whole load against the seeded
// shops).
func BenchmarkBuild(b *testing.B) {
	rows := benchShopRows(20_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		fresh := cloneRows(rows) // Build consumes the rows
		b.StartTimer()
		s, err := Build(fresh, Config{}, 1, t0)
		if err != nil {
			b.Fatal(err)
		}
		if s.Products() != 20_000 {
			b.Fatalf("%d products, want 20000", s.Products())
		}
	}
}

// cloneRows copies what Build consumes of the rows: the posts and the meta
// map (not the strings, which Build only drops).
func cloneRows(rows *ShopRows) *ShopRows {
	c := *rows
	c.Products.Posts = slices.Clone(rows.Products.Posts)
	c.Products.Related = slices.Clone(rows.Products.Related)
	c.Products.Meta = maps.Clone(rows.Products.Meta)
	return &c
}

// TestBuildConsumesRowsAlike: a build that lets go of the rows after every
// product serves what a build holding them whole serves, a grouped
// product built after its children included, and leaves the rows empty.
func TestBuildConsumesRowsAlike(t *testing.T) {
	st := newStore()
	st.category("Jobs", "jobs", "", 0)
	from, to := t0.Add(-time.Hour), t0.Add(48*time.Hour)
	var kids []int64
	for i := range 6 {
		kids = append(kids, st.add(product{Title: fmt.Sprintf("Kid %d", i), Regular: fmt.Sprintf("%d.50", 3+i),
			Sale: "1.25", From: from, To: to, Excerpt: "<p>Kid &amp; more</p>", Content: "<p>Body</p>",
			Categories: []string{"jobs"}, Image: "2026/11/kid.jpg"}))
	}
	st.add(product{Title: "Pack", Type: typeNameGrouped, Children: kids[:3], Excerpt: "Three <b>kids</b>"})
	variable := st.add(product{Title: "Variable", Type: typeNameVariable, Content: "<ul><li>a</li><li>b</li></ul>", Variations: []variation{
		{Framework: "esx", Regular: "9.99", Sale: "4.99", From: from, To: to}, {Framework: "qbox", Regular: "7.99"}}})
	// One whose image is (wrongly) a variation, built before the variable
	// product: the variation's meta stays for it.
	if v := st.posts[variable+1]; v.Type != "product_variation" || v.Parent != variable {
		t.Fatalf("post %d is %+v, want the variable product's first variation", variable+1, v)
	}
	odd := st.add(product{Title: "Odd image", Regular: "3"})
	st.setMeta(odd, MetaThumbnail, strconv.FormatInt(variable+1, 10))
	st.add(product{Title: "Secret", Password: "x", Excerpt: "hidden", Content: "hidden", Regular: "2"})
	st.add(product{Title: "Late pack", Type: typeNameGrouped, Children: kids[2:]})
	// The rows come in descending ID order: children with higher IDs than
	// their grouped product are built before it.
	early := st.add(product{Title: "Early pack", Type: typeNameGrouped})
	var later []int64
	for i := range 2 {
		later = append(later, st.add(product{Title: fmt.Sprintf("Later kid %d", i), Regular: fmt.Sprintf("%d.75", 1+i),
			Sale: "0.5", From: from, To: to}))
	}
	st.setMeta(early, MetaChildren, phpIDs(later))
	st.syncGrouped(early)
	// Two products showing one image, built apart; one whose image is
	// (wrongly) a product.
	st.setMeta(later[0], MetaThumbnail, st.firstMeta(kids[5], MetaThumbnail))
	st.setMeta(later[1], MetaThumbnail, strconv.FormatInt(kids[0], 10))

	dump := func(chunk int) (string, *ShopRows) {
		t.Helper()
		defer func(was int) { buildChunk = was }(buildChunk)
		buildChunk = chunk
		rows := st.shopRows()
		s, err := Build(rows, Config{}, 1, t0)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		for _, now := range []time.Time{t0, to.Add(time.Hour)} {
			for _, it := range s.served {
				for _, full := range []bool{true, false} {
					if err := enc.Encode(s.sh.product(it, full, now)); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		a := s.agg // its fields are unexported: encoded one by one
		if err := enc.Encode(struct {
			Visible    string
			Count      int
			Categories []Category
		}{fmt.Sprint(a.visible), a.visibleCount, a.categories}); err != nil {
			t.Fatal(err)
		}
		for _, ids := range s.groups { // filled in map order
			slices.Sort(ids)
		}
		fmt.Fprint(&b, s.slugs, s.groups, len(s.all))
		return b.String(), rows
	}
	whole, _ := dump(1 << 30)
	each, rows := dump(1)
	if each != whole {
		t.Errorf("built one product at a time:\n%s\nbuilt whole:\n%s", each, whole)
	}
	if !strings.Contains(whole, `"slug":"early-pack","name":"Early pack","url":"https://shop.example/product/early-pack/","sku":null,"price":"0.50","regular_price":"1.75"`) ||
		strings.Count(whole, "uploads/2026/11/kid.jpg") != 4*(6+1) || !strings.Contains(whole, "Kid \\u0026 more") {
		t.Errorf("the shop built is not the one stored:\n%s", whole)
	}
	if p := rows.Products; p.Posts != nil || p.Meta != nil || p.Related != nil {
		t.Errorf("Build left the rows it consumed: %d posts, %d meta", len(p.Posts), len(p.Meta))
	}
}
