package wpdb

import (
	"context"
	"fmt"

	"catalogd/catalog"
)

// The product posts by ID, whatever their type and status (a product and
// its grouped children); every product at once is productPosts'
// (load_posts.go).

// titleKey is the sort key of post_title that ORDER BY post_title sorts
// by (catalog.Post.TitleKey), made by the server under the column's own
// collation: its weights, cut where the server's sort cuts them
// (max_sort_length). A collation that pads with spaces (PAD SPACE: a
// trailing space changes nothing, and a shorter title compares as if
// padded) gets its trailing spaces trimmed and one appended, so that
// the keys compare byte by byte as the padded titles do: "abc" before
// "abc!", after "abc" and a tab.
const titleKey = `SUBSTRING(IF(CONCAT(LEFT(post_title, 0), 'a') = CONCAT(LEFT(post_title, 0), 'a '),
		WEIGHT_STRING(CONCAT(TRIM(TRAILING ' ' FROM post_title), ' ')), WEIGHT_STRING(post_title)),
		1, @@max_sort_length)`

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
	if err := tx.Select(ctx, &posts, `
		SELECT ID, post_parent, post_type, post_status, post_name, post_title, post_excerpt,
		       `+content+`, post_password, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt,
		       CAST(post_date AS CHAR) AS post_date, menu_order, `+titleKey+` AS title_key
		FROM {posts} WHERE ID IN (?)`, ids); err != nil {
		return nil, fmt.Errorf("wpdb: read posts: %w", err)
	}
	return posts, nil
}
