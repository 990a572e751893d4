package wpdb

import (
	"context"
	"fmt"

	"catalogd/catalog"
)

// The product posts by ID, whatever their type and status (a product and
// its grouped children); every product at once is productPosts'
// (load_posts.go).

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
	read := func() error {
		return tx.Select(ctx, &posts, `
		SELECT ID, post_parent, post_type, post_status, post_name, post_title, post_excerpt,
		       `+content+`, post_password, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt,
		       CAST(post_date AS CHAR) AS post_date, menu_order, `+tx.titleKeyColumn()+` AS title_key
		FROM {posts} WHERE ID IN (?)`, ids)
	}
	err := read()
	if tx.withoutWeights(err) {
		posts = nil
		err = read()
	}
	if err != nil {
		return nil, fmt.Errorf("wpdb: read posts: %w", err)
	}
	tx.foldTitleKeys(posts)
	return posts, nil
}
