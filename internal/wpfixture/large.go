package wpfixture

import "fmt"

// ManyCategories returns a shop with categories product categories and
// products products, each product in four of them, post IDs from 100 000
// on: a large shop's catalog, whose list pages and category list carry the
// largest responses and headers catalogd sends (the proxy and purge tests
// measure them with it).
func ManyCategories(home string, categories, products int) *Shop {
	s := New("wp_", home)
	s.SkipPostIDs(100_000)
	for i := range categories {
		s.Category(fmt.Sprintf("Scripts for servers, kind %04d", i), fmt.Sprintf("kind-%04d", i), "", i)
	}
	for i := range products {
		var cats []string
		for k := range 4 {
			cats = append(cats, fmt.Sprintf("kind-%04d", (i*4+k)%categories))
		}
		s.Add(Product{Title: fmt.Sprintf("Server script %05d", i), RegularPrice: fmt.Sprintf("%d.99", 5+i%40),
			Categories: cats, Frameworks: []string{"esx", "qbcore"}})
	}
	return s
}
