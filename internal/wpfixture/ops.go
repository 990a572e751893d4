package wpfixture

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"html"
	"strings"
	"time"
)

// This file and ops_*.go perform, on a live database, the statements
// WordPress and WooCommerce issue when a shop manager, WP-Cron or a
// customer's order changes the catalog: the same INSERT/UPDATE/DELETE
// statements, in the same order, one by one without a transaction (as
// $wpdb runs them), so that the change feeds are tested against what a real
// shop writes. Each operation names the PHP functions it mirrors
// (WordPress 6.x/7.0, WooCommerce 9–11, HPOS off, classic product editor).
//
// The primitives below mirror WordPress's own: update_metadata,
// add_metadata, delete_metadata, wp_set_object_terms (+ wp_update_term_count),
// update_option/add_option/delete_option, set_transient/delete_transient;
// and WooCommerce's WC_Cache_Helper::get_transient_version,
// wc_delete_product_transients and the lookup table's update.

// Ops performs WordPress + WooCommerce operations on a shop's database.
type Ops struct {
	DB     *sql.DB
	Prefix string
	// ObjectCache: the site runs a persistent object cache (Redis,
	// Memcached). Transients then live in the cache and never touch
	// wp_options; without one (false), set_transient/delete_transient write
	// _transient_* and _transient_timeout_* rows in wp_options.
	ObjectCache bool
	// Now is the site's clock (time.Now when nil).
	Now func() time.Time
	// Loc is the site's timezone (the timezone_string option), in which
	// post_date and post_modified are stored; their _gmt twins are UTC.
	// UTC when nil.
	Loc *time.Location
	// Version is WC_VERSION, written to _product_version by every save.
	Version string
}

func (o *Ops) now() time.Time {
	if o.Now != nil {
		return o.Now().Truncate(time.Second)
	}
	return time.Now().Truncate(time.Second)
}

// mysqlTimes returns current_time('mysql') and current_time('mysql', 1).
func (o *Ops) mysqlTimes() (local, gmt string) {
	n := o.now()
	loc := o.Loc
	if loc == nil {
		loc = time.UTC
	}
	return n.In(loc).Format(time.DateTime), n.UTC().Format(time.DateTime)
}

func (o *Ops) t(name string) string { return o.Prefix + name }

func (o *Ops) exec(ctx context.Context, q string, args ...any) error {
	if _, err := o.DB.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("wpfixture ops: %s: %w", firstWords(q), err)
	}
	return nil
}

func firstWords(q string) string {
	if len(q) > 60 {
		return q[:60] + "…"
	}
	return q
}

// --- post meta: update_metadata, add_metadata, delete_metadata ---

// metaValues is get_post_meta($id, $key, false): every row's value in
// meta_id order.
func (o *Ops) metaValues(ctx context.Context, id int64, key string) ([]string, error) {
	rows, err := o.DB.QueryContext(ctx, "SELECT meta_value FROM "+o.t("postmeta")+
		" WHERE post_id = ? AND meta_key = ? ORDER BY meta_id", id, key)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v sql.NullString
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v.String)
	}
	return out, rows.Err()
}

// meta is get_post_meta($id, $key, true): the first row's value, "" when none.
func (o *Ops) meta(ctx context.Context, id int64, key string) (string, error) {
	vs, err := o.metaValues(ctx, id, key)
	if err != nil || len(vs) == 0 {
		return "", err
	}
	return vs[0], nil
}

// updatePostMeta is update_post_meta() → update_metadata(): nothing when the
// single stored value is already the new one; add_metadata when the key has
// no row; else UPDATE every row of the key. It reports whether it wrote.
func (o *Ops) updatePostMeta(ctx context.Context, id int64, key, value string) (bool, error) {
	old, err := o.metaValues(ctx, id, key)
	if err != nil {
		return false, err
	}
	if len(old) == 1 && old[0] == value {
		return false, nil
	}
	if len(old) == 0 {
		return true, o.addPostMeta(ctx, id, key, value)
	}
	return true, o.exec(ctx, "UPDATE "+o.t("postmeta")+" SET meta_value = ? WHERE post_id = ? AND meta_key = ?", value, id, key)
}

// addPostMeta is add_post_meta() (not unique): one INSERT.
func (o *Ops) addPostMeta(ctx context.Context, id int64, key, value string) error {
	return o.exec(ctx, "INSERT INTO "+o.t("postmeta")+" (post_id, meta_key, meta_value) VALUES (?, ?, ?)", id, key, value)
}

