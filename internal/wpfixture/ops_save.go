package wpfixture

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strconv"
)

// metaOrder is WC_Product_Data_Store_CPT::update_post_meta's
// $meta_key_to_props order: the order in which a save writes the props.
var metaOrder = []string{"_sku", "_global_unique_id", "_regular_price", "_sale_price", "_sale_price_dates_from",
	"_sale_price_dates_to", "total_sales", "_tax_status", "_tax_class", "_manage_stock", "_backorders",
	"_low_stock_amount", "_sold_individually", "_weight", "_length", "_width", "_height", "_upsell_ids",
	"_crosssell_ids", "_purchase_note", "_default_attributes", "_virtual", "_downloadable",
	"_product_image_gallery", "_download_limit", "_download_expiry", "_thumbnail_id", "_stock", "_stock_status",
	"_wc_average_rating", "_wc_rating_count", "_wc_review_count"}

// lookupProps are the meta keys of handle_updated_props'
// $props_in_lookup_table: a change to one rewrites the lookup row.
var lookupProps = []string{"_sku", "_global_unique_id", "_regular_price", "_sale_price", "_sale_price_dates_from",
	"_sale_price_dates_to", "total_sales", "_wc_average_rating", "_stock", "_stock_status", "_manage_stock",
	"_downloadable", "_virtual", "_tax_status", "_tax_class"}

// kv is one changed prop, as its meta key and the value the save writes.
type kv struct{ key, value string }

// wcChanges is what a WC_Product's get_changes() holds when it is saved.
type wcChanges struct {
	meta       []kv     // changed meta props (any order: written in metaOrder)
	cats       []string // category slugs when category_ids changed
	visibility string   // catalog_visibility when it changed (visible, catalog, search, hidden)
	visChanged bool     // featured, stock_status or catalog_visibility changed
	frameworks []string // pa_framework slugs when the attributes changed
	attrsMeta  string   // the _product_attributes written with them
}

