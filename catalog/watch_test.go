package catalog_test

import (
	"context"
	"testing"
	"time"

	"catalogd/api"

	"catalogd/catalog"
	"catalogd/wpdb/wpfixture"
)

// watch starts the change poller and returns once it has read its first
// signature: an edit made after that is one the poller sees.
func watch(t *testing.T, ctx context.Context, cat *catalog.Catalog, src catalog.Signer, every time.Duration, changed func()) {
	t.Helper()
	baseline := make(chan struct{})
	go cat.Watch(ctx, src, every, changed, catalog.OnBaseline(func() { close(baseline) }))
	select {
	case <-baseline:
	case <-time.After(5 * time.Second):
		t.Fatal("the poller read no first signature")
	}
}

// A product trashed after the catalog was first loaded (catalogd reads the
// shop's languages at start) and before the poller's first signature read
// is gone from the list once the poller started: that signature already
// counts the trashed product, so no later change would rebuild the list.
func TestWatchBaselineDropsOlderPopulation(t *testing.T) {
	s := newShop()
	s.Add(wpfixture.Product{Title: "Kept", RegularPrice: "1"})
	s.Add(wpfixture.Product{Title: "Trashed", RegularPrice: "1"})
	f := load(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if l, err := f.cat.Products(ctx, api.ListQuery{}); err != nil || l.Total != 2 {
		t.Fatalf("before: Products = %v, %v; want 2", l, err)
	}
	// wp_trash_post: the post's status, and its terms recounted.
	if _, err := f.raw.Exec(`UPDATE wp_posts SET post_status = 'trash', post_name = 'trashed__trashed',
		post_modified_gmt = post_modified_gmt + INTERVAL 1 MINUTE WHERE post_name = 'trashed'`); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateCounts(ctx, f.raw); err != nil {
		t.Fatal(err)
	}
	watch(t, ctx, f.cat, f.db, time.Hour, func() {})
	if l, err := f.cat.Products(ctx, api.ListQuery{}); err != nil || l.Total != 1 {
		t.Errorf("after the poller started: Products total = %v (%v); want 1, the trashed product gone", l.Total, err)
	}
}