// addPostMetaUnique is add_post_meta($id, $key, $value, true): nothing when
// the key has a row.
func (o *Ops) addPostMetaUnique(ctx context.Context, id int64, key, value string) error {
	var n int
	if err := o.DB.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+o.t("postmeta")+" WHERE meta_key = ? AND post_id = ?", key, id).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	return o.addPostMeta(ctx, id, key, value)
}

// deletePostMeta is delete_post_meta() → delete_metadata(): the meta_ids are
// selected, then deleted in one statement; nothing when there are none. It
// reports whether it deleted.
func (o *Ops) deletePostMeta(ctx context.Context, id int64, key string) (bool, error) {
	ids, err := o.ids(ctx, "SELECT meta_id FROM "+o.t("postmeta")+" WHERE meta_key = ? AND post_id = ?", key, id)
	if err != nil || len(ids) == 0 {
		return false, err
	}
	return true, o.exec(ctx, "DELETE FROM "+o.t("postmeta")+" WHERE meta_id IN ("+joinIDs(ids)+")")
}

// updateOrDeletePostMeta is WC_Data_Store_WP::update_or_delete_post_meta: an
// empty value deletes the row (except _tax_class, a must-exist key), any
// other is update_post_meta.
func (o *Ops) updateOrDeletePostMeta(ctx context.Context, id int64, key, value string) (bool, error) {
	if value == phpNull {
		// A null prop (a stock quantity not managed) is no '' for in_array's
		// strict check: update_post_meta stores it as ''.
		return o.updatePostMeta(ctx, id, key, "")
	}
	if value == "" && key != "_tax_class" {
		return o.deletePostMeta(ctx, id, key)
	}
	return o.updatePostMeta(ctx, id, key, value)
}

// phpNull stands for PHP's null as a prop's value.
const phpNull = "\x00null"

// updateTermMeta is update_term_meta() → update_metadata('term').
func (o *Ops) updateTermMeta(ctx context.Context, termID int64, key, value string) error {
	var old []string
	rows, err := o.DB.QueryContext(ctx, "SELECT meta_value FROM "+o.t("termmeta")+" WHERE term_id = ? AND meta_key = ? ORDER BY meta_id", termID, key)
	if err != nil {
		return err
	}
	for rows.Next() {
		var v sql.NullString
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return err
		}
		old = append(old, v.String)
	}
	rows.Close()
	switch {
	case len(old) == 1 && old[0] == value:
		return nil
	case len(old) == 0:
		return o.exec(ctx, "INSERT INTO "+o.t("termmeta")+" (term_id, meta_key, meta_value) VALUES (?, ?, ?)", termID, key, value)
	}
	return o.exec(ctx, "UPDATE "+o.t("termmeta")+" SET meta_value = ? WHERE term_id = ? AND meta_key = ?", value, termID, key)
}

func (o *Ops) ids(ctx context.Context, q string, args ...any) ([]int64, error) {
	rows, err := o.DB.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ",")
}

// --- terms: wp_set_object_terms, wp_update_term_count ---

// TermTTID returns the term_taxonomy_id and term_id of a term by slug.
func (o *Ops) TermTTID(ctx context.Context, taxonomy, slug string) (ttID, termID int64, err error) {
	err = o.DB.QueryRowContext(ctx, "SELECT tt.term_taxonomy_id, t.term_id FROM "+o.t("terms")+" t JOIN "+o.t("term_taxonomy")+
		" tt ON tt.term_id = t.term_id WHERE tt.taxonomy = ? AND t.slug = ?", taxonomy, slug).Scan(&ttID, &termID)
	if errors.Is(err, sql.ErrNoRows) {
		err = fmt.Errorf("wpfixture ops: no %s term %q", taxonomy, slug)
	}
	return ttID, termID, err
}

// objectTerms returns the post's term_taxonomy_ids in the taxonomy.
func (o *Ops) objectTerms(ctx context.Context, id int64, taxonomy string) ([]int64, error) {
	return o.ids(ctx, "SELECT tr.term_taxonomy_id FROM "+o.t("term_relationships")+" tr JOIN "+o.t("term_taxonomy")+
		" tt ON tt.term_taxonomy_id = tr.term_taxonomy_id WHERE tr.object_id = ? AND tt.taxonomy = ? ORDER BY tr.term_taxonomy_id", id, taxonomy)
}

