package wpfixture

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
)

// category is a product_cat term as wp_update_term reads it.
type category struct {
	termID, ttID, parent int64
	name, slug           string
}

func (o *Ops) category(ctx context.Context, slug string) (category, error) {
	var c category
	err := o.DB.QueryRowContext(ctx, "SELECT t.term_id, tt.term_taxonomy_id, tt.parent, t.name, t.slug FROM "+o.t("terms")+" t JOIN "+
		o.t("term_taxonomy")+" tt ON tt.term_id = t.term_id WHERE tt.taxonomy = 'product_cat' AND t.slug = ?", slug).
		Scan(&c.termID, &c.ttID, &c.parent, &c.name, &c.slug)
	if err == sql.ErrNoRows {
		return c, fmt.Errorf("wpfixture ops: no product_cat %q", slug)
	}
	return c, err
}

// RenameCategory is Products → Categories → Edit → Update with a new name:
// wp_update_term.
func (o *Ops) RenameCategory(ctx context.Context, slug, name string) error {
	c, err := o.category(ctx, slug)
	if err != nil {
		return err
	}
	c.name = escapeName(name)
	return o.updateTerm(ctx, c)
}

// ReparentCategory is the same screen with a new "Parent category" (""
// for none): wp_update_term.
func (o *Ops) ReparentCategory(ctx context.Context, slug, parent string) error {
	c, err := o.category(ctx, slug)
	if err != nil {
		return err
	}
	c.parent = 0
	if parent != "" {
		p, err := o.category(ctx, parent)
		if err != nil {
			return err
		}
		c.parent = p.termID
	}
	return o.updateTerm(ctx, c)
}

// updateTerm is wp_update_term: $wpdb->update of terms (name, slug,
// term_group), then of term_taxonomy (term_id, taxonomy, description,
// parent), then clean_term_cache → clean_taxonomy_cache, which
// delete_option("product_cat_children") and rebuilds it at once
// (_get_term_hierarchy → update_option): the option row is deleted and
// inserted again on every category edit, object cache or not. The
// edited_product_cat action (WC_Admin_Taxonomies::save_category_fields)
// rewrites display_type and thumbnail_id only when they changed.
func (o *Ops) updateTerm(ctx context.Context, c category) error {
	if err := o.exec(ctx, "UPDATE "+o.t("terms")+" SET name = ?, slug = ?, term_group = 0 WHERE term_id = ?", c.name, c.slug, c.termID); err != nil {
		return err
	}
	var desc string
	if err := o.DB.QueryRowContext(ctx, "SELECT description FROM "+o.t("term_taxonomy")+" WHERE term_taxonomy_id = ?", c.ttID).Scan(&desc); err != nil {
		return err
	}
	if err := o.exec(ctx, "UPDATE "+o.t("term_taxonomy")+" SET term_id = ?, taxonomy = 'product_cat', description = ?, parent = ? WHERE term_taxonomy_id = ?",
		c.termID, desc, c.parent, c.ttID); err != nil {
		return err
	}
	return o.cleanTaxonomyCache(ctx, "product_cat")
}

// EditTag is Products → Tags → Edit → Update with a new name and slug:
// wp_update_term's two updates. A tag is not hierarchical: its cache
// cleaning writes no {taxonomy}_children option.
func (o *Ops) EditTag(ctx context.Context, slug, name, newSlug string) error {
	ttID, termID, err := o.TermTTID(ctx, "product_tag", slug)
	if err != nil {
		return err
	}
	if err := o.exec(ctx, "UPDATE "+o.t("terms")+" SET name = ?, slug = ?, term_group = 0 WHERE term_id = ?", escapeName(name), newSlug, termID); err != nil {
		return err
	}
	return o.exec(ctx, "UPDATE "+o.t("term_taxonomy")+" SET term_id = ?, taxonomy = 'product_tag', parent = 0 WHERE term_taxonomy_id = ?", termID, ttID)
}

// cleanTaxonomyCache is clean_taxonomy_cache's database part:
// delete_option("{$taxonomy}_children"), then _get_term_hierarchy's
// update_option with parent => [children] (PHP-serialized).
func (o *Ops) cleanTaxonomyCache(ctx context.Context, taxonomy string) error {
	if _, err := o.deleteOption(ctx, taxonomy+"_children"); err != nil {
		return err
	}
	rows, err := o.DB.QueryContext(ctx, "SELECT term_id, parent FROM "+o.t("term_taxonomy")+" WHERE taxonomy = ? ORDER BY term_id", taxonomy)
	if err != nil {
		return err
	}
	children := map[int64][]int64{}
	var parents []int64
	for rows.Next() {
		var id, parent int64
		if err := rows.Scan(&id, &parent); err != nil {
			rows.Close()
			return err
		}
		if parent > 0 {
			if _, ok := children[parent]; !ok {
				parents = append(parents, parent)
			}
			children[parent] = append(children[parent], id)
		}
	}
	rows.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "a:%d:{", len(parents))
	for _, p := range parents {
		fmt.Fprintf(&b, "i:%d;%s", p, serializeIDs(children[p]))
	}
	b.WriteString("}")
	return o.UpdateOption(ctx, taxonomy+"_children", b.String())
}

