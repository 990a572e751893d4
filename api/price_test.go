package api

import (
	"strings"
	"testing"
)

func TestParsePrice(t *testing.T) {
	tests := []struct {
		in        string
		want      Price
		ok        bool
		canonical string // the price's String, for a valid one
	}{
		{"12", 12_000_000, true, "12"},
		{"12.5", 12_500_000, true, "12.5"},
		{"12.50", 12_500_000, true, "12.5"},
		{"12.000000", 12_000_000, true, "12"},
		{"0.99", 990_000, true, "0.99"},
		{"0", 0, true, "0"},
		{"0.000001", 1, true, "0.000001"},
		{"1.05", 1_050_000, true, "1.05"},
		{"007.50", 7_500_000, true, "7.5"},
		{"999999999999.999999", 999_999_999_999_999_999, true, "999999999999.999999"},
		{"000000000001", 1_000_000, true, "1"},
		{"", 0, false, ""},
		{".", 0, false, ""},
		{"12.", 0, false, ""},
		{".5", 0, false, ""},
		{"-1", 0, false, ""},
		{"+1", 0, false, ""},
		{"1e3", 0, false, ""},
		{" 1", 0, false, ""},
		{"1 ", 0, false, ""},
		{"1,5", 0, false, ""},
		{"1.5.5", 0, false, ""},
		{"1.2345678", 0, false, ""},
		{"1234567890123", 0, false, ""},
		{"0x10", 0, false, ""},
		{"NaN", 0, false, ""},
		{"１", 0, false, ""},
		{strings.Repeat("9", 40), 0, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParsePrice(tt.in)
			if ok != tt.ok || ok && got != tt.want {
				t.Fatalf("ParsePrice(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
			}
			if !ok {
				if canonicalPrice(tt.in) {
					t.Errorf("canonicalPrice(%q) for a rejected price", tt.in)
				}
				return
			}
			if s := got.String(); s != tt.canonical {
				t.Errorf("String() = %q, want %q", s, tt.canonical)
			}
			if c := canonicalPrice(tt.in); c != (tt.in == tt.canonical) {
				t.Errorf("canonicalPrice(%q) = %v", tt.in, c)
			}
		})
	}
}

func TestPriceStringNegative(t *testing.T) {
	if s := Price(-1_250_000).String(); s != "-1.25" {
		t.Errorf("String() = %q, want -1.25", s)
	}
}
