package wpdb

import (
	"context"
	"fmt"

	"catalogd/catalog"
)

// The product posts: some by ID, whatever their type and status (a product
// and its grouped children), or every published product at once.

// Posts reads the posts with the IDs, in no particular order. The content is
// read only with withContent: the list never shows it, and it is the bulk
// of a row.
func (tx *Tx) Posts(ctx context.Context, ids []int64, withContent bool) ([]catalog.Post, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	content := `'' AS post_content`
	if withContent {
		content = `post_content`
	}
	var posts []catalog.Post
	if err := tx.selectx(ctx, &posts, `
		SELECT ID, post_parent, post_type, post_status, post_name, post_title, post_excerpt,
		       `+content+`, post_password, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt
		FROM {posts} WHERE ID IN (?)`, ids); err != nil {
		return nil, fmt.Errorf("wpdb: read posts: %w", err)
	}
	return posts, nil
}

// PublishedProducts reads every published product, content included, by ID.
func (tx *Tx) PublishedProducts(ctx context.Context) ([]catalog.Post, error) {
	var posts []catalog.Post
	if err := tx.selectx(ctx, &posts, `
		SELECT ID, post_parent, post_type, post_status, post_name, post_title, post_excerpt,
		       post_content, post_password, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt
		FROM {posts} WHERE post_type = 'product' AND post_status = 'publish' ORDER BY ID`); err != nil {
		return nil, fmt.Errorf("wpdb: read products: %w", err)
	}
	return posts, nil
}