// MoveCategoryBefore is a drag and drop on Products → Categories
// (WC_AJAX::term_ordering → wc_reorder_terms): the top-level categories
// walked in their current order ("order" term meta, then name), each
// sibling and its descendants numbered from 1 with update_term_meta(order),
// the moved category (and its descendants: wc_set_term_order recursive)
// placed before next ("" for last).
func (o *Ops) MoveCategoryBefore(ctx context.Context, slug, next string) error {
	c, err := o.category(ctx, slug)
	if err != nil {
		return err
	}
	var nextID int64
	if next != "" {
		n, err := o.category(ctx, next)
		if err != nil {
			return err
		}
		nextID = n.termID
	}
	top, err := o.childCategories(ctx, 0)
	if err != nil {
		return err
	}
	_, err = o.reorderTerms(ctx, c.termID, nextID, 0, top)
	return err
}

// reorderTerms is wc_reorder_terms.
func (o *Ops) reorderTerms(ctx context.Context, id, next int64, index int, terms []int64) (int, error) {
	inLevel := false
	var err error
	for _, t := range terms {
		if t == id {
			inLevel = true
			continue
		}
		if next != 0 && t == next {
			index++
			if index, err = o.setTermOrder(ctx, id, index, true); err != nil {
				return index, err
			}
		}
		index++
		if index, err = o.setTermOrder(ctx, t, index, false); err != nil {
			return index, err
		}
		kids, err := o.childCategories(ctx, t)
		if err != nil {
			return index, err
		}
		if len(kids) > 0 {
			if index, err = o.reorderTerms(ctx, id, next, index, kids); err != nil {
				return index, err
			}
		}
	}
	if inLevel && next == 0 {
		return o.setTermOrder(ctx, id, index+1, true)
	}
	return index, nil
}

// setTermOrder is wc_set_term_order: update_term_meta(order), and when
// recursive the descendants after it, then clean_term_cache.
func (o *Ops) setTermOrder(ctx context.Context, id int64, index int, recursive bool) (int, error) {
	if err := o.updateTermMeta(ctx, id, "order", fmt.Sprint(index)); err != nil {
		return index, err
	}
	if !recursive {
		return index, nil
	}
	kids, err := o.childCategories(ctx, id)
	if err != nil {
		return index, err
	}
	for _, k := range kids {
		index++
		if index, err = o.setTermOrder(ctx, k, index, true); err != nil {
			return index, err
		}
	}
	return index, o.cleanTaxonomyCache(ctx, "product_cat")
}

// childCategories is get_terms(product_cat, parent=$parent, hide_empty=0,
// menu_order=ASC): by the "order" meta as a number, then name.
func (o *Ops) childCategories(ctx context.Context, parent int64) ([]int64, error) {
	rows, err := o.DB.QueryContext(ctx, "SELECT t.term_id, t.name, COALESCE(tm.meta_value, '') FROM "+o.t("terms")+" t JOIN "+o.t("term_taxonomy")+
		" tt ON tt.term_id = t.term_id LEFT JOIN "+o.t("termmeta")+" tm ON tm.term_id = t.term_id AND tm.meta_key = 'order' "+
		"WHERE tt.taxonomy = 'product_cat' AND tt.parent = ?", parent)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type row struct {
		id    int64
		name  string
		order int
	}
	var rs []row
	for rows.Next() {
		var r row
		var ord string
		if err := rows.Scan(&r.id, &r.name, &ord); err != nil {
			return nil, err
		}
		fmt.Sscan(ord, &r.order) //nolint:errcheck // meta_value+0: a missing order is 0
		rs = append(rs, r)
	}
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].order != rs[j].order {
			return rs[i].order < rs[j].order
		}
		return rs[i].name < rs[j].name
	})
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = r.id
	}
	return out, rows.Err()
}

// SaveSettings is WooCommerce → Settings → Save changes
// (WC_Admin_Settings::save → save_fields): update_option of each field of
// the tab in the order given (only changed values write), then
// update_option(woocommerce_queue_flush_rewrite_rules, yes). Currency and
// decimals are on the General tab, woocommerce_hide_out_of_stock_items on
// Products → Inventory.
func (o *Ops) SaveSettings(ctx context.Context, fields ...[2]string) error {
	for _, f := range fields {
		if err := o.UpdateOption(ctx, f[0], f[1]); err != nil {
			return err
		}
	}
	return o.UpdateOption(ctx, "woocommerce_queue_flush_rewrite_rules", "yes")
}

// SavePermalinks is Settings → Permalinks → Save with a new product base:
// WC_Admin_Permalink_Settings::settings_save (update_option
// woocommerce_permalinks, the serialized array with product_base changed),
// then options-permalink.php's flush_rewrite_rules → WP_Rewrite::flush_rules
// (delete_option rewrite_rules, then update_option with the rules built
// again; a short stand-in array here).
func (o *Ops) SavePermalinks(ctx context.Context, productBase string) error {
	if err := o.UpdateOption(ctx, "woocommerce_permalinks", Serialize(map[string]any{
		"product_base": productBase, "category_base": "product-category", "tag_base": "product-tag",
		"attribute_base": "", "use_verbose_page_rules": false,
	}, "product_base", "category_base", "tag_base", "attribute_base", "use_verbose_page_rules")); err != nil {
		return err
	}
	if _, err := o.deleteOption(ctx, "rewrite_rules"); err != nil {
		return err
	}
	return o.UpdateOption(ctx, "rewrite_rules", Serialize(map[string]any{
		productBase + "/([^/]+)/?$": "index.php?product=$matches[1]",
	}, productBase+"/([^/]+)/?$"))
}
