package catalog

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSelection checks the word-by-word selection against the sets made
// whole: every count and page agrees, for unions of several sets, a nil
// set (a term no product carries) and offsets across word boundaries.
func TestSelection(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 1000
	random := func(density float64) bitset {
		b := newBitset(n)
		for i := range n {
			if r.Float64() < density {
				b.set(i)
			}
		}
		return b
	}
	base := random(0.8)
	tests := []struct {
		name   string
		unions [][]bitset
	}{
		{"base alone", nil},
		{"one union of one", [][]bitset{{random(0.3)}}},
		{"a subtree", [][]bitset{{random(0.1), random(0.05), random(0.2)}}},
		{"subtree and framework", [][]bitset{{random(0.1), random(0.2)}, {random(0.5)}}},
		{"unknown framework", [][]bitset{{random(0.3)}, {nil}}},
		{"a nil among sets", [][]bitset{{nil, random(0.3)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The reference: each union made, intersected, the positions listed.
			want := slices.Clone(base)
			for _, u := range tt.unions {
				or := newBitset(n)
				for _, b := range u {
					if b != nil {
						or.orInto(b)
					}
				}
				for i := range want {
					want[i] &= or[i]
				}
			}
			var positions []int
			for i := range n {
				if want[i/64]&(1<<(uint(i)%64)) != 0 {
					positions = append(positions, i)
				}
			}
			s := selection{base: base}
			for _, u := range tt.unions {
				s.where(u)
			}
			if got := s.count(); got != len(positions) {
				t.Fatalf("count = %d, want %d", got, len(positions))
			}
			for _, p := range []struct{ offset, limit int }{{0, 50}, {63, 2}, {64, 1}, {100, 100}, {max(0, len(positions)-1), 50}, {len(positions), 10}} {
				var wantPage []int
				if p.offset < len(positions) {
					wantPage = positions[p.offset:min(len(positions), p.offset+p.limit)]
				}
				got := s.page(p.offset, p.limit)
				if !slices.Equal(got, wantPage) {
					t.Errorf("page(%d, %d) = %v, want %v", p.offset, p.limit, got, wantPage)
				}
			}
		})
	}
}
