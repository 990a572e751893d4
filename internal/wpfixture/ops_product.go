package wpfixture

import (
	"context"
	"fmt"
	"path"
	"strings"
)

// SetCatalogVisibility is the Publish box's "Catalog visibility" (visible,
// catalog, search, hidden) and Update: edit_post, then the save's
// update_visibility (wp_set_post_terms on product_visibility, its
// exclude-from-catalog / exclude-from-search terms).
func (o *Ops) SetCatalogVisibility(ctx context.Context, id int64, visibility string) error {
	if err := o.editPost(ctx, id, nil, nil); err != nil {
		return err
	}
	return o.wcSave(ctx, id, wcChanges{visibility: visibility, visChanged: true})
}

// ReplaceImage is a new product image chosen in the classic editor: the
// upload (media_handle_upload → wp_insert_attachment: the attachment's
// posts row, parented to the product, then update_attached_file
// (_wp_attached_file) and wp_update_attachment_metadata), the AJAX
// set-post-thumbnail (set_post_thumbnail → update_post_meta(_thumbnail_id),
// nothing else: the product's post_modified does not move yet), then
// Update (edit_post and the save, which find _thumbnail_id already set). It
// returns the attachment's ID.
func (o *Ops) ReplaceImage(ctx context.Context, id int64, file string) (int64, error) {
	local, gmt := o.mysqlTimes()
	home, _, _ := o.option(ctx, "siteurl")
	base := path.Base(file)
	title := strings.TrimSuffix(base, path.Ext(base))
	mime := map[string]string{".png": "image/png", ".webp": "image/webp", ".gif": "image/gif"}[path.Ext(file)]
	if mime == "" {
		mime = "image/jpeg"
	}
	res, err := o.DB.ExecContext(ctx, "INSERT INTO "+o.t("posts")+" (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, "+
		"post_status, comment_status, ping_status, post_password, post_name, to_ping, pinged, post_modified, post_modified_gmt, "+
		"post_content_filtered, post_parent, guid, menu_order, post_type, post_mime_type, comment_count) "+
		"VALUES (1, ?, ?, '', ?, '', 'inherit', 'open', 'closed', '', ?, '', '', ?, ?, '', ?, ?, 0, 'attachment', ?, 0)",
		local, gmt, title, slugify(title), local, gmt, id, home+"/wp-content/uploads/"+file, mime)
	if err != nil {
		return 0, fmt.Errorf("wpfixture ops: insert attachment: %w", err)
	}
	att, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	if _, err := o.updatePostMeta(ctx, att, "_wp_attached_file", file); err != nil {
		return 0, err
	}
	if _, err := o.updatePostMeta(ctx, att, "_wp_attachment_metadata", Serialize(map[string]any{"width": 1200, "height": 800, "file": file},
		"width", "height", "file")); err != nil {
		return 0, err
	}
	if _, err := o.updatePostMeta(ctx, id, "_thumbnail_id", fmt.Sprint(att)); err != nil {
		return 0, err
	}
	if err := o.editPost(ctx, id, nil, nil); err != nil {
		return 0, err
	}
	return att, o.wcSave(ctx, id, wcChanges{})
}

// EditImageFile is an image edited in the media library (crop, rotate,
// scale) and saved: wp_save_image writes the edited copy under a new name
// and records it on the attachment alone (update_attached_file, then
// wp_update_attachment_metadata and _wp_attachment_backup_sizes); neither
// the attachment's posts row nor any product's moves.
func (o *Ops) EditImageFile(ctx context.Context, att int64, file string) error {
	if _, err := o.updatePostMeta(ctx, att, "_wp_attached_file", file); err != nil {
		return err
	}
	if _, err := o.updatePostMeta(ctx, att, "_wp_attachment_metadata", Serialize(map[string]any{"width": 800, "height": 800, "file": file},
		"width", "height", "file")); err != nil {
		return err
	}
	orig := Serialize(map[string]any{"width": 1200, "height": 800, "file": path.Base(file)}, "width", "height", "file")
	_, err := o.updatePostMeta(ctx, att, "_wp_attachment_backup_sizes", `a:1:{s:9:"full-orig";`+orig+`}`)
	return err
}

// EditExcerpt is the "Product short description" box edited and Update:
// edit_post → wp_update_post (post_excerpt), then WooCommerce's save.
func (o *Ops) EditExcerpt(ctx context.Context, id int64, excerpt string) error {
	if err := o.editPost(ctx, id, []kv{{"post_excerpt", excerpt}}, nil); err != nil {
		return err
	}
	return o.wcSave(ctx, id, wcChanges{})
}

// EditTitle is the product's title edited and Update: edit_post →
// wp_update_post (post_title; a published product keeps its post_name),
// then WooCommerce's save.
func (o *Ops) EditTitle(ctx context.Context, id int64, title string) error {
	if err := o.editPost(ctx, id, []kv{{"post_title", title}}, nil); err != nil {
		return err
	}
	return o.wcSave(ctx, id, wcChanges{})
}

