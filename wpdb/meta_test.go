package wpdb

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"catalogd/catalog"
	"catalogd/internal/wpdbtest"
	"catalogd/internal/wpfixture"
)

func TestMeta(t *testing.T) {
	t.Parallel()
	shop := wpdbtest.NewShop("wp_")
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
	shop := wpdbtest.NewShop("wp_")
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

// TestMetaByKeyCharsets: the keys are compared byte for byte, as
// WordPress's meta cache (a PHP array) compares them, whatever the
// table's character set and collation: a key in another case or with a
// trailing space (which a PAD SPACE collation matches) is not read, and
// a value of any of them reads as the same UTF-8.
func TestMetaByKeyCharsets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		convert string // ALTER TABLE wp_postmeta CONVERT TO …; "" leaves the fixture's
	}{
		{"utf8mb4 unicode_520_ci", ""},
		{"utf8mb4 bin", "utf8mb4 COLLATE utf8mb4_bin"},
		{"utf8mb3", "utf8mb3 COLLATE utf8mb3_general_ci"},
		{"latin1", "latin1 COLLATE latin1_swedish_ci"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			shop := wpdbtest.NewShop("wp_")
			id := shop.Add(wpfixture.Product{Title: "Radar", RegularPrice: "12"})
			db, raw := openShop(t, shop)
			ctx := context.Background()
			if tt.convert != "" {
				if _, err := raw.ExecContext(ctx, `ALTER TABLE wp_postmeta CONVERT TO CHARACTER SET `+tt.convert); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := raw.ExecContext(ctx, `INSERT INTO wp_postmeta (post_id, meta_key, meta_value)
				VALUES (?, '_PRICE', '1'), (?, '_Price', '2'), (?, '_price ', '3'), (?, '_stock_status', 'Café')`,
				id, id, id, id); err != nil {
				t.Fatal(err)
			}
			want := byKeyMeta{id: {"_price": {"12"}, "_stock_status": {"instock", "Café"}}}
			view(t, db, func(ctx context.Context, tx *Tx) error {
				got, err := tx.MetaByKey(ctx, []string{"_price", "_stock_status"},
					func(p int64, _ string) bool { return p == id })
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(byKey(got), want) {
					t.Errorf("MetaByKey:\n got %v\nwant %v", got, want)
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

// TestRuns: rows gathered in runs of a few posts, put into a map, are as
// appending each row would leave them, however the posts' rows
// interleave, and each post's at the size of its rows where they came
// in one run.
func TestRuns(t *testing.T) {
	t.Parallel()
	type row struct {
		id  int64
		val string
	}
	tests := []struct {
		name string
		rows []row
	}{
		{"one post", []row{{1, "a"}, {1, "b"}, {1, "c"}}},
		{"posts after each other", []row{{1, "a"}, {1, "b"}, {2, "c"}, {3, "d"}, {3, "e"}}},
		{"an image's file between a product's rows", []row{{1, "a"}, {1, "b"}, {2, "file"}, {1, "thumb"}, {3, "c"}}},
		{"more posts at once than runs", []row{{1, "a"}, {2, "b"}, {3, "c"}, {4, "d"}, {5, "e"}, {1, "f"}, {6, "g"}, {2, "h"}, {5, "i"}}},
		{"a post again after many", []row{{1, "a"}, {2, "b"}, {3, "c"}, {4, "d"}, {5, "e"}, {6, "f"}, {7, "g"}, {1, "h"}, {1, "i"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := catalog.Meta{}
			var (
				open  runs
				posts metaList
			)
			for _, r := range tt.rows {
				mr := catalog.MetaRow{Key: "_price", Value: r.val}
				want[r.id] = append(want[r.id], mr)
				open.add(&posts, r.id, mr)
			}
			open.flush(&posts, openRuns)
			got := catalog.Meta{}
			for p := range posts.all() {
				putMeta(got, p.id, p.rows)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("runs gave %v, want %v", got, want)
			}
			if open.count != 0 {
				t.Errorf("%d runs left open", open.count)
			}
		})
	}
	t.Run("exact size", func(t *testing.T) {
		var (
			open  runs
			posts metaList
		)
		for _, v := range []string{"a", "b", "c", "d", "e", "f"} {
			open.add(&posts, 1, catalog.MetaRow{Key: "_price", Value: v})
		}
		open.flush(&posts, openRuns)
		if posts.len() != 1 {
			t.Fatalf("%d runs out, want 1", posts.len())
		}
		if n, c := len(posts[0][0].rows), cap(posts[0][0].rows); n != 6 || c != 6 {
			t.Errorf("post's rows: len %d cap %d, want 6 and 6 (not append's room to grow)", n, c)
		}
	})
}

// TestDropBare: a post's only, empty row of a key read with First goes;
// an empty row of a list key, or of a key the post has another row of
// (First would read the empty one), or a row with a value, stays.
func TestDropBare(t *testing.T) {
	t.Parallel()
	r := func(k, v string) catalog.MetaRow { return catalog.MetaRow{Key: k, Value: v} }
	lists := []string{"_price"}
	tests := []struct {
		name     string
		in, want []catalog.MetaRow
	}{
		{"nothing bare", []catalog.MetaRow{r("_price", "9"), r("_sale_price", "5")},
			[]catalog.MetaRow{r("_price", "9"), r("_sale_price", "5")}},
		{"unset sale", []catalog.MetaRow{r("_regular_price", "9"), r("_sale_price", ""), r("_sale_price_dates_from", ""),
			r("_price", "9")}, []catalog.MetaRow{r("_regular_price", "9"), r("_price", "9")}},
		{"an empty row of a list key stays", []catalog.MetaRow{r("_price", ""), r("_price", "7")},
			[]catalog.MetaRow{r("_price", ""), r("_price", "7")}},
		{"an empty row before another of its key stays", []catalog.MetaRow{r("_sale_price", ""), r("_sale_price", "5")},
			[]catalog.MetaRow{r("_sale_price", ""), r("_sale_price", "5")}},
		{"every row bare", []catalog.MetaRow{r("_sale_price", "")}, []catalog.MetaRow{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := catalog.Meta{1: slices.Clone(tt.in)}
			dropBare(m, lists)
			got, ok := m[1]
			if !ok {
				t.Fatal("the post's entry was dropped")
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("dropBare(%v) = %v, want %v", tt.in, got, tt.want)
			}
			for _, k := range []string{"_price", "_sale_price", "_sale_price_dates_from", "_regular_price"} {
				if a, b := m.First(1, k), (catalog.Meta{1: tt.in}).First(1, k); a != b {
					t.Errorf("First(%s) = %q, was %q", k, a, b)
				}
			}
		})
	}
}

// TestMetaList: what is added comes out in order and counted, within a
// block and across blocks.
func TestMetaList(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, metaBlock, metaBlock + 1, 2*metaBlock + 5} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			var l metaList
			for i := range n {
				l.add(postMeta{id: int64(i)})
			}
			if l.len() != n {
				t.Errorf("len() = %d, want %d", l.len(), n)
			}
			i := 0
			for p := range l.all() {
				if p.id != int64(i) {
					t.Fatalf("postMeta %d has id %d", i, p.id)
				}
				i++
			}
			if i != n {
				t.Errorf("all() yielded %d, want %d", i, n)
			}
		})
	}
}
