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
	posts, err := tx.scanPosts(ctx, `
		SELECT ID, post_parent, post_type, post_status, post_name, post_title, post_excerpt,
		       post_content, post_password, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt
		FROM {posts} WHERE post_type = 'product' AND post_status = 'publish' ORDER BY ID`, false)
	if err != nil {
		return nil, fmt.Errorf("wpdb: read products: %w", err)
	}
	return posts, nil
}

// scanPosts reads the posts a whole load's statement gives, in Posts'
// columns (and menu_order, withOrder), sharing the types' and statuses'
// strings: at 100 000 products a quarter of a million posts allocated
// each of them, 3.5 MB of the load's rows.
func (tx *Tx) scanPosts(ctx context.Context, stmt string, withOrder bool) ([]catalog.Post, error) {
	var posts []catalog.Post
	shared := map[string]string{}
	intern := func(b sql.RawBytes) string {
		if s, ok := shared[string(b)]; ok {
			return s
		}
		s := string(b)
		shared[s] = s
		return s
	}
	var (
		p           catalog.Post
		typ, status sql.RawBytes
	)
	dest := []any{&p.ID, &p.Parent, &typ, &status, &p.Slug, &p.Title, &p.Excerpt, &p.Content, &p.Password, &p.Modified}
	if withOrder {
		dest = append(dest, &p.MenuOrder)
	}
	err := tx.each(ctx, stmt, nil, func(rows *sqlx.Rows) error {
		p = catalog.Post{}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		p.Type, p.Status = intern(typ), intern(status)
		posts = append(posts, p)
		return nil
	})
	return posts, err
}