// wcSave is WC_Product::save() → WC_Product_Data_Store_CPT::update() of a
// product (or variation) whose post fields did not change, as WP-Cron, an
// order, the admin's meta box (inside save_post) and AJAX saves run it:
//
//  1. $wpdb->update posts: post_modified, post_modified_gmt (the "only
//     update post modified time to record this save event" branch);
//  2. update_post_meta: each changed prop, update_or_delete_post_meta (an
//     empty value deletes the row);
//  3. update_terms, update_visibility, update_attributes:
//     wp_set_post_terms / wp_set_object_terms when those props changed;
//  4. update_version_and_type: wp_set_object_terms(product_type) (no row
//     when unchanged, but its set_object_terms action still bumps the
//     product_query transient version) and _product_version;
//  5. handle_updated_props: _sale_price cleared when not below the regular
//     price, _price rewritten when a price or sale date prop changed (simple
//     and external products), the woocommerce_product_set_stock_status
//     action (product_query transient version), update_lookup_table;
//  6. clear_caches: wc_delete_product_transients (and the parent's).
func (o *Ops) wcSave(ctx context.Context, id int64, ch wcChanges) error {
	local, gmt := o.mysqlTimes()
	if err := o.exec(ctx, "UPDATE "+o.t("posts")+" SET post_modified = ?, post_modified_gmt = ? WHERE ID = ?", local, gmt, id); err != nil {
		return err
	}
	typ, err := o.productType(ctx, id)
	if err != nil {
		return err
	}
	// update_post_meta
	updated := map[string]bool{}
	for _, key := range metaOrder {
		for _, m := range ch.meta {
			if m.key != key {
				continue
			}
			did, err := o.updateOrDeletePostMeta(ctx, id, m.key, m.value)
			if err != nil {
				return err
			}
			updated[key] = updated[key] || did
		}
	}
	// update_terms
	if ch.cats != nil {
		if err := o.setObjectTerms(ctx, id, "product_cat", ch.cats...); err != nil {
			return err
		}
	}
	// update_visibility
	if ch.visChanged && typ != "variation" {
		terms, err := o.visibilityTerms(ctx, id, ch.visibility)
		if err != nil {
			return err
		}
		if err := o.setObjectTerms(ctx, id, "product_visibility", terms...); err != nil {
			return err
		}
		if err := o.productQueryTransients(ctx); err != nil { // woocommerce_product_set_visibility
			return err
		}
	}
	// update_attributes
	if ch.frameworks != nil {
		if err := o.setObjectTerms(ctx, id, "pa_framework", ch.frameworks...); err != nil {
			return err
		}
		if _, err := o.updateOrDeletePostMeta(ctx, id, "_product_attributes", ch.attrsMeta); err != nil {
			return err
		}
	}
	// update_version_and_type
	if typ != "variation" {
		if err := o.setObjectTerms(ctx, id, "product_type", typ); err != nil {
			return err
		}
	}
	if _, err := o.updatePostMeta(ctx, id, "_product_version", o.version()); err != nil {
		return err
	}
	// handle_updated_props
	if typ != "variable" && typ != "grouped" {
		if updated["_regular_price"] || updated["_sale_price"] {
			regular, _ := o.meta(ctx, id, "_regular_price")
			sale, _ := o.meta(ctx, id, "_sale_price")
			if phpGreaterEqual(sale, regular) {
				if _, err := o.updatePostMeta(ctx, id, "_sale_price", ""); err != nil {
					return err
				}
			}
		}
		if updated["_sale_price_dates_from"] || updated["_sale_price_dates_to"] || updated["_regular_price"] || updated["_sale_price"] {
			price, err := o.activePrice(ctx, id)
			if err != nil {
				return err
			}
			if _, err := o.updatePostMeta(ctx, id, "_price", price); err != nil {
				return err
			}
		}
	}
	if updated["_stock_status"] {
		if err := o.productQueryTransients(ctx); err != nil { // woocommerce_product_set_stock_status
			return err
		}
	}
	for _, k := range lookupProps {
		if updated[k] {
			if err := o.updateLookupTable(ctx, id); err != nil {
				return err
			}
			break
		}
	}
	// clear_caches
	return o.wcDeleteProductTransients(ctx, id)
}

func (o *Ops) version() string {
	if o.Version != "" {
		return o.Version
	}
	return "9.4.2"
}

// productType is WC_Product_Factory::get_product_type: "variation" for a
// variation, else the product_type term's slug.
func (o *Ops) productType(ctx context.Context, id int64) (string, error) {
	var postType string
	if err := o.DB.QueryRowContext(ctx, "SELECT post_type FROM "+o.t("posts")+" WHERE ID = ?", id).Scan(&postType); err != nil {
		return "", fmt.Errorf("wpfixture ops: post %d: %w", id, err)
	}
	if postType == "product_variation" {
		return "variation", nil
	}
	var slug string
	err := o.DB.QueryRowContext(ctx, "SELECT t.slug FROM "+o.t("term_relationships")+" tr JOIN "+o.t("term_taxonomy")+
		" tt ON tt.term_taxonomy_id = tr.term_taxonomy_id JOIN "+o.t("terms")+" t ON t.term_id = tt.term_id "+
		"WHERE tr.object_id = ? AND tt.taxonomy = 'product_type' LIMIT 1", id).Scan(&slug)
	if err != nil {
		return "simple", nil //nolint:nilerr // a product without the term is simple (WC_Product_Factory)
	}
	return slug, nil
}

