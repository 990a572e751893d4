package wpfixture

import (
	"context"
	"fmt"
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
