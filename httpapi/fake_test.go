package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"

	"catalogd/api"

	"catalogd/catalog"
	"catalogd/httpapi"
)

// fakeService is a catalog.Service without a database: it answers fixed,
// valid resources (one product, a one-product page, one category, the
// index) until told to fail. The tests of 500 and 503 provoke them here:
// once the catalog answers from its in-memory snapshot, a database that
// goes away after the load no longer makes it fail, and breaking the
// database only ever tested the adapter's mapping of the catalog's errors
// anyway.
type fakeService struct {
	mu        sync.Mutex
	err       error // every call returns it, when set
	panicking any   // every call panics with it, when set
}

var _ catalog.Service = (*fakeService)(nil)

// newFake returns a healthy fake.
func newFake() *fakeService { return &fakeService{} }

// failWith makes every call return err until heal.
func (f *fakeService) failWith(err error) *fakeService {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err, f.panicking = err, nil
	return f
}

// panicWith makes every call panic with v until heal.
func (f *fakeService) panicWith(v any) *fakeService {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err, f.panicking = nil, v
	return f
}

// heal makes the fake answer again.
func (f *fakeService) heal() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err, f.panicking = nil, nil
}

// failure is what the current call must do instead of answering.
func (f *fakeService) failure() error {
	f.mu.Lock()
	err, p := f.err, f.panicking
	f.mu.Unlock()
	if p != nil {
		panic(p)
	}
	return err
}

// errUnavailable is what the catalog returns when it cannot load the shop;
// its cause names the address, the driver and the dial, which a client
// must never see.
func errUnavailable() error {
	return &catalog.Error{Kind: catalog.EUNAVAILABLE, Reason: "unavailable",
		Message: "The catalog database is not reachable right now.",
		Hint:    "Retry after the number of seconds in the Retry-After header.",
		Err:     errors.New("wpdb: begin: dial tcp 127.0.0.1:3306: connect: connection refused")}
}

// errInternal is what the catalog returns when a read fails for another
// reason; its cause carries the SQL error a wrong table prefix gives.
func errInternal() error {
	return &catalog.Error{Kind: catalog.EINTERNAL, Reason: "internal_error",
		Message: "The catalog could not be read.",
		Err: errors.New("wpdb: load terms: Error 1146 (42S02): Table 'catalogd_test.nope_terms' doesn't exist" +
			" in SELECT t.term_id FROM nope_terms")}
}

// errPlain is an error that is no *catalog.Error (a bug's, wrapped on its
// way up), whose text is all internals.
func errPlain() error {
	return fmt.Errorf("catalog: products: %w",
		errors.New("SELECT x FROM wp_posts failed at /work/secret.go:12 (goroutine 7)"))
}

const fakeSlug = "fake-radar"

func (f *fakeService) product() catalog.Product {
	price := "20.00"
	return catalog.Product{Product: api.Product{Slug: fakeSlug, Name: "Fake Radar", URL: siteURL + "/product/" + fakeSlug + "/",
		Price: &price, RegularPrice: &price, Currency: "EUR", InStock: true, Purchasable: true,
		Categories: []string{"jobs"}, Frameworks: []string{"esx"}, Summary: "A radar."},
		Modified: now, ID: 10, CategoryIDs: []int64{2}}
}

func (f *fakeService) Index(ctx context.Context) (*catalog.Index, error) {
	if err := f.failure(); err != nil {
		return nil, err
	}
	// The links are the HTTP side's to make, from the site.
	return &catalog.Index{Index: api.Index{Name: "Fake Shop", Currency: "EUR", ProductCount: 1, PublishedProductCount: 1,
		CatalogVisibleProductCount: 1, CategoryCount: 1}, Site: siteURL, Modified: now}, nil
}

func (f *fakeService) Categories(ctx context.Context) (*catalog.CategoryList, error) {
	if err := f.failure(); err != nil {
		return nil, err
	}
	c := catalog.Category{Category: api.Category{Slug: "jobs", Name: "Jobs", Count: 1, URL: siteURL + "/product-category/jobs/"}, ID: 2}
	return &catalog.CategoryList{CategoryList: api.CategoryList{Categories: []api.Category{c.Category}},
		Items: []catalog.Category{c}, Modified: now}, nil
}

func (f *fakeService) Products(ctx context.Context, q api.ListQuery) (*catalog.ProductList, error) {
	if err := f.failure(); err != nil {
		return nil, err
	}
	p := f.product()
	p.Description = nil // the list never carries it
	l := &catalog.ProductList{ProductList: api.ProductList{Products: []api.Product{p.Product}, Page: 1,
		PerPage: api.DefaultPerPage, Total: 1, TotalPages: 1}, Items: []catalog.Listed{{ID: p.ID, Modified: p.Modified}}, Modified: now}
	if q.Facets {
		l.Facets = &api.Facets{Categories: map[string]int{"jobs": 1}, Frameworks: map[string]int{"esx": 1},
			Stock: api.StockFacet{InStock: 1}, Price: &api.PriceFacet{Min: *p.Price, Max: *p.Price}}
	}
	return l, nil
}

func (f *fakeService) Product(ctx context.Context, slug string) (*catalog.Product, error) {
	if err := f.failure(); err != nil {
		return nil, err
	}
	if slug != fakeSlug {
		return nil, &catalog.Error{Kind: catalog.ENOTFOUND, Reason: "product_not_found",
			Message: "No product " + slug + ".", Hint: "List the products:", Link: "/catalog/products"}
	}
	p := f.product()
	d := "<p>The full description.</p>"
	p.Description = &d
	p.Tags = &[]string{"police"}
	p.Attributes = &[]api.Attribute{{Name: "pa_framework", Label: "Framework", Values: []api.AttributeValue{{Slug: "esx", Name: "ESX"}}},
		{Name: "screen-size", Label: "Screen Size", Values: []api.AttributeValue{{Slug: "Large", Name: "Large"}}}}
	return &p, nil
}

// serveFake starts the server over svc, with the cache (nil: the server's
// default).
func serveFake(t *testing.T, svc catalog.Service, cache *httpapi.Cache) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(httpapi.NewServer(httpapi.Deps{Catalog: svc, SiteURL: siteURL, Cache: cache,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	return srv
}
