// Package catalog is the domain of catalogd: an immutable in-memory snapshot
// of the shop, the rules that decide what an anonymous visitor of the
// WooCommerce storefront sees (which products are served and listed,
// prices, sales, stock, text, URLs, paging) as pure functions of it and the
// clock, the Service the HTTP side calls, and the error kinds. It reads the
// shop through a Source (package wpdb implements it) and runs no SQL; it
// serves no HTTP either, but says what the HTTP side's caches need: how
// long a product's answer holds (ExpiresAt), when it last changed, the IDs a
// purge names and the snapshot's version.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"catalogd/api"
)

// Product is one product as the storefront shows it (the wire type), with
// what the HTTP side needs to cache and purge it.
type Product struct {
	api.Product
	// ExpiresAt is when this product's on_sale next flips by the clock alone
	// (a sale date passes); zero when no sale date lies ahead. A cached copy
	// must not outlive it.
	ExpiresAt time.Time `json:"-"`
	// Modified is the newest change of what the resource shows: the
	// product's and its variations' or children's post_modified_gmt, the
	// last sale date passed, and when catalogd last saw the shop's terms
	// or settings change; never after now.
	Modified time.Time `json:"-"`
	// ID is the product's post ID and CategoryIDs the term IDs of its
	// categories: the names of the cache tags a purge uses.
	ID          int64   `json:"-"`
	CategoryIDs []int64 `json:"-"`
	// Version is the snapshot the product was read from.
	Version uint64 `json:"-"`
}

// ProductList is one page of the catalog-visible products (or of those a
// search finds): the wire list, and what caching each of them needs.
type ProductList struct {
	api.ProductList
	Items []Listed `json:"-"`

	// ExpiresAt is the earliest ExpiresAt of the products on the page.
	ExpiresAt time.Time `json:"-"`
	// Modified is the newest of the products' Modified and when catalogd
	// last saw the shop change (the totals may move with any product).
	Modified time.Time `json:"-"`
	// CategoryID is the term ID of the category filtered on, if any.
	CategoryID int64  `json:"-"`
	Version    uint64 `json:"-"`
	// Finding says the page is a search's, sorted otherwise than by ID,
	// filtered by price, stock or sale, or has facets: a change to any
	// product can change it, not only to those it lists or its category
	// holds.
	Finding bool `json:"-"`
}

// Listed is what caching a listed product needs beside its wire form:
// its purge tag's ID and its Modified (Product's). Not the whole Product:
// the page's products would be made twice each request.
type Listed struct {
	ID       int64
	Modified time.Time
}

// Category is a product category holding at least one visible product.
type Category struct {
	api.Category
	ID int64 `json:"-"` // the term ID
}

// CategoryList is the categories resource. Its lists are shared with
// every other request for it: read only.
type CategoryList struct {
	api.CategoryList
	Items []Category `json:"-"`

	// Modified is when catalogd last saw the shop change: the counts move
	// with any product.
	Modified time.Time `json:"-"`
	Version  uint64    `json:"-"`
}

// Index describes the catalog. Its links (Endpoints, OpenAPI, LLMsTxt)
// are the HTTP side's to fill in: Site is the origin they go under.
type Index struct {
	api.Index
	Site string `json:"-"`

	// Modified is when catalogd last saw the shop change.
	Modified time.Time `json:"-"`
	Version  uint64    `json:"-"`
	// Digest names the snapshot's content (Snapshot.Digest): equal in every
	// process that read the same shop.
	Digest string `json:"-"`
}

// Service is what the HTTP side needs of the catalog.
type Service interface {
	Index(ctx context.Context) (*Index, error)
	Categories(ctx context.Context) (*CategoryList, error)
	Products(ctx context.Context, q api.ListQuery) (*ProductList, error)
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
// offending parameter of an EINVALID. Link, when set, is the API path
// (under the base, "/catalog/categories") the hint points the client to:
// the HTTP side makes it a URL.
type Error struct {
	Kind    string
	Reason  string
	Message string
	Hint    string
	Link    string
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
