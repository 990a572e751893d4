package wpfixture

import (
	"context"
	"fmt"
	"path"
	"strings"
)

// EditPrice is a shop manager changing a simple (or external) product's
// prices in the classic product editor and clicking Update: edit_post →
// wp_update_post (the posts row, post_modified) and, in save_post,
// WC_Meta_Box_Product_Data::save → WC_Product::save →
// WC_Product_Data_Store_CPT::update: update_post_meta(_regular_price,
// _sale_price), handle_updated_props (_price, update_lookup_table),
// clear_caches (wc_delete_product_transients). A grouped product's child
// edited this way leaves the grouped product's own _price rows as they were:
// WC_Product::maybe_defer_product_sync syncs only a post_parent, and grouped
// children have none (their list is the grouped product's _children); the
// grouped _price moves when the grouped product itself is saved.
func (o *Ops) EditPrice(ctx context.Context, id int64, regular, sale string) error {
	if err := o.editPost(ctx, id, nil, nil); err != nil {
		return err
	}
	return o.wcSave(ctx, id, wcChanges{meta: []kv{{"_regular_price", regular}, {"_sale_price", sale}}})
}

// EditVariationPrice is "Save changes" on the Variations tab (WC_AJAX::
// save_variations → WC_Meta_Box_Product_Data::save_variations): the
// variation's save (WC_Product_Variation_Data_Store_CPT::update, same
// steps as a product's, its parent's transients cleared too), then the
// parent's sync at shutdown (WC_Post_Data::deferred_product_sync →
// WC_Product_Variable::sync → WC_Product_Variable_Data_Store_CPT::sync_price:
// delete_post_meta _price, _sale_price, _regular_price; add_post_meta one
// _price row per distinct price of the visible variations, sorted
// numerically; update_lookup_table; then the parent's save) and
// wc_delete_product_transients(parent).
func (o *Ops) EditVariationPrice(ctx context.Context, variation int64, regular, sale string) error {
	parent, err := o.parentOf(ctx, variation)
	if err != nil {
		return err
	}
	if err := o.wcSave(ctx, variation, wcChanges{meta: []kv{{"_regular_price", regular}, {"_sale_price", sale}}}); err != nil {
		return err
	}
	if err := o.syncVariablePrice(ctx, parent); err != nil {
		return err
	}
	if err := o.wcSave(ctx, parent, wcChanges{}); err != nil {
		return err
	}
	return o.wcDeleteProductTransients(ctx, parent)
}

// syncVariablePrice is WC_Product_Variable_Data_Store_CPT::sync_price.
func (o *Ops) syncVariablePrice(ctx context.Context, parent int64) error {
	hide, _, err := o.option(ctx, "woocommerce_hide_out_of_stock_items")
	if err != nil {
		return err
	}
	q := "SELECT ID FROM " + o.t("posts") + " p WHERE post_parent = ? AND post_type = 'product_variation' AND post_status = 'publish'"
	if hide == "yes" {
		q += " AND NOT EXISTS (SELECT 1 FROM " + o.t("postmeta") + " m WHERE m.post_id = p.ID AND m.meta_key = '_stock_status' AND m.meta_value = 'outofstock')"
	}
	kids, err := o.ids(ctx, q+" ORDER BY menu_order, ID", parent)
	if err != nil {
		return err
	}
	if len(kids) == 0 {
		if kids, err = o.ids(ctx, "SELECT ID FROM "+o.t("posts")+" WHERE post_parent = ? AND post_type = 'product_variation' AND post_status IN ('publish', 'private') ORDER BY menu_order, ID", parent); err != nil {
			return err
		}
	}
	var prices []string
	if len(kids) > 0 {
		rows, err := o.DB.QueryContext(ctx, "SELECT meta_value FROM "+o.t("postmeta")+" WHERE meta_key = '_price' AND post_id IN ("+joinIDs(kids)+")")
		if err != nil {
			return err
		}
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				rows.Close()
				return err
			}
			prices = append(prices, v)
		}
		rows.Close()
	}
	for _, k := range []string{"_price", "_sale_price", "_regular_price"} {
		if _, err := o.deletePostMeta(ctx, parent, k); err != nil {
			return err
		}
	}
	for _, p := range distinctSorted(prices) {
		if p == "" {
			continue
		}
		if err := o.addPostMeta(ctx, parent, "_price", p); err != nil {
			return err
		}
	}
	return o.updateLookupTable(ctx, parent)
}

