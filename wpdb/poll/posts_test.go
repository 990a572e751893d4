package poll

import (
	"context"
	"testing"

	"catalogd/internal/wpdbtest"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
)

// The cheap reads of the posts return products and variations only: the
// scheduled ones, the new ones by ID range, and some by ID; pages, blog
// posts and orders never.
func TestPollPostReads(t *testing.T) {
	t.Parallel()
	s := wpdbtest.NewShop("wp_")
	radar := s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "20"})
	soon := s.Add(wpfixture.Product{Title: "Soon", Status: "future", RegularPrice: "3"})
	gun := s.Add(wpfixture.Product{Title: "Gun Shop", Type: "variable",
		Variations: []wpfixture.Variation{{Framework: "esx", RegularPrice: "10"}}})
	wpdbtest.RawPost(s, 9001, "page", "publish", "about-us")
	wpdbtest.RawPost(s, 9002, "post", "future", "news")
	wpdbtest.RawPost(s, 9003, "shop_order", "wc-processing", "order")
	db, _ := openShop(t, s)
	view(t, db, func(ctx context.Context, tx *wpdb.Tx) error {
		future, err := scheduledProducts(ctx, tx)
		if err != nil {
			return err
		}
		wpdbtest.AssertIDs(t, "scheduled", wpdbtest.SortedIDs(future), []int64{soon})
		maxID, err := tx.MaxPostID(ctx, nil)
		if err != nil {
			return err
		}
		if maxID != 9003 {
			t.Errorf("highest post ID = %d, want 9003", maxID)
		}
		rows, err := productsByIDRange(ctx, tx, radar, maxID)
		if err != nil {
			return err
		}
		var ids []int64
		for _, r := range rows {
			ids = append(ids, r.ids()...)
		}
		// The variation names its parent too.
		wpdbtest.AssertIDs(t, "created after radar", wpdbtest.SortedIDs(ids), wpdbtest.SortedIDs([]int64{soon, gun, gun + 1, gun}))
		rows, err = productsByID(ctx, tx, []int64{radar, 9001, 424242})
		if err != nil {
			return err
		}
		if len(rows) != 1 || rows[0].ID != radar || rows[0].Status != "publish" || packTime(rows[0].Modified) == 0 {
			t.Errorf("by ID = %+v, want radar alone, published, with its modified time", rows)
		}
		return nil
	})
}

// Option digests: one per option present, moving with its value.
func TestPollOptionSums(t *testing.T) {
	t.Parallel()
	s := wpdbtest.NewShop("wp_")
	db, raw := openShop(t, s)
	read := func() map[string]string {
		t.Helper()
		var m map[string]string
		view(t, db, func(ctx context.Context, tx *wpdb.Tx) error {
			var err error
			m, err = optionSums(ctx, tx, []string{"woocommerce_currency", "blogname", "no_such_option"})
			return err
		})
		return m
	}
	before := read()
	if len(before) != 2 || before["woocommerce_currency"] == "" || before["blogname"] == "" {
		t.Fatalf("digests %v, want the two options present", before)
	}
	wpdbtest.Exec(t, raw, "rename", `UPDATE wp_options SET option_value = 'Other Shop' WHERE option_name = 'blogname'`)
	after := read()
	if after["blogname"] == before["blogname"] || after["woocommerce_currency"] != before["woocommerce_currency"] {
		t.Errorf("digests %v → %v: want blogname's alone to move", before, after)
	}
}

// packTime orders as the times do, and gives 0 for the zero date.
func TestPackTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
	}{
		{"2026-11-21 12:00:00", 20261121120000},
		{"0000-00-00 00:00:00", 0},
		{"", 0},
		{"2026-11-21", 0},
	}
	for _, tt := range tests {
		if got := packTime(tt.in); got != tt.want {
			t.Errorf("packTime(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
	if addSeconds("2026-11-21 23:59:59", 2) != "2026-11-22 00:00:01" {
		t.Errorf("addSeconds across midnight = %q", addSeconds("2026-11-21 23:59:59", 2))
	}
}
