package wpdb

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/jmoiron/sqlx"

	"catalogd/catalog"
)

// productPosts reads every product and variation post in one pass over
// the posts table, for a whole load: the published products (rows.Posts,
// by ID, with their texts), their variations (rows.Related, in menu_order
// and ID, as Variations gives a parent's), and, with br, every other
// product or variation post for a feed's baseline (br.rest). One pass, not
// one per kind: through a buffer pool smaller than the shop each pass
// reads every page again, and the passes would be the load's longest path
// (docs/performance.md#the-hit-path-and-first-requests). The texts are
// sent for published products only, and whether a post is one, or a
// variation, the server says: it compares post_type and post_status under
// the table's collation.
func (tx *Tx) productPosts(ctx context.Context, rows *catalog.ProductRows, br *baselineRead) error {
	// Counted first (on the type_status_date index), so that the posts are
	// read into arrays of their size: grown as they come, the arrays left
	// behind would be several times their size in garbage, and the last
	// grown the load's largest allocation.
	var n struct {
		Products   int `db:"products"`
		Variations int `db:"variations"`
	}
	if err := tx.Get(ctx, &n, `
		SELECT COALESCE(SUM(post_type = 'product' AND post_status = 'publish'), 0) AS products,
		       COALESCE(SUM(post_type = 'product_variation'), 0) AS variations
		FROM {posts} WHERE post_type IN ('product', 'product_variation')`); err != nil {
		return fmt.Errorf("wpdb: count products: %w", err)
	}
	products := make([]catalog.Post, 0, n.Products)
	variations := make([]catalog.Post, 0, n.Variations)
	var rest []catalog.Post
	strs := map[string]string{}
	var (
		p              catalog.Post
		id, parent     rowID
		typ, status    sql.RawBytes
		pub, variation bool
	)
	dest := []any{&id, &parent, &typ, &status, &pub, &variation,
		&p.Slug, &p.Title, &p.Excerpt, &p.Content, &p.Password, &p.Modified, &p.MenuOrder, &p.Date, &p.TitleKey}
	read := func() error {
		return tx.Each(ctx, `
		SELECT ID, post_parent, post_type, post_status,
		       post_type = 'product' AND post_status = 'publish' AS pub,
		       post_type = 'product_variation' AS variation,
		       IF(post_type = 'product' AND post_status = 'publish', post_name, '') AS post_name,
		       IF(post_type = 'product' AND post_status = 'publish', post_title, '') AS post_title,
		       IF(post_type = 'product' AND post_status = 'publish', post_excerpt, '') AS post_excerpt,
		       IF(post_type = 'product' AND post_status = 'publish', post_content, '') AS post_content,
		       IF(post_type = 'product' AND post_status = 'publish', post_password, '') AS post_password,
		       CAST(post_modified_gmt AS CHAR) AS post_modified_gmt, menu_order,
		       IF(post_type = 'product' AND post_status = 'publish', CAST(post_date AS CHAR), '') AS post_date,
		       IF(post_type = 'product' AND post_status = 'publish', `+tx.titleKeyColumn()+`, '') AS title_key
		FROM {posts} WHERE post_type IN ('product', 'product_variation')`, nil, func(r *sqlx.Rows) error {
			p = catalog.Post{}
			if err := r.Scan(dest...); err != nil {
				return err
			}
			p.ID, p.Parent = int64(id), int64(parent)
			p.Type, p.Status = shared(strs, typ), shared(strs, status)
			switch {
			case pub:
				products = append(products, p)
			case variation:
				variations = append(variations, p)
			case br != nil:
				rest = append(rest, p)
			}
			return nil
		})
	}
	err := read()
	if tx.withoutWeights(err) {
		products, variations, rest = products[:0], variations[:0], rest[:0]
		err = read()
	}
	if err != nil {
		return fmt.Errorf("wpdb: read products and variations: %w", err)
	}
	tx.foldTitleKeys(products)
	// The table's order is its primary key's, unless the server chose an
	// index: sorted only when not.
	byID := func(a, b catalog.Post) int { return cmp.Compare(a.ID, b.ID) }
	if !slices.IsSortedFunc(products, byID) {
		slices.SortFunc(products, byID)
	}
	// A variation is one of the catalog's when its parent is a published
	// product (the join the statement of its own made); the others are
	// the baseline's.
	published := make(map[int64]struct{}, len(products))
	for _, p := range products {
		published[p.ID] = struct{}{}
	}
	related := variations[:0]
	for _, v := range variations {
		if _, ok := published[v.Parent]; ok {
			related = append(related, v)
			continue
		}
		if br != nil {
			rest = append(rest, v)
		}
	}
	clear(variations[len(related):]) // their strings go
	slices.SortFunc(related, func(a, b catalog.Post) int {
		return cmp.Or(cmp.Compare(a.MenuOrder, b.MenuOrder), cmp.Compare(a.ID, b.ID))
	})
	rows.Posts, rows.Related = products, related
	if br != nil {
		br.rest = rest
	}
	return nil
}
