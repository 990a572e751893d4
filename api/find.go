package api

// Price is an amount in millionths of the shop currency's unit
// (1.5 → 1_500_000): a price filter's bound.
type Price int64

// Sort is the order the query asks for, the defaults applied: id
// ascending; date, popularity, rating and relevance descending; price,
// title and menu_order ascending.
func (q ListQuery) Sort() (by string, desc bool) {
	by = q.OrderBy
	if by == "" {
		by = "id"
	}
	switch q.Order {
	case "asc":
		return by, false
	case "desc":
		return by, true
	}
	switch by {
	case "date", "popularity", "rating", "relevance":
		return by, true
	}
	return by, false
}

// Facets are the counts a filtered list's products fall into, each
// computed ignoring its own filter, and the range of their prices.
type Facets struct {
	Categories map[string]int `json:"categories"` // category slug → products in it or its descendants
	Frameworks map[string]int `json:"frameworks"`
	Stock      StockFacet     `json:"stock"`
	OnSale     int            `json:"on_sale"`
	Price      *PriceFacet    `json:"price"` // nil: no product
}

// StockFacet counts the products in and out of stock.
type StockFacet struct {
	InStock    int `json:"in_stock"`
	OutOfStock int `json:"out_of_stock"`
}

// PriceFacet is the lowest and the highest price, as the list writes prices.
type PriceFacet struct {
	Min string `json:"min"`
	Max string `json:"max"`
}
