package wpdb

import (
	"context"
	"fmt"
	"slices"

	"catalogd/catalog"
)

// Options reads the named rows of the options table. A missing option is
// absent from the map, as get_option() would return its default.
func (tx *Tx) Options(ctx context.Context, names []string) (map[string]string, error) {
	var rows []struct {
		Name  string `db:"option_name"`
		Value string `db:"option_value"`
	}
	if err := tx.Select(ctx, &rows,
		`SELECT option_name, option_value FROM {options} WHERE option_name IN (?)`, names); err != nil {
		return nil, fmt.Errorf("wpdb: read options: %w", err)
	}
	m := make(map[string]string, len(rows))
	for _, r := range rows {
		m[r.Name] = r.Value
	}
	return m, nil
}

// AttributeOrderBy returns how the storefront orders the terms of each
// registered global attribute among names (attribute_orderby of
// woocommerce_attribute_taxonomies: menu_order, name, name_num or id); an
// attribute that is not registered is absent. The first registration of a
// name counts.
func (tx *Tx) AttributeOrderBy(ctx context.Context, names []string) (map[string]string, error) {
	out := map[string]string{}
	if len(names) == 0 {
		return out, nil
	}
	var rows []struct {
		Name    string `db:"attribute_name"`
		OrderBy string `db:"attribute_orderby"`
	}
	if err := tx.Select(ctx, &rows, `SELECT attribute_name, attribute_orderby FROM {woocommerce_attribute_taxonomies}
		 WHERE attribute_name IN (?) ORDER BY attribute_id`, names); err != nil {
		return nil, fmt.Errorf("wpdb: read attributes: %w", err)
	}
	for _, r := range rows {
		if _, ok := out[r.Name]; !ok {
			out[r.Name] = r.OrderBy
		}
	}
	return out, nil
}

// AttributeTaxonomies returns every registered global attribute, in
// attribute_id order.
func (tx *Tx) AttributeTaxonomies(ctx context.Context) ([]catalog.AttributeTaxonomy, error) {
	var rows []catalog.AttributeTaxonomy
	if err := tx.Select(ctx, &rows, `SELECT attribute_name, attribute_label, attribute_orderby
		FROM {woocommerce_attribute_taxonomies} ORDER BY attribute_id`); err != nil {
		return nil, fmt.Errorf("wpdb: read attributes: %w", err)
	}
	return rows, nil
}

// attributeOrderBy is AttributeOrderBy's answer from every registered
// attribute: the named ones' order, the first registration of a name
// counting.
func attributeOrderBy(all []catalog.AttributeTaxonomy, names []string) map[string]string {
	out := map[string]string{}
	for _, a := range all {
		if _, ok := out[a.Name]; !ok && slices.Contains(names, a.Name) {
			out[a.Name] = a.OrderBy
		}
	}
	return out
}