// StartSales is the first half of WP-Cron's wc_scheduled_sales: the
// products whose sale is due to start (get_starting_sales: a
// _sale_price_dates_from in the past and a _price that is not the sale
// price) get set_price(sale price) and set_date_on_sale_from("") — no sale
// price: both dates cleared — and are saved (the date meta deleted,
// handle_updated_props writing _price, the lookup row, the transients);
// then the product transient version and delete_transient(wc_products_onsale).
// It returns the products it started.
func (o *Ops) StartSales(ctx context.Context) ([]int64, error) {
	p := o.t("postmeta")
	ids, err := o.ids(ctx, "SELECT postmeta.post_id FROM "+p+" AS postmeta LEFT JOIN "+p+" AS postmeta_2 ON postmeta.post_id = postmeta_2.post_id "+
		"LEFT JOIN "+p+" AS postmeta_3 ON postmeta.post_id = postmeta_3.post_id WHERE postmeta.meta_key = '_sale_price_dates_from' "+
		"AND postmeta_2.meta_key = '_price' AND postmeta_3.meta_key = '_sale_price' AND postmeta.meta_value > 0 "+
		"AND postmeta.meta_value < ? AND postmeta_2.meta_value != postmeta_3.meta_value", o.now().Unix())
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		sale, err := o.meta(ctx, id, "_sale_price")
		if err != nil {
			return nil, err
		}
		ch := wcChanges{meta: []kv{{"_sale_price_dates_from", ""}}}
		if sale == "" {
			ch.meta = append(ch.meta, kv{"_sale_price_dates_to", ""})
		}
		if err := o.wcSave(ctx, id, ch); err != nil {
			return nil, err
		}
	}
	return ids, o.salesDone(ctx, ids)
}

// salesDone is what wc_scheduled_sales does after saving the products whose
// sale it started or ended, if any: the product transient version bumped,
// and the on-sale list's transient deleted.
func (o *Ops) salesDone(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if err := o.transientVersion(ctx, "product"); err != nil {
		return err
	}
	return o.deleteTransient(ctx, "wc_products_onsale")
}

// EndSales is the second half of wc_scheduled_sales: the products whose
// sale has ended (get_ending_sales: a _sale_price_dates_to in the past and
// a _price that is not the regular price) get set_price(regular),
// set_sale_price(""), both dates cleared, and are saved: _sale_price and
// the date rows are deleted, _price rewritten to the regular price. It
// returns the products it ended.
func (o *Ops) EndSales(ctx context.Context) ([]int64, error) {
	p := o.t("postmeta")
	ids, err := o.ids(ctx, "SELECT postmeta.post_id FROM "+p+" AS postmeta LEFT JOIN "+p+" AS postmeta_2 ON postmeta.post_id = postmeta_2.post_id "+
		"LEFT JOIN "+p+" AS postmeta_3 ON postmeta.post_id = postmeta_3.post_id WHERE postmeta.meta_key = '_sale_price_dates_to' "+
		"AND postmeta_2.meta_key = '_price' AND postmeta_3.meta_key = '_regular_price' AND postmeta.meta_value > 0 "+
		"AND postmeta.meta_value < ? AND postmeta_2.meta_value != postmeta_3.meta_value", o.now().Unix())
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		ch := wcChanges{meta: []kv{{"_sale_price", ""}, {"_sale_price_dates_from", ""}, {"_sale_price_dates_to", ""}}}
		if err := o.wcSave(ctx, id, ch); err != nil {
			return nil, err
		}
	}
	return ids, o.salesDone(ctx, ids)
}

// OrderReducesStock is an order (checkout, or "processing") reducing a
// managed-stock product's stock by qty: wc_reduce_stock_levels →
// wc_update_product_stock($product, $qty, 'decrease') →
// WC_Product_Data_Store_CPT::update_product_stock (add_post_meta(_stock, 0,
// unique), then "UPDATE postmeta SET meta_value = meta_value %+f" — the
// string turned DOUBLE, so "5" minus 1.000000 is stored "4" — and
// update_lookup_table), then the
// product's save: WC_Product::validate_props sets the stock status from the
// quantity (outofstock at 0 without backorders), so _stock_status, the
// outofstock product_visibility term, the lookup row and the transients
// follow. The order's own rows (HPOS or shop_order posts, order notes) are
// left out: catalogd reads none of them.
func (o *Ops) OrderReducesStock(ctx context.Context, id int64, qty int) error {
	return o.updateProductStock(ctx, id, -qty)
}

// RefundRestoresStock is a refund with "restock refunded items":
// wc_restock_refunded_items → wc_update_product_stock(..., 'increase'),
// the same statements as OrderReducesStock the other way.
func (o *Ops) RefundRestoresStock(ctx context.Context, id int64, qty int) error {
	return o.updateProductStock(ctx, id, qty)
}

