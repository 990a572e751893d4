package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"catalogd/api"
	"catalogd/catalog"
)

// listOnly answers the product list with an empty page of what it was
// asked, and records the query it was handed.
type listOnly struct {
	catalog.Service
	asked atomic.Pointer[api.ListQuery]
}

func (l *listOnly) Products(_ context.Context, q api.ListQuery) (*catalog.ProductList, error) {
	l.asked.Store(&q)
	page, perPage := q.Paging()
	return &catalog.ProductList{ProductList: api.ProductList{Products: []api.Product{}, Page: page, PerPage: perPage}}, nil
}

// TestListQueryParsedOnce: the product list's query is parsed once for the
// cache key and the handler together, not at all for a hit in canonical
// spelling, and the handler is handed what the parse made of it.
func TestListQueryParsedOnce(t *testing.T) {
	var parses atomic.Int32
	defer func(p func(string) api.ListQuery) { parseListQuery = p }(parseListQuery)
	parseListQuery = func(raw string) api.ListQuery {
		parses.Add(1)
		return api.ParseListQueryString(raw)
	}
	cat := &listOnly{}
	h := NewServer(Deps{Catalog: cat, SiteURL: "https://shop.example", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Cache: NewCache(CacheConfig{TTL: 60e9})})
	list := Base("shop") + "/catalog/products"
	tests := []struct {
		name, query string
		miss, hit   int32 // parses on a miss, then on a hit
		want        api.ListQuery
		problem     string // the parameter the handed query names a problem of
	}{
		{"canonical", "framework=esx&page=2", 1, 0, api.ListQuery{Page: 2, Framework: "esx"}, ""},
		{"another spelling", "page=03&utm_source=x&framework=%71box", 1, 1, api.ListQuery{Page: 3, Framework: "qbox"}, ""},
		{"no query", "", 1, 0, api.ListQuery{}, ""},
		{"a rejected value", "per_page=500", 1, 1, api.ListQuery{}, "per_page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, want := range []int32{tt.miss, tt.hit} {
				parses.Store(0)
				cat.asked.Store(nil)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, list+"?"+tt.query, nil))
				if got := parses.Load(); got != want {
					t.Errorf("request %d: the list query was parsed %d times, want %d", i+1, got, want)
				}
				q := cat.asked.Load()
				if i == 1 {
					if q != nil {
						t.Errorf("request 2 reached the catalog: not a hit (status %d)", rec.Code)
					}
					continue
				}
				switch {
				case q == nil:
					t.Errorf("request 1 did not reach the catalog (status %d)", rec.Code)
				case q.Page != tt.want.Page || q.Framework != tt.want.Framework:
					t.Errorf("the catalog was handed %+v, want %+v", *q, tt.want)
				case q.Problems()[tt.problem] == "" && tt.problem != "", len(q.Problems()) > 0 && tt.problem == "":
					t.Errorf("the catalog was handed the problems %v, want one of %q", q.Problems(), tt.problem)
				}
			}
		})
	}
}
