package wpfixture

import (
	"context"
	"fmt"
	"strings"
)

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
