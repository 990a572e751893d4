package wpdb

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"catalogd/catalog"
)

// The variations of variable products, enabled (publish) or disabled
// (private), in the storefront's order. Of a variation the catalog reads
// its status, modified time, order and meta, never its slug, title or
// password: they are not read (at 100 000 products, 4 MB of a load's rows).

// Variations reads the variations of the variable products, enabled or not,
// in the storefront's order (menu_order, then ID).
func (tx *Tx) Variations(ctx context.Context, parents []int64) ([]catalog.Post, error) {
	if len(parents) == 0 {
		return nil, nil
	}
	var posts []catalog.Post
	if err := tx.selectx(ctx, &posts, `
		SELECT ID, post_parent, post_type, post_status, '' AS post_name, '' AS post_title, '' AS post_excerpt,
		       '' AS post_content, '' AS post_password, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt, menu_order
		FROM {posts}
		WHERE post_parent IN (?) AND post_type = 'product_variation'
		ORDER BY menu_order, ID`, parents); err != nil {
		return nil, fmt.Errorf("wpdb: read variations: %w", err)
	}
	return posts, nil
}

// PublishedVariations reads the variations of every published product,
// enabled or not, in the storefront's order (menu_order, then ID). The
// join walks the post_parent index from each product; the order is made
// here, as a sort of the join in the database costs more than the join
// (at 100 000 products: 1 s against 2.5 s, and a full scan of the posts
// table when MySQL sorts).
func (tx *Tx) PublishedVariations(ctx context.Context) ([]catalog.Post, error) {
	// Room for every variation, of published products or not: counted on
	// the type_status_date index, where the join's count would cost the
	// join again (scanPosts: read into an array grown as they came, the
	// arrays left behind were four times its size).
	var n int
	if err := tx.getx(ctx, &n, `SELECT COUNT(*) FROM {posts} WHERE post_type = 'product_variation'`); err != nil {
		return nil, fmt.Errorf("wpdb: count variations: %w", err)
	}
	posts, err := tx.scanPosts(ctx, `
		SELECT v.ID, v.post_parent, v.post_type, v.post_status, '' AS post_name, '' AS post_title, '' AS post_excerpt,
		       '' AS post_content, '' AS post_password, CAST(v.post_modified_gmt AS CHAR) AS post_modified_gmt, v.menu_order
		FROM {posts} p JOIN {posts} v ON v.post_parent = p.ID
		WHERE p.post_type = 'product' AND p.post_status = 'publish' AND v.post_type = 'product_variation'`, true, n)
	if err != nil {
		return nil, fmt.Errorf("wpdb: read variations: %w", err)
	}
	slices.SortFunc(posts, func(a, b catalog.Post) int {
		return cmp.Or(cmp.Compare(a.MenuOrder, b.MenuOrder), cmp.Compare(a.ID, b.ID))
	})
	return posts, nil
}