// activePrice is the _price handle_updated_props writes: the sale price
// while WC_Product::is_on_sale('edit') holds at the site's now, else the
// regular price.
func (o *Ops) activePrice(ctx context.Context, id int64) (string, error) {
	regular, err := o.meta(ctx, id, "_regular_price")
	if err != nil {
		return "", err
	}
	sale, _ := o.meta(ctx, id, "_sale_price")
	from, _ := o.meta(ctx, id, "_sale_price_dates_from")
	to, _ := o.meta(ctx, id, "_sale_price_dates_to")
	now := o.now().Unix()
	on := sale != "" && phpGreater(regular, sale)
	if f, err := strconv.ParseInt(from, 10, 64); err == nil && f > now {
		on = false
	}
	if t, err := strconv.ParseInt(to, 10, 64); err == nil && t < now {
		on = false
	}
	if on {
		return sale, nil
	}
	return regular, nil
}

// phpGreaterEqual is PHP 8's $a >= $b on two price strings: numerically
// when both are numeric, else as strings ("" >= "10" is false).
func phpGreaterEqual(a, b string) bool {
	ra, okA := new(big.Rat).SetString(a)
	rb, okB := new(big.Rat).SetString(b)
	if okA && okB {
		return ra.Cmp(rb) >= 0
	}
	return a >= b
}

func phpGreater(a, b string) bool {
	ra, okA := new(big.Rat).SetString(a)
	rb, okB := new(big.Rat).SetString(b)
	if okA && okB {
		return ra.Cmp(rb) > 0
	}
	return a > b
}

// visibilityTerms is update_visibility's list: featured, outofstock (from
// the stock status just saved), rated-N, and the catalog visibility's
// exclude terms. visibility "" keeps the current one.
func (o *Ops) visibilityTerms(ctx context.Context, id int64, visibility string) ([]string, error) {
	cur, err := o.ids(ctx, "SELECT tt.term_taxonomy_id FROM "+o.t("term_relationships")+" tr JOIN "+o.t("term_taxonomy")+
		" tt ON tt.term_taxonomy_id = tr.term_taxonomy_id WHERE tr.object_id = ? AND tt.taxonomy = 'product_visibility'", id)
	if err != nil {
		return nil, err
	}
	has := func(slug string) bool {
		tt, _, err := o.TermTTID(ctx, "product_visibility", slug)
		return err == nil && slices.Contains(cur, tt)
	}
	if visibility == "" {
		switch search, catalog := has("exclude-from-search"), has("exclude-from-catalog"); {
		case search && catalog:
			visibility = "hidden"
		case search:
			visibility = "catalog"
		case catalog:
			visibility = "search"
		default:
			visibility = "visible"
		}
	}
	var terms []string
	if has("featured") {
		terms = append(terms, "featured")
	}
	if st, _ := o.meta(ctx, id, "_stock_status"); st == "outofstock" {
		terms = append(terms, "outofstock")
	}
	if r, _ := o.meta(ctx, id, "_wc_average_rating"); r != "" {
		if f, err := strconv.ParseFloat(r, 64); err == nil && f >= 0.5 {
			terms = append(terms, fmt.Sprintf("rated-%d", min(5, int(f+0.5))))
		}
	}
	switch visibility {
	case "hidden":
		terms = append(terms, "exclude-from-search", "exclude-from-catalog")
	case "catalog":
		terms = append(terms, "exclude-from-search")
	case "search":
		terms = append(terms, "exclude-from-catalog")
	}
	return terms, nil
}

