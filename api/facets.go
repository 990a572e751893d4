package api

// Facets are the counts a shop's filter widgets show beside a product
// list (WooCommerce's layered navigation, stock and price filters), sent
// with facets=true: over every product the query's filters select, all
// pages together, where each facet ignores its own filter so that it
// shows what choosing another value would give (the categories facet
// ignores category, frameworks framework, stock in_stock, on_sale
// on_sale, and price min_price and max_price).
type Facets struct {
	// Categories counts per category slug, each category counting the
	// products of its subtree, as the category filter selects them; a
	// category with none is left out.
	Categories map[string]int `json:"categories"`
	// Frameworks counts per framework slug; a framework with none is left
	// out.
	Frameworks map[string]int `json:"frameworks"`
	Stock      StockFacet     `json:"stock"`
	// OnSale counts the products on sale.
	OnSale int `json:"on_sale"`
	// Price is the lowest and highest price, nil when no product has one.
	Price *PriceFacet `json:"price"`
}

// StockFacet counts the products in stock and out of stock.
type StockFacet struct {
	InStock    int `json:"in_stock"`
	OutOfStock int `json:"out_of_stock"`
}

// PriceFacet is the range of the products' prices, spelt as the list
// spells a price: the bounds a price filter can ask for.
type PriceFacet struct {
	Min string `json:"min"`
	Max string `json:"max"`
}
