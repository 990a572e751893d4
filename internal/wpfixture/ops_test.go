package wpfixture_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
)

// These tests pin what the operations leave in the database: the rows
// WordPress and WooCommerce write, which the change feeds must see.

type opsFixture struct {
	raw                              *sql.DB
	ops                              *wpfixture.Ops
	simple, stocky, bundle, cheapVar int64
	future, trashy, saleEnd          int64
	futureModified                   string
}

func newOpsFixture(t *testing.T, objectCache bool) *opsFixture {
	t.Helper()
	s := wpfixture.New("wp_", "https://shop.example")
	f := &opsFixture{}
	f.simple = s.Add(wpfixture.Product{Title: "Simple", RegularPrice: "10"})
	one := 1
	f.stocky = s.Add(wpfixture.Product{Title: "Stocky", RegularPrice: "5", Stock: &one})
	f.bundle = s.Add(wpfixture.Product{Title: "Bundle", Type: "variable", Variations: []wpfixture.Variation{
		{Framework: "esx", RegularPrice: "10"}, {Framework: "qbox", RegularPrice: "10"}, {Framework: "standalone", RegularPrice: "8"}}})
	f.cheapVar = f.bundle + 3
	f.future = s.Add(wpfixture.Product{Title: "Future", RegularPrice: "1", Status: "future", Date: s.Now.Add(time.Hour)})
	f.futureModified = s.Now.Add(time.Hour).UTC().Format(time.DateTime)
	f.trashy = s.Add(wpfixture.Product{Title: "Trashy", RegularPrice: "1"})
	stored := "6"
	f.saleEnd = s.Add(wpfixture.Product{Title: "Sale End", RegularPrice: "10", SalePrice: "6", SaleFrom: s.Now.Add(-48 * time.Hour),
		SaleTo: s.Now.Add(-time.Hour), StoredPrice: &stored})
	if !objectCache {
		wpfixture.SeedTransients(s, s.Now.Add(-time.Hour), f.bundle)
	}
	_, f.raw = testdb.Load(t, s)
	f.ops = &wpfixture.Ops{DB: f.raw, Prefix: "wp_", ObjectCache: objectCache}
	return f
}

func (f *opsFixture) values(t *testing.T, q string, args ...any) []string {
	t.Helper()
	rows, err := f.raw.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v sql.NullString
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v.String)
	}
	return out
}

func (f *opsFixture) meta(t *testing.T, id int64, key string) []string {
	t.Helper()
	return f.values(t, "SELECT meta_value FROM wp_postmeta WHERE post_id = ? AND meta_key = ? ORDER BY meta_id", id, key)
}

func (f *opsFixture) visibility(t *testing.T, id int64) []string {
	t.Helper()
	return f.values(t, "SELECT t.slug FROM wp_term_relationships tr JOIN wp_term_taxonomy tt USING (term_taxonomy_id) "+
		"JOIN wp_terms t USING (term_id) WHERE tr.object_id = ? AND tt.taxonomy = 'product_visibility' ORDER BY t.slug", id)
}

func (f *opsFixture) post(t *testing.T, id int64, col string) string {
	t.Helper()
	v := f.values(t, "SELECT "+col+" FROM wp_posts WHERE ID = ?", id)
	if len(v) == 0 {
		return "<no row>"
	}
	return v[0]
}