func (o *Ops) updateProductStock(ctx context.Context, id int64, delta int) error {
	if err := o.addPostMetaUnique(ctx, id, "_stock", "0"); err != nil {
		return err
	}
	if err := o.exec(ctx, fmt.Sprintf("UPDATE %s SET meta_value = meta_value %+f WHERE post_id = %d AND meta_key='_stock'",
		o.t("postmeta"), float64(delta), id)); err != nil {
		return err
	}
	if err := o.updateLookupTable(ctx, id); err != nil {
		return err
	}
	// WC_Product::validate_props: the stock status the quantity implies.
	stock, err := o.meta(ctx, id, "_stock")
	if err != nil {
		return err
	}
	backorders, _ := o.meta(ctx, id, "_backorders")
	status := "instock"
	var q float64
	fmt.Sscan(stock, &q) //nolint:errcheck // "" is 0, as PHP reads it
	if q <= 0 {
		status = "outofstock"
		if backorders != "no" && backorders != "" {
			status = "onbackorder"
		}
	}
	cur, _ := o.meta(ctx, id, "_stock_status")
	ch := wcChanges{}
	if cur != status {
		ch.meta = []kv{{"_stock_status", status}}
		ch.visChanged = true
	}
	return o.wcSave(ctx, id, ch)
}

// Trash is "Move to Trash": wp_trash_post → its wp_trash_post action
// (WC_Post_Data::trash_post: the variations trashed too), add_post_meta
// _wp_trash_meta_status and _wp_trash_meta_time, wp_update_post(status
// trash) → wp_insert_post: wp_add_trashed_suffix_to_post_name_for_post
// (add_post_meta _wp_desired_post_slug, post_name → "…__trashed"), the row
// updated, the transition's term recount and product_query transient.
func (o *Ops) Trash(ctx context.Context, id int64) error {
	kids, err := o.ids(ctx, "SELECT ID FROM "+o.t("posts")+" WHERE post_parent = ? AND post_type = 'product_variation' ORDER BY ID", id)
	if err != nil {
		return err
	}
	for _, k := range kids {
		if err := o.trash(ctx, k); err != nil {
			return err
		}
	}
	if err := o.trash(ctx, id); err != nil {
		return err
	}
	return o.wcDeleteProductTransients(ctx, id)
}