// setObjectTerms is wp_set_object_terms($id, $terms, $taxonomy, false) with
// the terms as slugs: one INSERT per new relationship, wp_update_term_count
// of the added ones, then wp_remove_object_terms of the ones no longer
// wanted (one DELETE, then their counts). Its set_object_terms and
// deleted_term_relationships actions run
// WC_Post_Data::delete_product_query_transients.
func (o *Ops) setObjectTerms(ctx context.Context, id int64, taxonomy string, slugs ...string) error {
	var want []int64
	for _, s := range slugs {
		tt, _, err := o.TermTTID(ctx, taxonomy, s)
		if err != nil {
			return err
		}
		want = append(want, tt)
	}
	old, err := o.objectTerms(ctx, id, taxonomy)
	if err != nil {
		return err
	}
	var added []int64
	for _, tt := range want {
		if contains(old, tt) || contains(added, tt) {
			continue
		}
		if err := o.exec(ctx, "INSERT INTO "+o.t("term_relationships")+" (object_id, term_taxonomy_id) VALUES (?, ?)", id, tt); err != nil {
			return err
		}
		added = append(added, tt)
	}
	if err := o.updateTermCount(ctx, added...); err != nil {
		return err
	}
	var removed []int64
	for _, tt := range old {
		if !contains(want, tt) {
			removed = append(removed, tt)
		}
	}
	if len(removed) > 0 {
		if err := o.removeObjectTerms(ctx, id, removed); err != nil {
			return err
		}
	}
	return o.productQueryTransients(ctx) // set_object_terms
}

// removeObjectTerms is wp_remove_object_terms: one DELETE, the counts, and
// the deleted_term_relationships action (WooCommerce's product query
// transient version).
func (o *Ops) removeObjectTerms(ctx context.Context, id int64, tts []int64) error {
	if err := o.exec(ctx, "DELETE FROM "+o.t("term_relationships")+" WHERE object_id = ? AND term_taxonomy_id IN ("+joinIDs(tts)+")", id); err != nil {
		return err
	}
	if err := o.updateTermCount(ctx, tts...); err != nil {
		return err
	}
	return o.productQueryTransients(ctx)
}

// updateTermCount is wp_update_term_count → _update_post_term_count (which
// _wc_term_recount, product_cat's and product_tag's callback, runs first):
// the published objects of each term, written with $wpdb->update. It leaves
// out _wc_term_recount's product_count_product_cat term meta.
func (o *Ops) updateTermCount(ctx context.Context, tts ...int64) error {
	for _, tt := range tts {
		var n int64
		if err := o.DB.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+o.t("term_relationships")+", "+o.t("posts")+
			" WHERE "+o.t("posts")+".ID = "+o.t("term_relationships")+".object_id AND post_status IN ('publish') AND post_type IN ('product') AND term_taxonomy_id = ?", tt).Scan(&n); err != nil {
			return err
		}
		if err := o.exec(ctx, "UPDATE "+o.t("term_taxonomy")+" SET count = ? WHERE term_taxonomy_id = ?", n, tt); err != nil {
			return err
		}
	}
	return nil
}

// allObjectTerms returns every term_taxonomy_id of the post.
func (o *Ops) allObjectTerms(ctx context.Context, id int64) ([]int64, error) {
	return o.ids(ctx, "SELECT term_taxonomy_id FROM "+o.t("term_relationships")+" WHERE object_id = ? ORDER BY term_taxonomy_id", id)
}

