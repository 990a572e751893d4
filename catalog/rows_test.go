package catalog

import "testing"

func TestMetaFirst(t *testing.T) {
	t.Parallel()
	m := Meta{1: {{"_price", "5"}, {"_sku", ""}, {"_price", "10"}}}
	tests := []struct {
		id   int64
		key  string
		want string
	}{
		{1, "_price", "5"}, // the first row by meta_id, as get_post_meta(…, true)
		{1, "_sku", ""},
		{1, "_stock", ""},
		{2, "_price", ""},
	}
	for _, tt := range tests {
		if got := m.First(tt.id, tt.key); got != tt.want {
			t.Errorf("First(%d, %q) = %q, want %q", tt.id, tt.key, got, tt.want)
		}
	}
}
