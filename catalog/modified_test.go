package catalog_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"catalogd/api"

	"catalogd/catalog"
	"catalogd/internal/wpfixture"
)

// A resource's Modified is the newest change of what it shows: the
// product's save, a variation's, a sale date passed; never in the future
// (a scheduled product's post_modified_gmt is its publication date); and,
// for terms and settings WordPress keeps no time for, when catalogd first
// loaded the shop.
func TestModified(t *testing.T) {
	s := newShop()
	s.Add(wpfixture.Product{Title: "Untouched", RegularPrice: "1"})
	s.Add(wpfixture.Product{Title: "Saved", RegularPrice: "1"})
	s.Add(wpfixture.Product{Title: "Options", Type: "variable", Variations: []wpfixture.Variation{
		{Framework: "esx", RegularPrice: "5"}, {Framework: "qbox", RegularPrice: "6"}}})
	s.Add(wpfixture.Product{Title: "Post Dated", RegularPrice: "1"})
	s.Add(wpfixture.Product{Title: "Flash Sale", RegularPrice: "10", SalePrice: "5", SaleFrom: now.Add(-10 * time.Minute)})
	f := load(t, s)

	loaded := now.Add(-2 * time.Hour)
	clock := loaded
	cat := catalog.New(f.db, catalog.Config{Now: func() time.Time { return clock }})
	if _, err := cat.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	clock = now
	for _, q := range []string{
		`UPDATE wp_posts SET post_modified_gmt = ? - INTERVAL 30 MINUTE WHERE post_name = 'saved'`,
		`UPDATE wp_posts SET post_modified_gmt = ? - INTERVAL 20 MINUTE WHERE post_name = 'options-qbox'`,
		`UPDATE wp_posts SET post_modified_gmt = ? + INTERVAL 10 DAY WHERE post_name = 'post-dated'`,
	} {
		if _, err := f.raw.Exec(q, now.Format(time.DateTime)); err != nil {
			t.Fatal(err)
		}
	}
	if err := cat.Reload(context.Background()); err != nil { // what the poller does when it sees the edits
		t.Fatal(err)
	}

	tests := []struct {
		slug string
		want time.Time
	}{
		{"untouched", loaded},
		{"saved", now.Add(-30 * time.Minute)},
		{"options", now.Add(-20 * time.Minute)},
		{"post-dated", now},
		{"flash-sale", now.Add(-10 * time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			p, err := cat.Product(context.Background(), tt.slug)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Modified.Equal(tt.want) {
				t.Errorf("Modified = %v, want %v", p.Modified.UTC(), tt.want)
			}
		})
	}
	l, err := cat.Products(context.Background(), api.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if !l.Modified.Equal(now) {
		t.Errorf("list Modified = %v, want %v (its post-dated product's, clamped)", l.Modified.UTC(), now)
	}
	listed := false
	for i, p := range l.Items {
		if l.Products[i].Slug != "saved" {
			continue
		}
		listed = true
		if !p.Modified.Equal(now.Add(-30 * time.Minute)) {
			t.Errorf("listed saved product: Modified = %v", p.Modified.UTC())
		}
	}
	if !listed {
		t.Error("the saved product is not listed")
	}
	cats, err := cat.Categories(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !cats.Modified.Equal(loaded) {
		t.Errorf("categories Modified = %v, want the load time %v", cats.Modified.UTC(), loaded)
	}
}

// The change feed tells a product save from a change of the shop's terms or
// settings: a save moves the list's and categories' Modified but no other
// product's; a setting moves every product's.
func TestModifiedFollowsWhatChanged(t *testing.T) {
	s := newShop()
	s.Add(wpfixture.Product{Title: "Untouched", RegularPrice: "1"})
	s.Add(wpfixture.Product{Title: "Saved", RegularPrice: "1"})
	f := load(t, s)
	t0 := now.Add(-3 * time.Hour)
	var clock atomic.Int64
	clock.Store(t0.Unix())
	cat := catalog.New(f.db, catalog.Config{Now: func() time.Time { return time.Unix(clock.Load(), 0) }})
	ctx := context.Background()
	changed := follow(t, cat, f.db, 20*time.Millisecond)

	modified := func(slug string) time.Time {
		t.Helper()
		p, err := cat.Product(ctx, slug)
		if err != nil {
			t.Fatal(err)
		}
		return p.Modified
	}
	// edit runs the statements at the instant, and waits for the change
	// that applies them: everything for a setting, else a product.
	edit := func(at time.Time, everything bool, qs ...string) {
		t.Helper()
		clock.Store(at.Unix())
		for _, q := range qs {
			if _, err := f.raw.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		for {
			select {
			case a := <-changed:
				if a.Everything == everything {
					return
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the poller did not see the edit")
			}
		}
	}

	t1 := t0.Add(time.Hour)
	edit(t1, false, `UPDATE wp_posts SET post_modified_gmt = '`+t1.UTC().Format(time.DateTime)+`' WHERE post_name = 'saved'`,
		`INSERT INTO wp_options (option_name, option_value, autoload) VALUES ('_transient_product-transient-version', '1', 'yes')
		 ON DUPLICATE KEY UPDATE option_value = option_value + 1`)
	if got := modified("untouched"); !got.Equal(t0) {
		t.Errorf("after another product's save: untouched Modified = %v, want the load time %v", got.UTC(), t0)
	}
	if got := modified("saved"); !got.Equal(t1) {
		t.Errorf("saved Modified = %v, want %v", got.UTC(), t1)
	}
	if l, err := cat.Categories(ctx); err != nil || !l.Modified.Equal(t1) {
		t.Errorf("categories Modified = %v (%v), want %v: the counts may have moved", l.Modified.UTC(), err, t1)
	}

	t2 := t0.Add(2 * time.Hour)
	edit(t2, true, `INSERT INTO wp_options (option_name, option_value, autoload) VALUES ('woocommerce_price_num_decimals', '3', 'yes')
		ON DUPLICATE KEY UPDATE option_value = '3'`)
	if got := modified("untouched"); !got.Equal(t2) {
		t.Errorf("after a setting changed: untouched Modified = %v, want %v", got.UTC(), t2)
	}
}

// A change the feed applies moves the Last-Modified of what it changed,
// even when WordPress records no time for it: set_post_thumbnail writes
// only the _thumbnail_id meta. It never moves backwards, not even when a
// later change sets an older post_modified_gmt.
func TestModifiedMovesOnMetaOnlyChange(t *testing.T) {
	s := newShop()
	s.Add(wpfixture.Product{Title: "Pictured", RegularPrice: "1", Image: "2026/11/old.jpg"})
	s.Add(wpfixture.Product{Title: "Other", RegularPrice: "1", Image: "2026/11/new.jpg"})
	f := load(t, s)
	clock := now
	cat := catalog.New(f.db, catalog.Config{Now: func() time.Time { return clock }})
	ctx := context.Background()
	product := func() *catalog.Product {
		t.Helper()
		p, err := cat.Product(ctx, "pictured")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	before := product()
	var id int64
	if err := f.raw.QueryRow(`SELECT ID FROM wp_posts WHERE post_name = 'pictured'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	apply := func(at time.Time, q string) {
		t.Helper()
		if _, err := f.raw.Exec(q); err != nil {
			t.Fatal(err)
		}
		clock = at
		if _, err := cat.Apply(ctx, catalog.Change{Posts: []int64{id}, Kind: catalog.KindProduct}); err != nil {
			t.Fatal(err)
		}
	}
	t1 := now.Add(time.Hour)
	apply(t1, `UPDATE wp_postmeta m JOIN wp_posts o ON o.post_name = 'other' JOIN wp_postmeta om ON om.post_id = o.ID AND om.meta_key = '_thumbnail_id'
		SET m.meta_value = om.meta_value WHERE m.post_id = (SELECT ID FROM wp_posts WHERE post_name = 'pictured') AND m.meta_key = '_thumbnail_id'`)
	after := product()
	if str(after.Image) == str(before.Image) {
		t.Fatalf("the image did not change: %q", str(after.Image))
	}
	if !after.Modified.Equal(t1) {
		t.Errorf("after set_post_thumbnail: Modified = %v, want %v (was %v)", after.Modified.UTC(), t1, before.Modified.UTC())
	}
	l, err := cat.Products(ctx, api.ListQuery{Page: 1, PerPage: 10})
	if err != nil {
		t.Fatal(err)
	}
	if l.Modified.Before(t1) {
		t.Errorf("list Modified = %v, want %v or later", l.Modified.UTC(), t1)
	}

	t2 := now.Add(2 * time.Hour)
	apply(t2, `UPDATE wp_posts SET post_modified_gmt = '2020-01-01 00:00:00', post_title = 'Pictured Again' WHERE post_name = 'pictured'`)
	if got := product().Modified; !got.Equal(t2) {
		t.Errorf("after a change that set an older post_modified_gmt: Modified = %v, want %v", got.UTC(), t2)
	}
}
