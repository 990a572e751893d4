package wpdb

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"catalogd/internal/wpfixture"
)

// The cheap reads of the posts return products and variations only: the
// scheduled ones, the new ones by ID range, and some by ID; pages, blog
// posts and orders never.
func TestPollPostReads(t *testing.T) {
	t.Parallel()
	s := newTestShop("wp_")
	radar := s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "20"})
	soon := s.Add(wpfixture.Product{Title: "Soon", Status: "future", RegularPrice: "3"})
	gun := s.Add(wpfixture.Product{Title: "Gun Shop", Type: "variable",
		Variations: []wpfixture.Variation{{Framework: "esx", RegularPrice: "10"}}})
	rawPost(s, 9001, "page", "publish", "about-us")
	rawPost(s, 9002, "post", "future", "news")
	rawPost(s, 9003, "shop_order", "wc-processing", "order")
	db, _ := openShop(t, s)
	view(t, db, func(ctx context.Context, tx *Tx) error {
		future, err := tx.scheduledProducts(ctx)
		if err != nil {
			return err
		}
		assertIDs(t, "scheduled", sortedIDs(future), []int64{soon})
		maxID, err := tx.maxPostID(ctx, nil)
		if err != nil {
			return err
		}
		if maxID != 9003 {
			t.Errorf("highest post ID = %d, want 9003", maxID)
		}
		rows, err := tx.productsByIDRange(ctx, radar, maxID)
		if err != nil {
			return err
		}
		var ids []int64
		for _, r := range rows {
			ids = append(ids, r.ids()...)
		}
		// The variation names its parent too.
		assertIDs(t, "created after radar", sortedIDs(ids), sortedIDs([]int64{soon, gun, gun + 1, gun}))
		rows, err = tx.productsByID(ctx, []int64{radar, 9001, 424242})
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
	s := newTestShop("wp_")
	db, raw := openShop(t, s)
	read := func() map[string]string {
		t.Helper()
		var m map[string]string
		view(t, db, func(ctx context.Context, tx *Tx) error {
			var err error
			m, err = tx.optionSums(ctx, []string{"woocommerce_currency", "blogname", "no_such_option"})
			return err
		})
		return m
	}
	before := read()
	if len(before) != 2 || before["woocommerce_currency"] == "" || before["blogname"] == "" {
		t.Fatalf("digests %v, want the two options present", before)
	}
	exec(t, raw, "rename", `UPDATE wp_options SET option_value = 'Other Shop' WHERE option_name = 'blogname'`)
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

// Every statement the gate read sends the server is counted, at the first
// read (where MariaDB answers that it has no
// information_schema_stats_expiry) and after, and that answer is no
// errored query: the statements the session executed (its Questions)
// equal those the DB counted.
func TestPostsUpdatedCountsEveryStatement(t *testing.T) {
	t.Parallel()
	s := newTestShop("wp_")
	s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "20"})
	var errs atomic.Int64
	db, _ := openShopWith(t, s, Options{Prefix: s.Prefix, Observe: func(_ time.Duration, err error) {
		if err != nil {
			errs.Add(1)
		}
	}})
	for read := range 3 {
		view(t, db, func(ctx context.Context, tx *Tx) error {
			questions := func() int64 {
				t.Helper()
				var st struct {
					Name string `db:"Variable_name"`
					N    int64  `db:"Value"`
				}
				if err := tx.tx.GetContext(ctx, &st, `SHOW SESSION STATUS LIKE 'Questions'`); err != nil {
					t.Fatalf("read Questions: %v", err)
				}
				return st.N
			}
			q0 := questions()
			q1 := questions()
			self := q1 - q0 // the SHOW's own count
			n0 := db.Queries()
			_, _, ok, err := tx.postsUpdated(ctx)
			if err != nil {
				return err
			}
			if !ok {
				t.Errorf("read %d: no UPDATE_TIME row for wp_posts", read)
			}
			if sent, counted := questions()-q1-self, db.Queries()-n0; sent != counted {
				t.Errorf("read %d: %d statements sent, %d counted", read, sent, counted)
			}
			return nil
		})
	}
	if n := errs.Load(); n != 0 {
		t.Errorf("%d errored queries observed, want none", n)
	}
}
