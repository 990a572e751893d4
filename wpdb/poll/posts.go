package poll

import (
	"context"
	"fmt"

	"catalogd/wpdb"
)

// The poller's cheap reads of the posts table: each goes through an index
// and reads a few rows whatever the shop's size.

// productRow is what the poller knows of a product or variation post.
type productRow struct {
	ID       int64  `db:"ID"`
	Parent   int64  `db:"post_parent"`
	Type     string `db:"post_type"`
	Status   string `db:"post_status"`
	Modified string `db:"post_modified_gmt"` // as stored, "YYYY-MM-DD hh:mm:ss"
}

// ids are the products the row's change shows on: the post, and a
// variation's parent.
func (r productRow) ids() []int64 {
	if r.Type == "product_variation" && r.Parent > 0 {
		return []int64{r.ID, r.Parent}
	}
	return []int64{r.ID}
}

// productsByIDRange reads the product and variation posts with lo < ID <= hi
// by primary key range: the posts created since the last round.
func productsByIDRange(ctx context.Context, tx *wpdb.Tx, lo, hi int64) ([]productRow, error) {
	var rows []productRow
	if err := tx.Select(ctx, &rows, `
		SELECT ID, post_parent, post_type, post_status, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt
		FROM {posts} WHERE ID > ? AND ID <= ? AND post_type IN ('product', 'product_variation')`, lo, hi); err != nil {
		return nil, fmt.Errorf("wpdb: read new products: %w", err)
	}
	return rows, nil
}

// productsByID reads the product and variation posts with the IDs by
// primary key; a deleted one is absent.
func productsByID(ctx context.Context, tx *wpdb.Tx, ids []int64) ([]productRow, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var rows []productRow
	if err := tx.Select(ctx, &rows, `
		SELECT ID, post_parent, post_type, post_status, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt
		FROM {posts} WHERE ID IN (?) AND post_type IN ('product', 'product_variation')`, ids); err != nil {
		return nil, fmt.Errorf("wpdb: read products by ID: %w", err)
	}
	return rows, nil
}

// scheduledProducts reads the IDs of the products and variations scheduled
// for later (post_status 'future') through WordPress's type_status_date
// index (post_type, post_status, post_date, ID): an index range holding
// only them, read from the index alone (the optimizer may take
// type_status_author, WordPress 6.x's other index that leads with
// post_type and post_status, to the same effect). WordPress's cron publishes one at its date (wp_publish_post)
// by flipping its status alone: it leaves this set and nothing else moves.
func scheduledProducts(ctx context.Context, tx *wpdb.Tx) ([]int64, error) {
	var ids []int64
	if err := tx.Select(ctx, &ids, `
		SELECT ID FROM {posts} WHERE post_type IN ('product', 'product_variation') AND post_status = 'future'`); err != nil {
		return nil, fmt.Errorf("wpdb: read scheduled products: %w", err)
	}
	return ids, nil
}