func (o *Ops) trash(ctx context.Context, id int64) error {
	prev, err := o.status(ctx, id)
	if err != nil || prev == "trash" {
		return err
	}
	if err := o.addPostMeta(ctx, id, "_wp_trash_meta_status", prev); err != nil {
		return err
	}
	if err := o.addPostMeta(ctx, id, "_wp_trash_meta_time", fmt.Sprint(o.now().Unix())); err != nil {
		return err
	}
	var name string
	if err := o.DB.QueryRowContext(ctx, "SELECT post_name FROM "+o.t("posts")+" WHERE ID = ?", id).Scan(&name); err != nil {
		return err
	}
	if !strings.HasSuffix(name, "__trashed") {
		if err := o.addPostMeta(ctx, id, "_wp_desired_post_slug", name); err != nil {
			return err
		}
		name = truncate(name, 191) + "__trashed"
		if err := o.exec(ctx, "UPDATE "+o.t("posts")+" SET post_name = ? WHERE ID = ?", name, id); err != nil {
			return err
		}
	}
	local, gmt := o.mysqlTimes()
	if err := o.exec(ctx, "UPDATE "+o.t("posts")+" SET post_status = 'trash', post_name = ?, post_modified = ?, post_modified_gmt = ? WHERE ID = ?",
		name, local, gmt, id); err != nil {
		return err
	}
	return o.transition(ctx, id, prev, "trash")
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Untrash is "Restore": wp_untrash_post → the wp_untrash_post_status filter
// (WordPress restores to draft since 5.6; WC_Post_Data::wp_untrash_post_status
// gives products their _wp_trash_meta_status back), delete_post_meta of the
// two trash metas, wp_update_post(status) → wp_insert_post (the desired slug
// restored and its meta deleted, the row updated, the transition), then
// untrashed_post (WC_Post_Data::untrash_post: the variations restored).
func (o *Ops) Untrash(ctx context.Context, id int64) error {
	if err := o.untrash(ctx, id); err != nil {
		return err
	}
	kids, err := o.ids(ctx, "SELECT ID FROM "+o.t("posts")+" WHERE post_parent = ? AND post_type = 'product_variation' AND post_status = 'trash' ORDER BY ID", id)
	if err != nil {
		return err
	}
	for _, k := range kids {
		if err := o.untrash(ctx, k); err != nil {
			return err
		}
	}
	return o.wcDeleteProductTransients(ctx, id)
}

func (o *Ops) untrash(ctx context.Context, id int64) error {
	prev, err := o.meta(ctx, id, "_wp_trash_meta_status")
	if err != nil {
		return err
	}
	if prev == "" {
		prev = "draft"
	}
	for _, k := range []string{"_wp_trash_meta_status", "_wp_trash_meta_time"} {
		if _, err := o.deletePostMeta(ctx, id, k); err != nil {
			return err
		}
	}
	var name string
	if err := o.DB.QueryRowContext(ctx, "SELECT post_name FROM "+o.t("posts")+" WHERE ID = ?", id).Scan(&name); err != nil {
		return err
	}
	if desired, _ := o.meta(ctx, id, "_wp_desired_post_slug"); desired != "" {
		if _, err := o.deletePostMeta(ctx, id, "_wp_desired_post_slug"); err != nil {
			return err
		}
		name = desired
	}
	local, gmt := o.mysqlTimes()
	if err := o.exec(ctx, "UPDATE "+o.t("posts")+" SET post_status = ?, post_name = ?, post_modified = ?, post_modified_gmt = ? WHERE ID = ?",
		prev, name, local, gmt, id); err != nil {
		return err
	}
	return o.transition(ctx, id, "trash", prev)
}

// SetStatus is the editor's Publish box changing the status (to draft,
// pending or private) and Update: edit_post → wp_update_post (the row, the
// transition's term recount and product_query transient), then
// WooCommerce's save in save_post.
func (o *Ops) SetStatus(ctx context.Context, id int64, status string) error {
	if err := o.editPost(ctx, id, []kv{{"post_status", status}}, nil); err != nil {
		return err
	}
	return o.wcSave(ctx, id, wcChanges{})
}

// DeletePermanently is "Delete Permanently" (or the REST API's
// force=true): wp_delete_post($id, true): delete_post_meta of the trash
// metas, wp_delete_object_term_relationships (per taxonomy: one DELETE,
// the counts, the product_query transient), attachments re-parented, every
// meta row deleted one by one (delete_metadata_by_mid), the delete_post
// action (WC_Post_Data::delete_post_data: the variations deleted the same
// way, the lookup row deleted), then the posts row.
func (o *Ops) DeletePermanently(ctx context.Context, id int64) error {
	var parent int64
	if err := o.DB.QueryRowContext(ctx, "SELECT post_parent FROM "+o.t("posts")+" WHERE ID = ?", id).Scan(&parent); err != nil {
		return err
	}
	for _, k := range []string{"_wp_trash_meta_status", "_wp_trash_meta_time"} {
		if _, err := o.deletePostMeta(ctx, id, k); err != nil {
			return err
		}
	}
	for _, tax := range []string{"product_type", "product_visibility", "product_cat", "product_tag", "pa_framework"} {
		tts, err := o.objectTerms(ctx, id, tax)
		if err != nil {
			return err
		}
		if len(tts) > 0 {
			if err := o.removeObjectTerms(ctx, id, tts); err != nil {
				return err
			}
		}
	}
	if err := o.exec(ctx, "UPDATE "+o.t("posts")+" SET post_parent = ? WHERE post_parent = ? AND post_type = 'attachment'", parent, id); err != nil {
		return err
	}
	mids, err := o.ids(ctx, "SELECT meta_id FROM "+o.t("postmeta")+" WHERE post_id = ? ", id)
	if err != nil {
		return err
	}
	for _, m := range mids {
		if err := o.exec(ctx, "DELETE FROM "+o.t("postmeta")+" WHERE meta_id = ?", m); err != nil {
			return err
		}
	}
	// delete_post → WC_Post_Data::delete_post_data
	kids, err := o.ids(ctx, "SELECT ID FROM "+o.t("posts")+" WHERE post_parent = ? AND post_type = 'product_variation' ORDER BY ID", id)
	if err != nil {
		return err
	}
	for _, k := range kids {
		if err := o.DeletePermanently(ctx, k); err != nil {
			return err
		}
	}
	if err := o.exec(ctx, "DELETE FROM "+o.t("wc_product_meta_lookup")+" WHERE product_id = ?", id); err != nil {
		return err
	}
	if parent > 0 {
		if err := o.wcDeleteProductTransients(ctx, parent); err != nil {
			return err
		}
	}
	return o.exec(ctx, "DELETE FROM "+o.t("posts")+" WHERE ID = ?", id)
}

// PublishFuture is WP-Cron's publish_future_post event for a scheduled
// product: check_and_publish_future_post → wp_publish_post, whose only
// write to the posts row is post_status (post_modified and
// post_modified_gmt stay where wp_insert_post put them: at the future post
// date), then wp_transition_post_status (the term recount, the
// product_query transient). WooCommerce's meta box save does not run (no
// form was posted).
func (o *Ops) PublishFuture(ctx context.Context, id int64) error {
	if err := o.exec(ctx, "UPDATE "+o.t("posts")+" SET post_status = 'publish' WHERE ID = ?", id); err != nil {
		return err
	}
	return o.transition(ctx, id, "future", "publish")
}

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
