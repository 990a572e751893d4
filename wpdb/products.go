package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Filter selects published products by their term relationships, the way
// WooCommerce's tax_query does: at least one term of each group in Require
// (a Polylang language), and a WPML language.
type Filter struct {
	Require [][]int64 // per group, term_taxonomy_ids of which it needs one
	// WPMLLanguage, when set, keeps only products WPML files under that
	// language (icl_translations, element_type post_product).
	WPMLLanguage string
}

// where returns the conditions on posts p for the filter and their args.
// IN subqueries on term_relationships use its term_taxonomy_id index.
func (f Filter) where() (string, []any) {
	var b strings.Builder
	var args []any
	b.WriteString(`p.post_type = 'product' AND p.post_status = 'publish'`)
	for _, g := range f.Require {
		if len(g) == 0 {
			b.WriteString(` AND FALSE`)
			continue
		}
		b.WriteString(` AND p.ID IN (SELECT object_id FROM {term_relationships} WHERE term_taxonomy_id IN (?))`)
		args = append(args, g)
	}
	if f.WPMLLanguage != "" {
		b.WriteString(` AND p.ID IN (SELECT element_id FROM {icl_translations} WHERE element_type = 'post_product' AND language_code = ?)`)
		args = append(args, f.WPMLLanguage)
	}
	return b.String(), args
}

// ProductIDBySlug finds the published product with the slug that passes
// the filter (a language, on a multilingual shop); found is false when there
// is none. Variations are product_variation posts and never match.
func (tx *Tx) ProductIDBySlug(ctx context.Context, slug string, f Filter) (id int64, found bool, err error) {
	where, args := f.where()
	err = tx.getx(ctx, &id, `SELECT p.ID FROM {posts} p WHERE p.post_name = ? AND `+where+` ORDER BY p.ID LIMIT 1`,
		append([]any{slug}, args...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("wpdb: find product by slug: %w", err)
	}
	return id, true, nil
}

// Post is the part of a posts row the catalog needs.
type Post struct {
	ID       int64  `db:"ID"`
	Parent   int64  `db:"post_parent"`
	Type     string `db:"post_type"`
	Status   string `db:"post_status"`
	Slug     string `db:"post_name"`
	Title    string `db:"post_title"`
	Excerpt  string `db:"post_excerpt"`
	Content  string `db:"post_content"` // only when asked for
	Password string `db:"post_password"`
	// Modified is post_modified_gmt as stored ("2006-01-02 15:04:05" UTC;
	// all zeros for a draft): the Last-Modified of what shows the post.
	Modified string `db:"post_modified_gmt"`
}

// ModifiedTime is the post's post_modified_gmt; zero when unset.
func (p Post) ModifiedTime() time.Time {
	t, err := time.ParseInLocation(time.DateTime, p.Modified, time.UTC)
	if err != nil || t.Year() < 1970 {
		return time.Time{}
	}
	return t
}

// Posts reads the posts with the IDs, in no particular order. The content is
// read only with withContent: the list never shows it, and it is the bulk
// of a row.
func (tx *Tx) Posts(ctx context.Context, ids []int64, withContent bool) ([]Post, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	content := `'' AS post_content`
	if withContent {
		content = `post_content`
	}
	var posts []Post
	if err := tx.selectx(ctx, &posts, `
		SELECT ID, post_parent, post_type, post_status, post_name, post_title, post_excerpt,
		       `+content+`, post_password, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt
		FROM {posts} WHERE ID IN (?)`, ids); err != nil {
		return nil, fmt.Errorf("wpdb: read posts: %w", err)
	}
	return posts, nil
}

// Variations reads the variations of the variable products, enabled or not,
// in the storefront's order (menu_order, then ID).
func (tx *Tx) Variations(ctx context.Context, parents []int64) ([]Post, error) {
	if len(parents) == 0 {
		return nil, nil
	}
	var posts []Post
	if err := tx.selectx(ctx, &posts, `
		SELECT ID, post_parent, post_type, post_status, post_name, post_title, '' AS post_excerpt,
		       '' AS post_content, post_password, CAST(post_modified_gmt AS CHAR) AS post_modified_gmt
		FROM {posts}
		WHERE post_parent IN (?) AND post_type = 'product_variation'
		ORDER BY menu_order, ID`, parents); err != nil {
		return nil, fmt.Errorf("wpdb: read variations: %w", err)
	}
	return posts, nil
}
