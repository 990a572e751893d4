package catalog

import (
	"math"
	"testing"
)

// TestReadRanks: a product's sort and filter values are its lookup row as
// WooCommerce writes it, the meta read as MariaDB stores a string in the
// lookup's columns outside strict mode (decimal(19,4) prices, decimal(3,2)
// rating, bigint sales: the leading number, rounded half away from zero;
// each want below is what the server stored), with its date and order.
func TestReadRanks(t *testing.T) {
	tests := []struct {
		name    string
		post    Post
		meta    []MetaRow
		prices  []string
		want    ranks
		compare func(got ranks) ranks // the part of got compared; nil: all
	}{
		{"simple product", Post{Date: "2026-11-21 12:30:05", MenuOrder: 3},
			[]MetaRow{{metaTotalSales, "12"}, {metaAverageRating, "4.50"}, {metaRatingCount, `a:2:{i:4;i:1;i:5;i:3;}`}},
			[]string{"19.99"},
			ranks{minPrice: 19_990_000, maxPrice: 19_990_000, sales: 12, date: 20261121123005, rating: 450, ratings: 4, menuOrder: 3}, nil},
		{"variable: its variations' distinct prices", Post{}, nil, []string{"4", "9.5", "12"},
			ranks{minPrice: 4_000_000, maxPrice: 12_000_000}, pricesOnly},
		{"grouped: its children's lowest and highest", Post{}, nil, []string{"3.25", "30"},
			ranks{minPrice: 3_250_000, maxPrice: 30_000_000}, pricesOnly},
		{"rows out of order: their minimum and maximum", Post{}, nil, []string{"12", "4", "9.5"},
			ranks{minPrice: 4_000_000, maxPrice: 12_000_000}, pricesOnly},
		{"no price: 0, as the column stores the empty string", Post{}, nil, nil, ranks{}, pricesOnly},
		{"an empty _price: 0 too", Post{}, nil, []string{""}, ranks{}, pricesOnly},
		{"an empty row beside prices is none", Post{}, nil, []string{"", "5"},
			ranks{minPrice: 5_000_000, maxPrice: 5_000_000}, pricesOnly},
		{"four places, rounded half away from zero", Post{}, nil, []string{"7.12345", "7.12355"},
			ranks{minPrice: 7_123_500, maxPrice: 7_123_600}, pricesOnly},
		{"the leading number", Post{}, nil, []string{" 3.5x"}, ranks{minPrice: 3_500_000, maxPrice: 3_500_000}, pricesOnly},
		{"a price past int64 in millionths", Post{}, nil, []string{"99999999999999", "-99999999999999"},
			ranks{minPrice: math.MinInt64 / 100 * 100, maxPrice: math.MaxInt64 / 100 * 100}, pricesOnly},
		{"sales rounded", Post{}, []MetaRow{{metaTotalSales, "12.5"}}, nil, ranks{sales: 13}, nil},
		{"sales' leading number", Post{}, []MetaRow{{metaTotalSales, "12abc"}}, nil, ranks{sales: 12}, nil},
		{"no sales", Post{}, []MetaRow{{metaTotalSales, ""}}, nil, ranks{}, nil},
		{"the first row of a key counts", Post{}, []MetaRow{{metaTotalSales, "2"}, {metaTotalSales, "9"}}, nil,
			ranks{sales: 2}, nil},
		{"rating to two places", Post{}, []MetaRow{{metaAverageRating, "4.335"}}, nil, ranks{rating: 434}, nil},
		{"rating with spaces", Post{}, []MetaRow{{metaAverageRating, "  4.5 "}}, nil, ranks{rating: 450}, nil},
		{"no rating", Post{}, []MetaRow{{metaAverageRating, ""}}, nil, ranks{}, nil},
		{"a rating count not serialized", Post{}, []MetaRow{{metaRatingCount, "7"}}, nil, ranks{ratings: 7}, nil},
		{"a zero date", Post{Date: "0000-00-00 00:00:00"}, nil, nil, ranks{}, nil},
		{"a date in another shape", Post{Date: "2026-11-21"}, nil, nil, ranks{}, nil},
		{"a negative menu_order", Post{MenuOrder: -4}, nil, nil, ranks{menuOrder: -4}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readRanks(&tt.post, tt.meta, tt.prices)
			if tt.compare != nil {
				got = tt.compare(got)
			}
			if got != tt.want {
				t.Errorf("readRanks = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func pricesOnly(r ranks) ranks { return ranks{minPrice: r.minPrice, maxPrice: r.maxPrice} }

func TestDecimalScaled(t *testing.T) {
	tests := []struct {
		in     string
		places int
		want   int64
	}{
		{"0", 4, 0}, {"1", 0, 1}, {"0.5", 0, 1}, {"0.49", 0, 0}, {"-0.5", 0, -1}, {"12.345", 2, 1235},
		{"12.344999", 2, 1234}, {"0.00005", 4, 1}, {"99999999999999999999", 0, 1<<63 - 1},
		{"-99999999999999999999", 0, -1 << 63},
	}
	for _, tt := range tests {
		d, ok := parseDecimal(tt.in)
		if !ok {
			t.Fatalf("parseDecimal(%q) failed", tt.in)
		}
		if got := d.scaled(tt.places); got != tt.want {
			t.Errorf("%q scaled by 10^%d = %d, want %d", tt.in, tt.places, got, tt.want)
		}
	}
}