func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestOpsStorage(t *testing.T) {
	ctx := context.Background()
	for _, objectCache := range []bool{false, true} {
		t.Run(fmt.Sprintf("object_cache=%v", objectCache), func(t *testing.T) {
			f := newOpsFixture(t, objectCache)
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}

			// An order takes the last unit: a relative UPDATE ("meta_value
			// -1.000000", a string turned DOUBLE, stored "0"), then the save flips the status and adds the
			// outofstock term; a refund undoes both.
			must(f.ops.OrderReducesStock(ctx, f.stocky, 1))
			equal(t, "_stock after the order", f.meta(t, f.stocky, "_stock"), []string{"0"})
			equal(t, "_stock_status after the order", f.meta(t, f.stocky, "_stock_status"), []string{"outofstock"})
			equal(t, "visibility terms after the order", f.visibility(t, f.stocky), []string{"outofstock"})
			equal(t, "lookup after the order", f.values(t, "SELECT CONCAT(stock_quantity, ' ', stock_status) FROM wp_wc_product_meta_lookup WHERE product_id = ?", f.stocky), []string{"0 outofstock"})
			must(f.ops.RefundRestoresStock(ctx, f.stocky, 1))
			equal(t, "_stock after the refund", f.meta(t, f.stocky, "_stock"), []string{"1"})
			equal(t, "_stock_status after the refund", f.meta(t, f.stocky, "_stock_status"), []string{"instock"})
			equal(t, "visibility terms after the refund", f.visibility(t, f.stocky), []string(nil))

			// A price edit: _price follows, and an empty sale price's row
			// goes (update_or_delete_post_meta).
			must(f.ops.EditPrice(ctx, f.simple, "12", ""))
			equal(t, "_price after the edit", f.meta(t, f.simple, "_price"), []string{"12"})
			equal(t, "_sale_price after the edit", f.meta(t, f.simple, "_sale_price"), []string(nil))
			equal(t, "lookup min/max after the edit", f.values(t, "SELECT CONCAT(min_price+0, '-', max_price+0) FROM wp_wc_product_meta_lookup WHERE product_id = ?", f.simple), []string{"12.0000-12.0000"})

			// A title edit keeps a published product's slug.
			must(f.ops.EditTitle(ctx, f.simple, "Simple Renamed"))
			equal(t, "title after the edit", f.post(t, f.simple, "post_title"), "Simple Renamed")
			equal(t, "slug after the edit", f.post(t, f.simple, "post_name"), "simple")

			// A variation's price: the parent's _price rows are the
			// distinct prices, sorted.
			must(f.ops.EditVariationPrice(ctx, f.cheapVar, "5", ""))
			equal(t, "parent _price rows", f.meta(t, f.bundle, "_price"), []string{"5", "10"})

			// The sale cron ending a sale deletes the sale price and dates.
			ended, err := f.ops.EndSales(ctx)
			must(err)
			equal(t, "sales ended", ended, []int64{f.saleEnd})
			equal(t, "_price after the sale", f.meta(t, f.saleEnd, "_price"), []string{"10"})
			equal(t, "_sale_price after the sale", f.meta(t, f.saleEnd, "_sale_price"), []string(nil))
			equal(t, "_sale_price_dates_to after the sale", f.meta(t, f.saleEnd, "_sale_price_dates_to"), []string(nil))

			// Cron publishing a scheduled product changes its status only:
			// post_modified_gmt stays at the (future) post date.
			must(f.ops.PublishFuture(ctx, f.future))
			equal(t, "status after cron", f.post(t, f.future, "post_status"), "publish")
			equal(t, "post_modified_gmt after cron", f.post(t, f.future, "post_modified_gmt"), f.futureModified)

			// Trash moves the slug aside; restore brings it and the status back.
			must(f.ops.Trash(ctx, f.trashy))
			equal(t, "slug in the trash", f.post(t, f.trashy, "post_name"), "trashy__trashed")
			equal(t, "desired slug", f.meta(t, f.trashy, "_wp_desired_post_slug"), []string{"trashy"})
			must(f.ops.Untrash(ctx, f.trashy))
			equal(t, "status restored", f.post(t, f.trashy, "post_status"), "publish")
			equal(t, "slug restored", f.post(t, f.trashy, "post_name"), "trashy")
			equal(t, "trash metas", len(f.meta(t, f.trashy, "_wp_trash_meta_status"))+len(f.meta(t, f.trashy, "_wp_desired_post_slug")), 0)

			// "Add new" stores an auto-draft with zero GMT dates; Publish
			// gives it its date, slug, terms, meta and lookup row.
			id, err := f.ops.PublishNew(ctx, wpfixture.NewProduct{Title: "Fresh Product", RegularPrice: "9"})
			must(err)
			equal(t, "new status", f.post(t, id, "post_status"), "publish")
			equal(t, "new slug", f.post(t, id, "post_name"), "fresh-product")
			if d := f.post(t, id, "post_date_gmt"); strings.HasPrefix(d, "0000") {
				t.Errorf("published post_date_gmt = %s", d)
			}
			equal(t, "new _price", f.meta(t, id, "_price"), []string{"9"})
			equal(t, "new _stock", f.meta(t, id, "_stock"), []string{""})
			equal(t, "new _sale_price", f.meta(t, id, "_sale_price"), []string(nil))
			equal(t, "new terms", f.values(t, "SELECT CONCAT(tt.taxonomy, ':', t.slug) FROM wp_term_relationships tr JOIN wp_term_taxonomy tt USING (term_taxonomy_id) "+
				"JOIN wp_terms t USING (term_id) WHERE tr.object_id = ? ORDER BY tt.taxonomy", id), []string{"product_cat:uncategorized", "product_type:simple"})
			equal(t, "uncategorized count", f.values(t, "SELECT tt.count FROM wp_term_taxonomy tt JOIN wp_terms t USING (term_id) WHERE tt.taxonomy = 'product_cat' AND t.slug = 'uncategorized'"),
				[]string{"7"})

			// The object cache knob: the transients in wp_options.
			versions := f.values(t, "SELECT option_name FROM wp_options WHERE option_name LIKE '\\_transient\\_%' AND option_name LIKE '%transient-version' ORDER BY option_name")
			children := f.values(t, "SELECT option_name FROM wp_options WHERE option_name LIKE ?", fmt.Sprintf("%%wc_product_children_%d", f.bundle))
			if objectCache {
				equal(t, "transient versions", versions, []string(nil))
			} else {
				equal(t, "transient versions", versions, []string{"_transient_product_query-transient-version", "_transient_product-transient-version"})
				equal(t, "the bundle's children transient and timeout, deleted by its save", children, []string(nil))
				v := f.values(t, "SELECT option_value FROM wp_options WHERE option_name = '_transient_product-transient-version'")
				if slices.Equal(v, []string{fmt.Sprint(time.Now().Add(-time.Hour).Unix())}) {
					t.Errorf("product transient version did not move: %v", v)
				}
			}
		})
	}
}

