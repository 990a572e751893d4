package catalog

import (
	"math/big"
	"regexp"
	"strings"
	"testing"
)

// The prices were read through math/big until decimal replaced it; the
// big form stays here as the reference decimal must agree with on every
// input: the same prices accepted, formatted and ordered alike.

var bigDecimalRE = regexp.MustCompile(`^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$`)

func bigDecimal(s string) (*big.Rat, bool) {
	s = strings.TrimSpace(s)
	if !bigDecimalRE.MatchString(s) {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// checkDecimal fails when decimal and math/big disagree on s: whether it
// is a price, and how it formats with the decimals.
func checkDecimal(t *testing.T, s string, decimals int) {
	t.Helper()
	want, wantOK := bigDecimal(s)
	got, ok := FormatPrice(s, decimals)
	if ok != wantOK {
		t.Fatalf("FormatPrice(%q, %d) ok = %v, math/big says %v", s, decimals, ok, wantOK)
	}
	if ok && got != want.FloatString(decimals) {
		t.Fatalf("FormatPrice(%q, %d) = %q, math/big says %q", s, decimals, got, want.FloatString(decimals))
	}
}

// checkOrder fails when decimal orders a and b otherwise than math/big.
func checkOrder(t *testing.T, a, b string) {
	t.Helper()
	ra, okA := bigDecimal(a)
	rb, okB := bigDecimal(b)
	if want := okA && okB && ra.Cmp(rb) < 0; priceLess(a, b) != want {
		t.Fatalf("priceLess(%q, %q) = %v, math/big says %v", a, b, !want, want)
	}
	if okA && okB {
		da, _ := parseDecimal(a)
		db, _ := parseDecimal(b)
		if got, want := da.cmp(db), ra.Cmp(rb); got != want {
			t.Fatalf("cmp(%q, %q) = %d, math/big says %d", a, b, got, want)
		}
	}
}

var decimalCases = []string{
	"", " ", "0", "-0", "00", "-00.000", "0.", ".0", ".", "-", "-.", "-.5", ".5", "5.", "-5.", "007", "0.070",
	"20", "12.5", "3.995", "3.994", "3.9949999", "7.12345", "7.125", "7.135", "0.005", "0.004", "0.0049", "-0.005",
	"-0.004", "-0.001", "-3.995", "-3.994", "-7.125", "19.99", "9.999", "99.995", "999.9951", "0.995", "-0.995",
	"1234567890123456789.995", "99999999999999999999999999999.9999999999", "-99999999999999999999.5",
	"0.000000000000000000000000000005", " 5 ", "\t12.50\n", "\u00a05", "1e3", "1E3", "1/3", "12,50", "+5", "--5",
	"5-", "5.5.5", "0x10", "0b1", "1_000", "Inf", "NaN", "١٢", "5 5", "12.5a", "abc",
}

func TestDecimalAgreesWithBig(t *testing.T) {
	for _, s := range decimalCases {
		for _, decimals := range []int{-1, 0, 1, 2, 3, 8, 12} {
			checkDecimal(t, s, decimals)
		}
		for _, b := range decimalCases {
			checkOrder(t, s, b)
		}
	}
}

func TestLowestPrice(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want string
	}{
		{"none", nil, ""},
		{"no number", []string{"", "abc"}, ""},
		{"numeric, not by text", []string{"10", "9.5", "9.50"}, "9.5"},
		{"first of equals as stored", []string{"9.50", "9.5", "09.5"}, "9.50"},
		{"negative below zero", []string{"0", "-0.01", "-0"}, "-0.01"},
		{"skips garbage", []string{"x", "12", "1e1"}, "12"},
		{"long ones", []string{"123456789012345678901.5", "123456789012345678901.49"}, "123456789012345678901.49"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lowestPrice(tt.in); got != tt.want {
				t.Errorf("lowestPrice(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzDecimal: decimal reads, formats and orders every string as math/big
// does.
func FuzzDecimal(f *testing.F) {
	for i, s := range decimalCases {
		f.Add(s, decimalCases[(i+1)%len(decimalCases)], uint8(i%10))
	}
	f.Fuzz(func(t *testing.T, a, b string, decimals uint8) {
		checkDecimal(t, a, int(decimals%20))
		checkOrder(t, a, b)
	})
}
