package catalog

import (
	"fmt"
	"testing"
	"time"
)

// benchShopRows is a synthetic shop of n products as a whole load reads
// it, built in memory: block-editor descriptions and classic excerpts with
// markup and entities, simple products on sale, variable products with
// three variations, an image each, forty categories in a tree.
func benchShopRows(n int) *ShopRows {
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
			p.Type, p.Regular = typeVariable, ""
			for k, fw := range []string{"esx", "qbcore", "qbox"} {
				p.Variations = append(p.Variations, variation{Framework: fw, Regular: fmt.Sprintf("%d.%d0", 9+k, i%10)})
			}
		}
		s.add(p)
	}
	return s.shopRows()
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
		s, err := Build(rows, Config{}, 1, t0)
		if err != nil {
			b.Fatal(err)
		}
		if s.Products() != 20_000 {
			b.Fatalf("%d products, want 20000", s.Products())
		}
	}
}