func TestOpsCategories(t *testing.T) {
	ctx := context.Background()
	s := wpfixture.New("wp_", "https://shop.example")
	s.Category("Alpha", "alpha", "", 1)
	s.Category("Beta", "beta", "", 2)
	s.Category("Gamma", "gamma", "", 3)
	s.Category("Delta", "delta", "alpha", 0)
	_, raw := testdb.Load(t, s)
	f := &opsFixture{raw: raw, ops: &wpfixture.Ops{DB: raw, Prefix: "wp_"}}
	if err := f.ops.RenameCategory(ctx, "beta", "Beta & Co"); err != nil {
		t.Fatal(err)
	}
	equal(t, "stored name", f.values(t, "SELECT name FROM wp_terms WHERE slug = 'beta'"), []string{"Beta &amp; Co"})
	if err := f.ops.ReparentCategory(ctx, "delta", "gamma"); err != nil {
		t.Fatal(err)
	}
	gamma := f.values(t, "SELECT term_id FROM wp_terms WHERE slug = 'gamma'")[0]
	delta := f.values(t, "SELECT term_id FROM wp_terms WHERE slug = 'delta'")[0]
	equal(t, "product_cat_children", f.values(t, "SELECT option_value FROM wp_options WHERE option_name = 'product_cat_children'"),
		[]string{fmt.Sprintf("a:1:{i:%s;a:1:{i:0;i:%s;}}", gamma, delta)})
	if err := f.ops.MoveCategoryBefore(ctx, "gamma", "alpha"); err != nil {
		t.Fatal(err)
	}
	equal(t, "order", f.values(t, "SELECT CONCAT(t.slug, '=', m.meta_value) FROM wp_termmeta m JOIN wp_terms t USING (term_id) "+
		"WHERE m.meta_key = 'order' AND t.slug IN ('alpha','beta','gamma','delta','uncategorized') ORDER BY m.meta_value+0, t.slug"),
		[]string{"uncategorized=1", "gamma=2", "delta=3", "alpha=4", "beta=5"})
}
