// Package api holds the wire types of the catalog API — the resources, the
// error body, the list query and its validation — shared by the server
// (package httpapi) and its client (cmd/catalogctl). It depends on neither
// a database nor HTML: a client links nothing of the server's storage.
package api

// Product is one product as the storefront shows it.
type Product struct {
	Slug string `json:"slug"`
	Name string `json:"name"`
	URL  string `json:"url"`
	// SKU is nil where the product has none.
	SKU          *string `json:"sku"`
	Price        *string `json:"price"`
	RegularPrice *string `json:"regular_price"`
	OnSale       bool    `json:"on_sale"`
	// PriceRange is nil where the storefront shows one price.
	PriceRange  *PriceRange `json:"price_range"`
	Currency    string      `json:"currency"`
	InStock     bool        `json:"in_stock"`
	Purchasable bool        `json:"purchasable"`
	Categories  []string    `json:"categories"`
	// Tags is only set in the single-product response ([] for none).
	Tags       *[]string `json:"tags,omitempty"`
	Frameworks []string  `json:"frameworks"`
	// Attributes is only set in the single-product response ([] for none).
	Attributes *[]Attribute `json:"attributes,omitempty"`
	Image      *string      `json:"image"`
	Summary    string       `json:"summary"`
	// Description is only set in the single-product response.
	Description *string `json:"description,omitempty"`
}

// Attribute is one row of the product page's "Additional information":
// a global attribute (a pa_… taxonomy) or a product's own.
type Attribute struct {
	// Name is the attribute's key: its taxonomy (pa_framework), or a local
	// attribute's sanitized name (screen-size).
	Name   string           `json:"name"`
	Label  string           `json:"label"`
	Values []AttributeValue `json:"values"`
}

// AttributeValue is one value of an attribute. A global attribute's is a
// term (its slug, its name); a local attribute's slug is the value as
// typed, which is what a variation stores for it.
type AttributeValue struct {
	Slug string `json:"slug"`
	Name string `json:"name"`
}

// PriceRange is the lowest and the highest price a variable or grouped
// product's price shows ("from – to"), spelt as Product.Price is.
type PriceRange struct {
	Min string `json:"min"`
	Max string `json:"max"`
}

// ProductList is one page of the catalog-visible products.
type ProductList struct {
	Products   []Product `json:"products"`
	Page       int       `json:"page"`
	PerPage    int       `json:"per_page"`
	Total      int       `json:"total"`
	TotalPages int       `json:"total_pages"`
	// Facets are set only when the query asks for them (facets=true).
	Facets *Facets `json:"facets,omitempty"`
}

// Category is a product category holding at least one visible product.
type Category struct {
	Slug   string  `json:"slug"`
	Name   string  `json:"name"`
	Count  int     `json:"count"`
	URL    string  `json:"url"`
	Parent *string `json:"parent"`
}

// CategoryList is the categories resource.
type CategoryList struct {
	Categories []Category `json:"categories"`
}

// Index describes the catalog and links its endpoints.
type Index struct {
	Name                       string    `json:"name"`
	Description                string    `json:"description,omitempty"`
	Currency                   string    `json:"currency"`
	ProductCount               int       `json:"product_count"`
	PublishedProductCount      int       `json:"published_product_count"`
	CatalogVisibleProductCount int       `json:"catalog_visible_product_count"`
	CategoryCount              int       `json:"category_count"`
	Developers                 string    `json:"developers,omitempty"`
	OpenAPI                    string    `json:"openapi,omitempty"`
	LLMsTxt                    string    `json:"llms_txt,omitempty"`
	Sitemap                    string    `json:"sitemap,omitempty"`
	Endpoints                  Endpoints `json:"endpoints"`
}

// Endpoints links every operation of the API. Product is a URI template.
type Endpoints struct {
	Catalog    string `json:"catalog"`
	Categories string `json:"categories"`
	Products   string `json:"products"`
	Product    string `json:"product"`
}

// Error is the body of every error response, in WordPress's REST shape:
// code is "{namespace}_{reason}", data.status the HTTP status.
type Error struct {
	Code    string    `json:"code"`
	Message string    `json:"message"`
	Data    ErrorData `json:"data"`
}

// ErrorData is an error's details: the status, what to do instead, and a
// message for every offending parameter.
type ErrorData struct {
	Status int               `json:"status"`
	Hint   string            `json:"hint,omitempty"`
	Params map[string]string `json:"params,omitempty"`
}