// SetCategories is the "Product categories" box changed and Update:
// wp_insert_post's tax_input → wp_set_post_terms(product_cat) (new
// relationships inserted, old ones deleted, both counted), then
// WooCommerce's save.
func (o *Ops) SetCategories(ctx context.Context, id int64, slugs ...string) error {
	if err := o.editPost(ctx, id, nil, map[string][]string{"product_cat": slugs}); err != nil {
		return err
	}
	return o.wcSave(ctx, id, wcChanges{})
}

// SetTags is the "Product tags" box changed and Update: tax_input →
// wp_set_post_terms(product_tag), then WooCommerce's save.
func (o *Ops) SetTags(ctx context.Context, id int64, slugs ...string) error {
	if err := o.editPost(ctx, id, nil, map[string][]string{"product_tag": slugs}); err != nil {
		return err
	}
	return o.wcSave(ctx, id, wcChanges{})
}

// EditSKU is the Inventory tab's SKU changed and Update: WooCommerce's
// save writes _sku (deleting the row for an empty one) and the lookup row.
func (o *Ops) EditSKU(ctx context.Context, id int64, sku string) error {
	if err := o.editPost(ctx, id, nil, nil); err != nil {
		return err
	}
	return o.wcSave(ctx, id, wcChanges{meta: []kv{{"_sku", sku}}})
}

// SetFrameworks is the Attributes tab's "Save attributes" with the global
// Framework attribute's terms (WC_AJAX::save_attributes →
// $product->set_attributes → save: update_attributes →
// wp_set_object_terms(pa_framework) and _product_attributes).
func (o *Ops) SetFrameworks(ctx context.Context, id int64, variable bool, slugs ...string) error {
	attrs := (&Shop{}).productAttributes(slugs, nil, variable)
	return o.wcSave(ctx, id, wcChanges{frameworks: slugs, attrsMeta: attrs})
}

// NewProduct is what a shop manager types into "Add new product".
type NewProduct struct {
	Title, Content, Excerpt string
	RegularPrice            string
	Categories              []string // product_cat slugs
}

// PublishNew is "Add new product" then Publish in the classic editor:
// post-new.php → get_default_post_to_edit(product, true) → wp_insert_post
// of an auto-draft (title "AUTO-DRAFT" by WC_Post_Data::wp_insert_post_data,
// post_date_gmt and post_modified_gmt zero, guid set by a second UPDATE),
// wp_set_post_lock (_edit_lock); then Publish: edit_post → wp_update_post
// (the auto-draft's floating date replaced by now, post_name from the
// title, status publish), tax_input (product_cat), _edit_last, the
// transition (term recount, product_query transient), and WooCommerce's
// first save, which writes every prop that has no row yet
// (get_props_to_update) except empty ones, the product_type term, _price
// and the lookup row. It returns the new product's ID.
func (o *Ops) PublishNew(ctx context.Context, p NewProduct) (int64, error) {
	local, _ := o.mysqlTimes()
	zero := "0000-00-00 00:00:00"
	res, err := o.DB.ExecContext(ctx, "INSERT INTO "+o.t("posts")+" (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, "+
		"post_status, comment_status, ping_status, post_password, post_name, to_ping, pinged, post_modified, post_modified_gmt, "+
		"post_content_filtered, post_parent, guid, menu_order, post_type, post_mime_type, comment_count) "+
		"VALUES (1, ?, ?, '', 'AUTO-DRAFT', '', 'auto-draft', 'open', 'closed', '', '', '', '', ?, ?, '', 0, '', 0, 'product', '', 0)",
		local, zero, local, zero)
	if err != nil {
		return 0, fmt.Errorf("wpfixture ops: insert auto-draft: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	home, _, _ := o.option(ctx, "home")
	if err := o.exec(ctx, "UPDATE "+o.t("posts")+" SET guid = ? WHERE ID = ?", fmt.Sprintf("%s/?post_type=product&p=%d", home, id), id); err != nil {
		return 0, err
	}
	if _, err := o.updatePostMeta(ctx, id, "_edit_lock", fmt.Sprintf("%d:1", o.now().Unix())); err != nil {
		return 0, err
	}

	// Publish.
	nowLocal, nowGMT := o.mysqlTimes()
	cats := p.Categories
	if len(cats) == 0 {
		cats = []string{"uncategorized"} // WC_Post_Data::force_default_term
	}
	if err := o.editPost(ctx, id, []kv{{"post_date", nowLocal}, {"post_date_gmt", nowGMT}, {"post_content", p.Content},
		{"post_title", p.Title}, {"post_excerpt", p.Excerpt}, {"post_status", "publish"}, {"post_name", slugify(p.Title)}},
		map[string][]string{"product_cat": cats}); err != nil {
		return 0, err
	}
	meta := []kv{{"_regular_price", p.RegularPrice}, {"total_sales", "0"}, {"_tax_status", "taxable"}, {"_tax_class", ""},
		{"_manage_stock", "no"}, {"_backorders", "no"}, {"_sold_individually", "no"}, {"_virtual", "no"},
		{"_downloadable", "no"}, {"_download_limit", "-1"}, {"_download_expiry", "-1"}, {"_stock", phpNull},
		{"_stock_status", "instock"}, {"_wc_average_rating", "0"}, {"_wc_review_count", "0"}}
	return id, o.wcSave(ctx, id, wcChanges{meta: meta})
}
