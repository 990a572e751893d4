package wpdb

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"catalogd/catalog"
	"catalogd/wpdb/wpfixture"
)

func TestMeta(t *testing.T) {
	t.Parallel()
	shop := newTestShop("wp_")
	shop.Category("Alpha", "alpha", "", 0)
	simple := shop.Add(wpfixture.Product{Title: "Radar", RegularPrice: "12", SalePrice: "9"})
	variable := shop.Add(wpfixture.Product{Title: "Bundle", Type: "variable", Variations: []wpfixture.Variation{
		{Framework: "esx", RegularPrice: "20"},
		{Framework: "qbcore", RegularPrice: "5"},
		{Framework: "qbox", RegularPrice: "10"},
	}})
	// A late row with a lower value: insertion order, not value order.
	shop.PostMeta(variable, "_price", "7")
	other := shop.Add(wpfixture.Product{Title: "Other", RegularPrice: "1"})
	db, raw := openShop(t, shop)
	if _, err := raw.ExecContext(context.Background(),
		`INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (?, '_nullish', NULL)`, simple); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		ids  []int64
		keys []string
		want byKeyMeta
	}{
		{"several values in insertion order", []int64{variable}, []string{"_price"},
			byKeyMeta{variable: {"_price": {"5", "10", "20", "7"}}}},
		{"only the asked keys and posts", []int64{simple, variable}, []string{"_price", "_regular_price", "_sale_price"},
			byKeyMeta{
				simple:   {"_price": {"9"}, "_regular_price": {"12"}, "_sale_price": {"9"}},
				variable: {"_price": {"5", "10", "20", "7"}},
			}},
		{"empty value kept", []int64{simple}, []string{"_sku", "_stock"},
			byKeyMeta{simple: {"_sku": {""}, "_stock": {""}}}},
		{"NULL value read as empty", []int64{simple}, []string{"_nullish"},
			byKeyMeta{simple: {"_nullish": {""}}}},
		{"variation meta", []int64{variable + 1}, []string{"_price", "attribute_pa_framework"},
			byKeyMeta{variable + 1: {"_price": {"20"}, "attribute_pa_framework": {"esx"}}}},
		{"missing key", []int64{simple}, []string{"_no_such_key"}, byKeyMeta{}},
		{"unknown post", []int64{99999}, []string{"_price"}, byKeyMeta{}},
		{"no posts", nil, []string{"_price"}, byKeyMeta{}},
		{"no keys", []int64{simple}, nil, byKeyMeta{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view(t, db, func(ctx context.Context, tx *Tx) error {
				got, err := tx.Meta(ctx, tt.ids, tt.keys)
				if err != nil {
					return err
				}
				if got == nil {
					t.Errorf("Meta(%v, %q) = nil map, want an empty map to read from", tt.ids, tt.keys)
				}
				if !reflect.DeepEqual(byKey(got), tt.want) {
					t.Errorf("Meta(%v, %q):\n got %v\nwant %v", tt.ids, tt.keys, got, tt.want)
				}
				if _, ok := got[other]; ok {
					t.Errorf("Meta returned post %d, which was not asked", other)
				}
				return nil
			})
		})
	}
}

func TestMetaByKey(t *testing.T) {
	t.Parallel()
	shop := newTestShop("wp_")
	simple := shop.Add(wpfixture.Product{Title: "Radar", RegularPrice: "12", SalePrice: "9"})
	variable := shop.Add(wpfixture.Product{Title: "Bundle", Type: "variable", Variations: []wpfixture.Variation{
		{Framework: "esx", RegularPrice: "20"},
		{Framework: "qbcore", RegularPrice: "5"},
		{Framework: "qbox", RegularPrice: "10"},
	}})
	// A late row with a lower value: insertion order, not value order.
	shop.PostMeta(variable, "_price", "7")
	draft := shop.Add(wpfixture.Product{Title: "Draft", Status: "draft", RegularPrice: "3"})
	db, raw := openShop(t, shop)
	if _, err := raw.ExecContext(context.Background(),
		`INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (?, '_nullish', NULL)`, simple); err != nil {
		t.Fatal(err)
	}
	all := func(int64, string) bool { return true }
	only := func(ids ...int64) func(int64, string) bool {
		return func(id int64, _ string) bool { return slices.Contains(ids, id) }
	}
	// The load keeps an image's file whoever it belongs to.
	imagesOrSimple := func(id int64, key string) bool { return id == simple || key == "_regular_price" }

	tests := []struct {
		name string
		keys []string
		want func(int64, string) bool
		out  byKeyMeta
	}{
		{"several values in meta_id order", []string{"_price"}, only(variable),
			byKeyMeta{variable: {"_price": {"5", "10", "20", "7"}}}},
		{"every post of the keys, any type and status", []string{"_price"}, all, byKeyMeta{
			simple:       {"_price": {"9"}},
			variable:     {"_price": {"5", "10", "20", "7"}},
			variable + 1: {"_price": {"20"}},
			variable + 2: {"_price": {"5"}},
			variable + 3: {"_price": {"10"}},
			draft:        {"_price": {"3"}},
		}},
		{"only the posts wanted", []string{"_price", "_regular_price"}, only(simple, draft), byKeyMeta{
			simple: {"_price": {"9"}, "_regular_price": {"12"}},
			draft:  {"_price": {"3"}, "_regular_price": {"3"}},
		}},
		{"wanted by key", []string{"_price", "_regular_price"}, imagesOrSimple, byKeyMeta{
			simple:       {"_price": {"9"}, "_regular_price": {"12"}},
			variable + 1: {"_regular_price": {"20"}},
			variable + 2: {"_regular_price": {"5"}},
			variable + 3: {"_regular_price": {"10"}},
			draft:        {"_regular_price": {"3"}},
		}},
		{"wanted by key", []string{"_price", "_regular_price"}, imagesOrSimple, byKeyMeta{
			simple:       {"_price": {"9"}, "_regular_price": {"12"}},
			variable + 1: {"_regular_price": {"20"}},
			variable + 2: {"_regular_price": {"5"}},
			variable + 3: {"_regular_price": {"10"}},
			draft:        {"_regular_price": {"3"}},
		}},
		{"NULL value read as empty", []string{"_nullish"}, all, byKeyMeta{simple: {"_nullish": {""}}}},
		{"empty value kept", []string{"_sku"}, only(simple), byKeyMeta{simple: {"_sku": {""}}}},
		{"nothing wanted", []string{"_price"}, only(), byKeyMeta{}},
		{"missing key", []string{"_no_such_key"}, all, byKeyMeta{}},
		{"no keys", nil, all, byKeyMeta{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view(t, db, func(ctx context.Context, tx *Tx) error {
				got, err := tx.MetaByKey(ctx, tt.keys, tt.want)
				if err != nil {
					return err
				}
				if got == nil {
					t.Errorf("MetaByKey(%q) = nil map, want an empty map to read from", tt.keys)
				}
				if !reflect.DeepEqual(byKey(got), tt.out) {
					t.Errorf("MetaByKey(%q):\n got %v\nwant %v", tt.keys, got, tt.out)
				}
				return nil
			})
		})
	}
}

// byKeyMeta is post meta as the tests write what they expect: post ID →
// key → values in meta_id order.
type byKeyMeta = map[int64]map[string][]string

// byKey is m by key, each key's values in the order m holds them.
func byKey(m catalog.Meta) byKeyMeta {
	out := byKeyMeta{}
	for id, rows := range m {
		out[id] = map[string][]string{}
		for _, r := range rows {
			out[id][r.Key] = append(out[id][r.Key], r.Value)
		}
	}
	return out
}
