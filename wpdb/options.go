package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Options reads the named rows of the options table. A missing option is
// absent from the map, as get_option() would return its default.
func (tx *Tx) Options(ctx context.Context, names []string) (map[string]string, error) {
	var rows []struct {
		Name  string `db:"option_name"`
		Value string `db:"option_value"`
	}
	if err := tx.selectx(ctx, &rows,
		`SELECT option_name, option_value FROM {options} WHERE option_name IN (?)`, names); err != nil {
		return nil, fmt.Errorf("wpdb: read options: %w", err)
	}
	m := make(map[string]string, len(rows))
	for _, r := range rows {
		m[r.Name] = r.Value
	}
	return m, nil
}

// AttributeOrderBy returns how the storefront orders the terms of a global
// attribute (attribute_orderby of woocommerce_attribute_taxonomies: menu_order,
// name, name_num or id); found is false when the attribute is not registered.
func (tx *Tx) AttributeOrderBy(ctx context.Context, name string) (orderBy string, found bool, err error) {
	err = tx.getx(ctx, &orderBy,
		`SELECT attribute_orderby FROM {woocommerce_attribute_taxonomies}
		 WHERE attribute_name = ? ORDER BY attribute_id LIMIT 1`, name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("wpdb: read attribute %q: %w", name, err)
	}
	return orderBy, true, nil
}
