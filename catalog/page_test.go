package catalog_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"catalogd/api"
	"catalogd/catalog"
	"catalogd/internal/wpfixture"
)

// TestProductPageFields: the SKU, the price range and the tags of shops
// stored as WooCommerce stores them, read from MariaDB; each as the
// storefront's function shows it: get_sku() where wc_product_sku_enabled(),
// WC_Product_Variable::get_price_html (the visible variations, each at its
// active price), WC_Product_Grouped::get_price_html (the published
// children) and wc_get_product_tag_list (the tags by name).
func TestProductPageFields(t *testing.T) {
	for _, hide := range []bool{false, true} {
		t.Run(map[bool]string{false: "out of stock shown", true: "out of stock hidden"}[hide], func(t *testing.T) {
			s := newShop()
			if hide {
				s.SetOption("woocommerce_hide_out_of_stock_items", "yes")
			}
			s.Tag("Vehicles", "vehicles")
			s.Tag("Police &amp; EMS", "police-ems")
			s.Tag("Unused", "unused")
			s.Add(wpfixture.Product{Title: "Garage", Type: "variable", SKU: "GAR-1", Tags: []string{"vehicles", "police-ems"},
				Variations: []wpfixture.Variation{
					{Framework: "esx", RegularPrice: "25", SalePrice: "19.99", SaleTo: now.Add(time.Hour)},
					{Framework: "qbcore", RegularPrice: "30"},
					{Framework: "qbox", RegularPrice: "2", Disabled: true},
					{Framework: "standalone", RegularPrice: "45", StockStatus: "outofstock"},
				}})
			a := s.Add(wpfixture.Product{Title: "Part A", RegularPrice: "10", SalePrice: "8"})
			b := s.Add(wpfixture.Product{Title: "Part B", RegularPrice: "30"})
			c := s.Add(wpfixture.Product{Title: "Part C", RegularPrice: "2", Status: "draft", Slug: "part-c"})
			s.Add(wpfixture.Product{Title: "Bundle", Type: "grouped", Children: []int64{a, b, c}})
			f := load(t, s)

			garage := "19.99–45.00"
			if hide {
				garage = "19.99–30.00"
			}
			tests := []struct {
				slug, sku, prange string
				tags              []string
			}{
				{"garage", "GAR-1", garage, []string{"police-ems", "vehicles"}},
				{"part-a", "<nil>", "", []string{}}, // the empty _sku row every product carries
				{"bundle", "<nil>", "8.00–30.00", []string{}},
			}
			listed := map[string]api.Product{}
			for _, p := range f.list(t, api.ListQuery{}).Products {
				listed[p.Slug] = p
			}
			for _, tt := range tests {
				p := f.product(t, tt.slug)
				r := ""
				if p.PriceRange != nil {
					r = p.PriceRange.Min + "–" + p.PriceRange.Max
				}
				if str(p.SKU) != tt.sku || r != tt.prange || p.Tags == nil || !reflect.DeepEqual(*p.Tags, tt.tags) {
					t.Errorf("%s: sku %s, price_range %q, tags %v; want %s, %q, %v", tt.slug, str(p.SKU), r, p.Tags, tt.sku, tt.prange, tt.tags)
				}
				l := listed[tt.slug]
				if str(l.SKU) != tt.sku || !reflect.DeepEqual(l.PriceRange, p.PriceRange) || l.Tags != nil {
					t.Errorf("%s listed: sku %s, price_range %v, tags %v; want the single's and no tags", tt.slug, str(l.SKU), l.PriceRange, l.Tags)
				}
			}
			// The sale ends: the range moves with no edit at all.
			later := catalog.New(f.db, catalog.Config{Now: func() time.Time { return now.Add(time.Hour + time.Second) }})
			p, err := later.Product(context.Background(), "garage")
			if err != nil {
				t.Fatal(err)
			}
			if p.PriceRange == nil || p.PriceRange.Min != "25.00" {
				t.Errorf("after the sale: price_range %v, want from 25.00", p.PriceRange)
			}
		})
	}
}
