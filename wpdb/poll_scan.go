package wpdb

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// scanProducts reads every product and variation post's ID, parent, type,
// status and modified time, handing each row to fn: the poller's full scan,
// compared row by row with the last one.
//
// A save always moves post_modified_gmt. WooCommerce's
// WC_Product_Data_Store_CPT::update() (and the variation data store's,
// which follows it) writes the posts row through wp_update_post with
// post_modified_gmt = current_time('mysql', 1) when a post field changed,
// and otherwise, "to record this save event", updates post_modified and
// post_modified_gmt alone; a meta-only change such as a price edit is such
// a save. wc_update_product_stock() (an order reducing stock, a refund
// restoring it) writes the stock through the data store and then calls
// $product->save() on the product that holds the stock (unless $updating,
// when its caller saves it right after): the same update(). WordPress's
// own wp_update_post sets post_modified_gmt to now on every update; only
// wp_publish_post (a scheduled post going live) changes the status alone,
// which the comparison sees too, and the cheap round sooner.
//
// It reads the posts with lo < ID <= hi, by primary key range: the poller
// reads the table in slices, so that no statement outlasts the query
// deadline however large the shop.
func (tx *Tx) scanProducts(ctx context.Context, lo, hi int64, fn func(productRow)) error {
	err := tx.each(ctx, `
		SELECT ID, post_parent, post_type, post_status, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt
		FROM {posts} WHERE ID > ? AND ID <= ? AND post_type IN ('product', 'product_variation')`, []any{lo, hi}, func(rows *sqlx.Rows) error {
		var r productRow
		if err := rows.Scan(&r.ID, &r.Parent, &r.Type, &r.Status, &r.Modified); err != nil {
			return err
		}
		fn(r)
		return nil
	})
	if err != nil {
		return fmt.Errorf("wpdb: scan products: %w", err)
	}
	return nil
}
