// Package catalog is the domain of catalogd: the Product and Category
// resources, the rules that decide what an anonymous visitor of the
// WooCommerce storefront sees (populations, prices, sales, stock, text,
// URLs), paging, and the error codes. It reads the shop through package
// wpdb and knows nothing of HTTP.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Product is one product as the storefront shows it.
type Product struct {
	Slug         string   `json:"slug"`
	Name         string   `json:"name"`
	URL          string   `json:"url"`
	Price        *string  `json:"price"`
	RegularPrice *string  `json:"regular_price"`
	OnSale       bool     `json:"on_sale"`
	Currency     string   `json:"currency"`
	InStock      bool     `json:"in_stock"`
	Purchasable  bool     `json:"purchasable"`
	Categories   []string `json:"categories"`
	Frameworks   []string `json:"frameworks"`
	Image        *string  `json:"image"`
	Summary      string   `json:"summary"`
	// Description is only set in the single-product response.
	Description *string `json:"description,omitempty"`

	// Until is when this product's on_sale next flips by the clock alone
	// (a sale date passes); zero when no sale date lies ahead. A cached copy
	// must not outlive it.
	Until time.Time `json:"-"`
	// Modified is the newest change of what the resource shows: the
	// product's and its variations' or children's post_modified_gmt, the
	// last sale date passed, and when catalogd last saw the shop's terms
	// or settings change; never after now.
	Modified time.Time `json:"-"`
	// ID is the product's post ID and CategoryIDs the term IDs of its
	// categories: the names of the cache tags a purge uses.
	ID          int64   `json:"-"`
	CategoryIDs []int64 `json:"-"`
}

// ProductList is one page of the catalog-visible products.
type ProductList struct {
	Products   []Product `json:"products"`
	Page       int       `json:"page"`
	PerPage    int       `json:"per_page"`
	Total      int       `json:"total"`
	TotalPages int       `json:"total_pages"`

	// Until is the earliest Until of the products on the page.
	Until time.Time `json:"-"`
	// Modified is the newest of the products' Modified and when catalogd
	// last saw the shop change (the totals may move with any product).
	Modified time.Time `json:"-"`
	// CategoryID is the term ID of the category filtered on, if any.
	CategoryID int64 `json:"-"`
}

// Category is a product category holding at least one visible product.
type Category struct {
	Slug   string  `json:"slug"`
	Name   string  `json:"name"`
	Count  int     `json:"count"`
	URL    string  `json:"url"`
	Parent *string `json:"parent"`

	ID int64 `json:"-"` // the term ID
}

// CategoryList is the categories resource.
type CategoryList struct {
	Categories []Category `json:"categories"`

	// Modified is when catalogd last saw the shop change: the counts move
	// with any product.
	Modified time.Time `json:"-"`
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

	// Modified is when catalogd last saw the shop change.
	Modified time.Time `json:"-"`
}

// Endpoints links every operation of the API. Product is a URI template.
type Endpoints struct {
	Catalog    string `json:"catalog"`
	Categories string `json:"categories"`
	Products   string `json:"products"`
	Product    string `json:"product"`
}

// Frameworks are the values of the framework filter: the pa_framework
// attribute terms the shop sells for.
var Frameworks = []string{"esx", "qbcore", "qbox", "standalone"}

// Paging limits of the product list.
const (
	DefaultPerPage = 20
	MaxPerPage     = 50
	MaxSlugLength  = 200 // posts.post_name and terms.slug are varchar(200), in the stored form
)

// ValidFramework reports whether f is one of Frameworks.
func ValidFramework(f string) bool {
	for _, v := range Frameworks {
		if v == f {
			return true
		}
	}
	return false
}

// ListQuery selects a page of the product list. Zero Page and PerPage mean
// the defaults; empty Category and Framework mean no restriction.
type ListQuery struct {
	Page      int
	PerPage   int
	Category  string
	Framework string

	// problems are what ParseListQuery rejected, per parameter, so that
	// Products can report them with what only the database can tell.
	problems map[string]string
}

// Service is what the HTTP side needs of the catalog.
type Service interface {
	Index(ctx context.Context) (*Index, error)
	Categories(ctx context.Context) (*CategoryList, error)
	Products(ctx context.Context, q ListQuery) (*ProductList, error)
	Product(ctx context.Context, slug string) (*Product, error)
}

// Error kinds.
const (
	EINVALID     = "invalid"     // the request is wrong: 400
	ENOTFOUND    = "not_found"   // nothing has that name: 404
	EUNAVAILABLE = "unavailable" // the database cannot be reached: 503
	EINTERNAL    = "internal"    // anything else: 500
)

// Error is a failure a client can act on. Reason is the stable suffix of the
// API's error code ("invalid_page", "product_not_found"); Params names every
// offending parameter of an EINVALID.
type Error struct {
	Kind    string
	Reason  string
	Message string
	Hint    string
	Params  map[string]string
	Err     error // the cause, never shown to a client
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Reason, e.Message, e.Err)
	}
	return e.Reason + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorKind returns the kind of err: that of a *Error, else EINTERNAL.
func ErrorKind(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return EINTERNAL
}

// Clock returns the time sales are evaluated at.
type Clock func() time.Time