func contains(s []int64, v int64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// --- options and transients ---

// option is get_option: the value and whether the row exists.
func (o *Ops) option(ctx context.Context, name string) (string, bool, error) {
	var v string
	err := o.DB.QueryRowContext(ctx, "SELECT option_value FROM "+o.t("options")+" WHERE option_name = ? LIMIT 1", name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return v, err == nil, err
}

// UpdateOption is update_option(): nothing when the value is unchanged,
// add_option when the row is missing, else one UPDATE.
func (o *Ops) UpdateOption(ctx context.Context, name, value string) error {
	old, ok, err := o.option(ctx, name)
	if err != nil {
		return err
	}
	if ok && old == value {
		return nil
	}
	if !ok {
		return o.addOption(ctx, name, value, "auto")
	}
	return o.exec(ctx, "UPDATE "+o.t("options")+" SET option_value = ? WHERE option_name = ?", value, name)
}

// addOption is add_option(): INSERT … ON DUPLICATE KEY UPDATE. autoload is
// what WordPress 6.6+ stores: "on", "off" or "auto".
func (o *Ops) addOption(ctx context.Context, name, value, autoload string) error {
	return o.exec(ctx, "INSERT INTO "+o.t("options")+" (option_name, option_value, autoload) VALUES (?, ?, ?) "+
		"ON DUPLICATE KEY UPDATE option_name = VALUES(option_name), option_value = VALUES(option_value), autoload = VALUES(autoload)",
		name, value, autoload)
}

// deleteOption is delete_option(): the row is read first, deleted when it
// exists. It reports whether it deleted.
func (o *Ops) deleteOption(ctx context.Context, name string) (bool, error) {
	_, ok, err := o.option(ctx, name)
	if err != nil || !ok {
		return false, err
	}
	return true, o.exec(ctx, "DELETE FROM "+o.t("options")+" WHERE option_name = ?", name)
}

// setTransient is set_transient() without a persistent object cache: a
// new transient is add_option'd (a timeout row first when it expires; the
// value then not autoloaded), an existing one update_option'd (and its
// timeout). With an object cache it writes nothing.
func (o *Ops) setTransient(ctx context.Context, name, value string, expiration time.Duration) error {
	if o.ObjectCache {
		return nil
	}
	opt, timeout := "_transient_"+name, "_transient_timeout_"+name
	_, ok, err := o.option(ctx, opt)
	if err != nil {
		return err
	}
	if !ok {
		autoload := "on"
		if expiration > 0 {
			autoload = "off"
			if err := o.addOption(ctx, timeout, fmt.Sprint(o.now().Add(expiration).Unix()), "off"); err != nil {
				return err
			}
		}
		return o.addOption(ctx, opt, value, autoload)
	}
	if expiration > 0 {
		if err := o.UpdateOption(ctx, timeout, fmt.Sprint(o.now().Add(expiration).Unix())); err != nil {
			return err
		}
	}
	return o.UpdateOption(ctx, opt, value)
}

// deleteTransient is delete_transient() without a persistent object cache:
// delete_option of the value, then of its timeout when the value existed.
func (o *Ops) deleteTransient(ctx context.Context, name string) error {
	if o.ObjectCache {
		return nil
	}
	deleted, err := o.deleteOption(ctx, "_transient_"+name)
	if err != nil || !deleted {
		return err
	}
	_, err = o.deleteOption(ctx, "_transient_timeout_"+name)
	return err
}

// transientVersion is WC_Cache_Helper::get_transient_version($group, true):
// set_transient("{$group}-transient-version", time()), no expiration.
func (o *Ops) transientVersion(ctx context.Context, group string) error {
	return o.setTransient(ctx, group+"-transient-version", fmt.Sprint(o.now().Unix()), 0)
}

// productQueryTransients is WC_Post_Data::delete_product_query_transients.
func (o *Ops) productQueryTransients(ctx context.Context) error {
	return o.transientVersion(ctx, "product_query")
}

// wcDeleteProductTransients is wc_delete_product_transients($id): the fixed
// transients, the product's own (children, variation prices, related…),
// its parent's, then the "product" transient version.
func (o *Ops) wcDeleteProductTransients(ctx context.Context, id int64) error {
	names := []string{"wc_products_onsale", "wc_featured_products", "wc_outofstock_count", "wc_low_stock_count"}
	if id > 0 {
		for _, p := range []string{"wc_product_children_", "wc_var_prices_", "wc_related_", "wc_child_has_weight_", "wc_child_has_dimensions_"} {
			names = append(names, fmt.Sprint(p, id))
		}
		if parent, err := o.parentOf(ctx, id); err != nil {
			return err
		} else if parent > 0 {
			if err := o.wcDeleteProductTransients(ctx, parent); err != nil {
				return err
			}
		}
	}
	for _, n := range names {
		if err := o.deleteTransient(ctx, n); err != nil {
			return err
		}
	}
	return o.transientVersion(ctx, "product")
}

func (o *Ops) parentOf(ctx context.Context, id int64) (int64, error) {
	var p int64
	err := o.DB.QueryRowContext(ctx, "SELECT post_parent FROM "+o.t("posts")+" WHERE ID = ?", id).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return p, err
}

// SeedTransients adds to a shop the transients a live site without a
// persistent object cache holds after its storefront was browsed: the
// product and product query transient versions, and for each product ID its
// wc_product_children_ and wc_var_prices_ transients with their timeouts.
// With an object cache, a shop holds none of them.
func SeedTransients(s *Shop, at time.Time, products ...int64) {
	add := func(name, value, autoload string) {
		s.Row("options", []string{"option_name", "option_value", "autoload"}, name, value, autoload)
	}
	v := fmt.Sprint(at.Unix())
	add("_transient_product-transient-version", v, "on")
	add("_transient_product_query-transient-version", v, "on")
	for _, id := range products {
		for _, p := range []string{"wc_product_children_", "wc_var_prices_"} {
			add(fmt.Sprint("_transient_timeout_", p, id), fmt.Sprint(at.Add(30*24*time.Hour).Unix()), "off")
			add(fmt.Sprint("_transient_", p, id), `a:0:{}`, "off")
		}
	}
}

// escapeName is what sanitize_term_field stores for a typed term name.
func escapeName(name string) string { return html.EscapeString(html.UnescapeString(name)) }
