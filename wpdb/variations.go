package wpdb

import (
	"context"
	"fmt"

	"catalogd/catalog"
)

// The variations of variable products, enabled (publish) or disabled
// (private), in the storefront's order. Of a variation the catalog reads
// its status, modified time, order and meta, never its slug, title or
// password: they are not read, and not held among a load's rows.

// Variations reads the variations of the variable products, enabled or not,
// in the storefront's order (menu_order, then ID).
func (tx *Tx) Variations(ctx context.Context, parents []int64) ([]catalog.Post, error) {
	if len(parents) == 0 {
		return nil, nil
	}
	var posts []catalog.Post
	if err := tx.Select(ctx, &posts, `
		SELECT ID, post_parent, post_type, post_status, '' AS post_name, '' AS post_title, '' AS post_excerpt,
		       '' AS post_content, '' AS post_password, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt, menu_order
		FROM {posts}
		WHERE post_parent IN (?) AND post_type = 'product_variation'
		ORDER BY menu_order, ID`, parents); err != nil {
		return nil, fmt.Errorf("wpdb: read variations: %w", err)
	}
	return posts, nil
}
