package httpapi_test

import (
	"testing"
	"time"

	"catalogd/internal/wpfixture"
)

// A product scheduled for the future carries a post_modified_gmt in the
// future (wp_insert_post sets it to the post date), which once froze the
// change signature's newest modified time. With such a product present,
// edits still show within a poll or two. The edits are written the way
// WordPress and WooCommerce write them, without the product transient
// version: a site with a persistent object cache keeps transients out of
// wp_options, so the posts are all the signature sees.
func TestEditsSeenWithAScheduledProduct(t *testing.T) {
	const poll = 100 * time.Millisecond
	tests := []struct {
		name  string
		path  string
		edit  []string
		check func(r response) bool
	}{
		{
			name: "another product's price edited",
			path: base + "/catalog/products/police-radar",
			// update_post_meta, then wp_update_post's post_modified(_gmt).
			edit: []string{
				`UPDATE wp_postmeta m JOIN wp_posts p ON p.ID = m.post_id SET m.meta_value = '17' WHERE p.post_name = 'police-radar' AND m.meta_key IN ('_price', '_regular_price')`,
				`UPDATE wp_posts SET post_modified = NOW(), post_modified_gmt = UTC_TIMESTAMP() WHERE post_name = 'police-radar'`,
			},
			check: func(r response) bool { return r.status == 200 && price(t, r) == "17.00 on_sale=false" },
		},
		{
			name: "the scheduled product goes live",
			path: base + "/catalog/products/coming-soon",
			// wp_publish_post changes post_status and nothing else.
			edit:  []string{`UPDATE wp_posts SET post_status = 'publish' WHERE post_name = 'coming-soon'`},
			check: func(r response) bool { return r.status == 200 },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shop := newShop()
			shop.Add(wpfixture.Product{Title: "Coming Soon", Status: "future", RegularPrice: "3",
				Date: time.Now().Add(30 * 24 * time.Hour)})
			c := serveCached(t, shop, time.Now)
			c.watch(t, poll)

			before := get(t, c.srv, tt.path)
			if tt.check(before) {
				t.Fatalf("already edited: %d %s", before.status, before.body)
			}
			if r := get(t, c.srv, tt.path); r.header.Get("X-Cache") != "HIT" {
				t.Fatalf("second request not served from the cache: %s", r.header.Get("X-Cache"))
			}
			for _, q := range tt.edit {
				if _, err := c.raw.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			deadline := time.Now().Add(10 * poll)
			for {
				r := get(t, c.srv, tt.path)
				if tt.check(r) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("edit not served %s after it: %d %s (X-Cache %s)", 10*poll, r.status, r.body, r.header.Get("X-Cache"))
				}
				time.Sleep(poll / 2)
			}
		})
	}
}
