package varnish_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
)

// A page through Varnish, as a check reads it.
type findingCheck struct {
	slugs []string // the products listed, in order; nil: not checked
	part  string   // a part of the body; "": not checked
}

func (c findingCheck) holds(t *testing.T, a answer) bool {
	t.Helper()
	if a.status != 200 {
		return false
	}
	if c.part != "" && !strings.Contains(a.body, c.part) {
		return false
	}
	if c.slugs == nil {
		return true
	}
	var l struct {
		Products []struct {
			Slug string `json:"slug"`
		} `json:"products"`
	}
	if err := json.Unmarshal([]byte(a.body), &l); err != nil {
		t.Fatalf("not a product list: %v: %.300s", err, a.body)
	}
	got := []string{}
	for _, p := range l.Products {
		got = append(got, p.Slug)
	}
	return slices.Equal(got, c.slugs)
}

func (c findingCheck) String() string {
	if c.slugs != nil {
		return "products " + strings.Join(c.slugs, ", ")
	}
	return c.part
}

// TestVarnishFindingPagesFollowEdits: sorted, price-filtered, searched,
// stock-filtered and faceted pages cached by the shipped Varnish follow
// edits made in the shop, through catalogd's purge of shop-query: a
// product repriced into a sorted page and across a price range, renamed
// to the head of a title order, into a search and out of it, an order
// taking the last unit, its refund. Each page is cached (a HIT) before
// the edit, and Varnish must serve the new answer within the deadline; a
// plain page no edit touched stays cached.
func TestVarnishFindingPagesFollowEdits(t *testing.T) {
	s := wpfixture.New("wp_", "https://shop.example")
	s.Category("Police", "police", "", 1)
	s.Category("Vehicles", "vehicles", "", 2)
	one := 1
	radar := s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5", Categories: []string{"police"}, Stock: &one})
	s.Add(wpfixture.Product{Title: "Dispatch", RegularPrice: "7", Categories: []string{"police"}})
	garage := s.Add(wpfixture.Product{Title: "Garage", RegularPrice: "9", Categories: []string{"vehicles"}})
	siren := s.Add(wpfixture.Product{Title: "Siren", RegularPrice: "25", Categories: []string{"police"}})
	tow := s.Add(wpfixture.Product{Title: "Tow Truck", RegularPrice: "15", Categories: []string{"vehicles"}})
	dsn, raw := testdb.LoadOn(t, testdb.BinlogServer(t), s)
	v := startEdge(t, dsn, []string{"CATALOG_CHANGES=binlog"}, nil).v
	ops := &wpfixture.Ops{DB: raw, Prefix: "wp_"}
	ctx := context.Background()
	list := api + "/products"

	// cached fetches p until Varnish serves it from its store.
	cached := func(t *testing.T, p string) answer {
		t.Helper()
		var a answer
		poll(t, p+" cached", 10*time.Second, func() bool {
			a = v.get(t, p)
			return a.header.Get("X-Cache") == "HIT"
		})
		return a
	}
	type edit struct {
		what string
		do   func() error
		want findingCheck
	}
	tests := []struct {
		name, path string
		before     findingCheck
		edits      []edit
	}{
		{"sorted by price", list + "?orderby=price&per_page=2", findingCheck{slugs: []string{"radar", "dispatch"}}, []edit{
			{"siren repriced 25 -> 6", func() error { return ops.EditPrice(ctx, siren, "6", "") },
				findingCheck{slugs: []string{"radar", "siren"}}},
		}},
		{"a price range", list + "?min_price=10&max_price=20", findingCheck{slugs: []string{"tow-truck"}}, []edit{
			{"siren repriced 6 -> 12, into the range", func() error { return ops.EditPrice(ctx, siren, "12", "") },
				findingCheck{slugs: []string{"siren", "tow-truck"}}},
			{"tow truck repriced 15 -> 21, out of it", func() error { return ops.EditPrice(ctx, tow, "21", "") },
				findingCheck{slugs: []string{"siren"}}},
		}},
		{"sorted by title", list + "?orderby=title&per_page=1", findingCheck{slugs: []string{"dispatch"}}, []edit{
			{"garage renamed Ambulance Garage", func() error { return ops.EditTitle(ctx, garage, "Ambulance Garage") },
				findingCheck{slugs: []string{"garage"}}},
		}},
		{"out of stock", list + "?in_stock=false", findingCheck{slugs: []string{}}, []edit{
			{"an order takes radar's last unit", func() error { return ops.OrderReducesStock(ctx, radar, 1) },
				findingCheck{slugs: []string{"radar"}}},
			{"its refund restocks it", func() error { return ops.RefundRestoresStock(ctx, radar, 1) },
				findingCheck{slugs: []string{}}},
		}},
		{"a search", list + "?search=beacon", findingCheck{slugs: []string{}}, []edit{
			{"tow truck renamed into the search", func() error { return ops.EditTitle(ctx, tow, "Tow Truck Beacon") },
				findingCheck{slugs: []string{"tow-truck"}}},
			{"and out of it", func() error { return ops.EditTitle(ctx, tow, "Tow Truck") },
				findingCheck{slugs: []string{}}},
		}},
		{"facets", list + "?facets=true&per_page=1", findingCheck{part: `"stock":{"in_stock":5,"out_of_stock":0}`}, []edit{
			{"an order takes radar's last unit", func() error { return ops.OrderReducesStock(ctx, radar, 1) },
				findingCheck{part: `"stock":{"in_stock":4,"out_of_stock":1}`}},
			{"its refund restocks it", func() error { return ops.RefundRestoresStock(ctx, radar, 1) },
				findingCheck{part: `"stock":{"in_stock":5,"out_of_stock":0}`}},
		}},
	}
	// Pages in ID order and product pages name their products: the edits
	// of other products leave them cached.
	plain := []string{list + "?per_page=1&page=2", list + "/dispatch"} // dispatch, never edited
	for _, p := range plain {
		cached(t, p)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if a := cached(t, tt.path); !tt.before.holds(t, a) {
				t.Fatalf("before the edits: %.400s, want %s", a.body, tt.before)
			}
			for _, e := range tt.edits {
				cached(t, tt.path) // the copy the edit must purge
				if err := e.do(); err != nil {
					t.Fatal(err)
				}
				took := poll(t, e.what+": "+e.want.String()+" through Varnish", 15*time.Second, func() bool {
					return e.want.holds(t, v.get(t, tt.path))
				})
				t.Logf("%s: the new answer from Varnish %v after the commit", e.what, took.Round(time.Millisecond))
			}
		})
	}
	for _, p := range plain {
		if a := v.get(t, p); a.header.Get("X-Cache") != "HIT" {
			t.Errorf("%s: %s after edits of products it does not show, want a HIT", p, a.header.Get("X-Cache"))
		}
	}
}
