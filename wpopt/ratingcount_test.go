package wpopt

import "testing"

// TestRatingCount holds RatingCount to what PHP computes for the lookup
// table (array_sum(array_map('intval', (array) maybe_unserialize($v))),
// each want below printed by php-cli with WordPress's functions.php).
func TestRatingCount(t *testing.T) {
	tests := []struct {
		raw  string
		want int64
	}{
		{"", 0},
		{"3", 3},
		{" 7x", 7},
		{"-2", -2},
		{`a:2:{i:4;i:1;i:5;i:3;}`, 4},
		{`a:2:{i:4;i:1;i:5;i:3;} `, 4},
		{`a:1:{i:5;s:2:"2x";}`, 2},
		{`a:1:{i:1;d:2.9;}`, 2},
		{`a:1:{i:1;b:1;}`, 1},
		{`a:0:{}`, 0},
		{`a:1:{s:1:"5";i:3;}`, 3},
		{`a:1:{i:5;i:-2;}`, -2},
		{`a:3:{i:1;i:0;i:2;i:0;i:5;i:12;}`, 12},
		{`a:2:{i:4;i:1;i:5;i:3`, 0},       // not serialized: intval("a:2…")
		{`a:2:{i:4;i:1;i:5;s:9:"x";}`, 0}, // damaged: false
		{`i:4;`, 4},
		{`s:1:"9";`, 9},
		{`b:1;`, 1},
		{`N;`, 0},
	}
	for _, tt := range tests {
		noPanic(t, "RatingCount("+tt.raw+")", func() {
			if got := RatingCount(tt.raw); got != tt.want {
				t.Errorf("RatingCount(%q) = %d, want %d", tt.raw, got, tt.want)
			}
		})
	}
}