// updateLookupTable is WC_Product_Data_Store_CPT::update_lookup_table($id,
// 'wc_product_meta_lookup'): get_data_for_lookup_table read from the meta
// (min_price the first _price row, max_price the last: reset() and end()),
// written with $wpdb->replace. An absent price is written as 0, which is
// what MySQL stores for WordPress's "" in its lax session.
func (o *Ops) updateLookupTable(ctx context.Context, id int64) error {
	m := func(k string) string { v, _ := o.meta(ctx, id, k); return v }
	prices, err := o.metaValues(ctx, id, "_price")
	if err != nil {
		return err
	}
	minP, maxP := "0", "0"
	if len(prices) > 0 {
		minP, maxP = orZero(prices[0]), orZero(prices[len(prices)-1])
	}
	var stock any
	if m("_manage_stock") == "yes" {
		if f, err := strconv.ParseFloat(m("_stock"), 64); err == nil {
			stock = f
		} else {
			stock = 0
		}
	}
	price, sale := m("_price"), m("_sale_price")
	onsale := 0
	if sale != "" && decimalEqual(price, sale) {
		onsale = 1
	}
	b := func(k string) int {
		if m(k) == "yes" {
			return 1
		}
		return 0
	}
	return o.exec(ctx, "REPLACE INTO "+o.t("wc_product_meta_lookup")+" (product_id, sku, virtual, downloadable, min_price, max_price, "+
		"onsale, stock_quantity, stock_status, rating_count, average_rating, total_sales, tax_status, tax_class) "+
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		id, m("_sku"), b("_virtual"), b("_downloadable"), minP, maxP, onsale, stock, orDefault(m("_stock_status"), "instock"),
		0, orZero(m("_wc_average_rating")), orZero(m("total_sales")), m("_tax_status"), m("_tax_class"))
}

func orZero(s string) string { return orDefault(s, "0") }

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func decimalEqual(a, b string) bool {
	ra, okA := new(big.Rat).SetString(a)
	rb, okB := new(big.Rat).SetString(b)
	return okA && okB && ra.Cmp(rb) == 0
}

// editPost is the classic editor's "Update" (edit_post → wp_update_post →
// wp_insert_post) up to its save_post action: the posts row rewritten with
// the changed columns and a new post_modified; the tax_input terms
// (wp_set_post_terms); _edit_last; and, when the status changed,
// wp_transition_post_status' hooks: _update_term_count_on_transition_post_status
// (every term of the post recounted) and WC_Post_Data::transition_post_status
// (the product_query transient version, when publish is one of the two).
// WooCommerce's meta box save (wcSave) runs next, inside save_post.
func (o *Ops) editPost(ctx context.Context, id int64, cols []kv, taxInput map[string][]string) error {
	oldStatus, err := o.status(ctx, id)
	if err != nil {
		return err
	}
	newStatus := oldStatus
	local, gmt := o.mysqlTimes()
	q := "UPDATE " + o.t("posts") + " SET "
	var args []any
	for _, c := range cols {
		q += c.key + " = ?, "
		args = append(args, c.value)
		if c.key == "post_status" {
			newStatus = c.value
		}
	}
	q += "post_modified = ?, post_modified_gmt = ? WHERE ID = ?"
	args = append(args, local, gmt, id)
	if err := o.exec(ctx, q, args...); err != nil {
		return err
	}
	for _, tax := range []string{"product_cat", "product_tag"} {
		if slugs, ok := taxInput[tax]; ok {
			if err := o.setObjectTerms(ctx, id, tax, slugs...); err != nil {
				return err
			}
		}
	}
	if _, err := o.updatePostMeta(ctx, id, "_edit_last", "1"); err != nil {
		return err
	}
	return o.transition(ctx, id, oldStatus, newStatus)
}

// transition is wp_transition_post_status' database effects for a product:
// _update_term_count_on_transition_post_status recounts every term of the
// post when it enters or leaves publish (since WordPress 5.7 only then),
// and WC_Post_Data::transition_post_status bumps the product_query
// transient version when publish is either status.
func (o *Ops) transition(ctx context.Context, id int64, oldStatus, newStatus string) error {
	if (oldStatus == "publish") != (newStatus == "publish") {
		tts, err := o.allObjectTerms(ctx, id)
		if err != nil {
			return err
		}
		if err := o.updateTermCount(ctx, tts...); err != nil {
			return err
		}
	}
	if oldStatus == "publish" || newStatus == "publish" {
		return o.productQueryTransients(ctx)
	}
	return nil
}

func (o *Ops) status(ctx context.Context, id int64) (string, error) {
	var s string
	err := o.DB.QueryRowContext(ctx, "SELECT post_status FROM "+o.t("posts")+" WHERE ID = ?", id).Scan(&s)
	return s, err
}
