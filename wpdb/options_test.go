package wpdb

import (
	"context"
	"reflect"
	"testing"

	"catalogd/catalog"
	"catalogd/internal/wpdbtest"
)

func TestOptions(t *testing.T) {
	t.Parallel()
	shop := wpdbtest.NewShop("wp_")
	shop.SetOption("woocommerce_hide_out_of_stock_items", "yes")
	db, _ := openShop(t, shop)

	permalinks := `a:5:{s:12:"product_base";s:7:"product";s:13:"category_base";s:16:"product-category";` +
		`s:8:"tag_base";s:11:"product-tag";s:14:"attribute_base";s:0:"";s:22:"use_verbose_page_rules";b:0;}`
	tests := []struct {
		name  string
		names []string
		want  map[string]string
	}{
		{"present options", []string{"blogname", "woocommerce_currency"},
			map[string]string{"blogname": "Script Shop", "woocommerce_currency": "USD"}},
		{"missing options are omitted", []string{"blogname", "no_such_option", "woocommerce_price_thousand_sep"},
			map[string]string{"blogname": "Script Shop"}},
		{"only missing", []string{"no_such_option"}, map[string]string{}},
		{"present but empty is kept", []string{"upload_path", "upload_url_path"},
			map[string]string{"upload_path": "", "upload_url_path": ""}},
		{"updated value", []string{"woocommerce_hide_out_of_stock_items"},
			map[string]string{"woocommerce_hide_out_of_stock_items": "yes"}},
		{"serialized value as stored", []string{"woocommerce_permalinks"},
			map[string]string{"woocommerce_permalinks": permalinks}},
		{"a name asked twice", []string{"home", "home"}, map[string]string{"home": "https://shop.example"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view(t, db, func(ctx context.Context, tx *Tx) error {
				got, err := tx.Options(ctx, tt.names)
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("Options(%q) = %q, want %q", tt.names, got, tt.want)
				}
				return nil
			})
		})
	}
}

func TestAttributeOrderBy(t *testing.T) {
	t.Parallel()
	shop := wpdbtest.NewShop("wp_")
	attrCols := []string{"attribute_name", "attribute_label", "attribute_type", "attribute_orderby", "attribute_public"}
	shop.Row("woocommerce_attribute_taxonomies", attrCols, "size", "Size", "select", "name_num", 0)
	shop.Row("woocommerce_attribute_taxonomies", attrCols, "color", "Color", "select", "id", 0)
	db, _ := openShop(t, shop)

	tests := []struct {
		name      string
		attribute string
		wantOrder string
		wantFound bool
	}{
		{"fresh install attribute", "framework", "menu_order", true},
		{"name_num", "size", "name_num", true},
		{"id", "color", "id", true},
		{"not registered", "material", "", false},
		{"taxonomy name is not the attribute name", "pa_framework", "", false},
		{"empty", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view(t, db, func(ctx context.Context, tx *Tx) error {
				orders, err := tx.AttributeOrderBy(ctx, []string{tt.attribute, "no-such-attribute"})
				if err != nil {
					return err
				}
				order, found := orders[tt.attribute]
				if order != tt.wantOrder || found != tt.wantFound {
					t.Errorf("AttributeOrderBy(%q) = %q, %v; want %q, %v",
						tt.attribute, order, found, tt.wantOrder, tt.wantFound)
				}
				return nil
			})
		})
	}
}

// TestAttributeTaxonomies: every registered attribute, its label as
// stored (wc_clean leaves "&" as typed) and its order setting, in
// attribute_id order.
func TestAttributeTaxonomies(t *testing.T) {
	t.Parallel()
	shop := wpdbtest.NewShop("wp_")
	attrCols := []string{"attribute_name", "attribute_label", "attribute_type", "attribute_orderby", "attribute_public"}
	shop.Row("woocommerce_attribute_taxonomies", attrCols, "size", "Size & Fit", "select", "name_num", 1)
	db, _ := openShop(t, shop)
	view(t, db, func(ctx context.Context, tx *Tx) error {
		got, err := tx.AttributeTaxonomies(ctx)
		if err != nil {
			return err
		}
		want := []catalog.AttributeTaxonomy{{Name: "framework", Label: "Framework", OrderBy: "menu_order"},
			{Name: "size", Label: "Size & Fit", OrderBy: "name_num"}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("AttributeTaxonomies = %+v, want %+v", got, want)
		}
		return nil
	})
}

// TestAttributeOrderByFromAll: LoadShop's order of the named attributes
// from every registered one is AttributeOrderBy's: the first registration
// of a name counts, an unregistered name is absent.
func TestAttributeOrderByFromAll(t *testing.T) {
	all := []catalog.AttributeTaxonomy{{Name: "framework", OrderBy: "name_num"}, {Name: "size", OrderBy: "id"},
		{Name: "framework", OrderBy: "name"}}
	tests := []struct {
		name  string
		names []string
		want  map[string]string
	}{
		{"the first registration", []string{"framework"}, map[string]string{"framework": "name_num"}},
		{"unregistered left out", []string{"framework", "color"}, map[string]string{"framework": "name_num"}},
		{"none asked", nil, map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := attributeOrderBy(all, tt.names); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("attributeOrderBy(%q) = %v, want %v", tt.names, got, tt.want)
			}
		})
	}
}
