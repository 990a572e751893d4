package wpdb

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jmoiron/sqlx"

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
	// Counted first (on the type_status_date index), so that the posts
	// are read into an array of their size: grown as they came, the
	// arrays left behind were four times its size in garbage (120 MB at
	// 100 000 products), and the last grown the load's largest allocation.
	var n int
	if err := tx.getx(ctx, &n, `SELECT COUNT(*) FROM {posts} WHERE post_type = 'product' AND post_status = 'publish'`); err != nil {
		return nil, fmt.Errorf("wpdb: count products: %w", err)
	}
	posts, err := tx.scanPosts(ctx, `
		SELECT ID, post_parent, post_type, post_status, post_name, post_title, post_excerpt,
		       post_content, post_password, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt
		FROM {posts} WHERE post_type = 'product' AND post_status = 'publish' ORDER BY ID`, false, n)
	if err != nil {
		return nil, fmt.Errorf("wpdb: read products: %w", err)
	}
	return posts, nil
}

// scanPosts reads the posts a whole load's statement gives, in Posts'
// columns (and menu_order, withOrder), into an array of room for size,
// sharing the types' and statuses' strings: at 100 000 products a quarter
// of a million posts allocated each of them, 3.5 MB of the load's rows.
func (tx *Tx) scanPosts(ctx context.Context, stmt string, withOrder bool, size int) ([]catalog.Post, error) {
	posts := make([]catalog.Post, 0, size)
	strs := map[string]string{}
	var (
		p           catalog.Post
		id, parent  rowID
		typ, status sql.RawBytes
	)
	dest := []any{&id, &parent, &typ, &status, &p.Slug, &p.Title, &p.Excerpt, &p.Content, &p.Password, &p.Modified}
	if withOrder {
		dest = append(dest, &p.MenuOrder)
	}
	err := tx.each(ctx, stmt, nil, func(rows *sqlx.Rows) error {
		p = catalog.Post{}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		p.ID, p.Parent = int64(id), int64(parent)
		p.Type, p.Status = shared(strs, typ), shared(strs, status)
		posts = append(posts, p)
		return nil
	})
	return posts, err
}
