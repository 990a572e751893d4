package wpdb

import (
	"context"
	"reflect"
	"testing"

	"catalogd/catalog"
	"catalogd/wpdb/wpfixture"
)

// The meta streams split the table into meta_id ranges read at once: a
// post whose rows fall into several ranges still has its values in meta_id
// order (the first _price is the one WooCommerce reads), and the rows read
// are those one pass reads.
func TestStreamMeta(t *testing.T) {
	t.Parallel()
	shop := newTestShop("wp_")
	variable := shop.Add(wpfixture.Product{Title: "Bundle", Type: "variable", Variations: []wpfixture.Variation{
		{Framework: "esx", RegularPrice: "20"},
		{Framework: "qbcore", RegularPrice: "5"},
	}})
	simple := shop.Add(wpfixture.Product{Title: "Radar", RegularPrice: "12", SalePrice: "9"})
	// Late rows of the first product: in the last range, after its others.
	shop.PostMeta(variable, "_price", "7")
	shop.PostMeta(variable, "_price", "3")
	db, _ := openShop(t, shop)
	ctx := context.Background()
	var want catalog.Meta
	view(t, db, func(ctx context.Context, tx *Tx) error {
		var err error
		want, err = tx.MetaByKey(ctx, catalog.ShopReads.MetaKeys, func(int64, string) bool { return true })
		return err
	})
	for _, n := range []int{1, 2, 3, 7} {
		ranges, err := db.metaRanges(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 1 && len(ranges) != n {
			t.Fatalf("metaRanges(%d) = %v, want %d ranges", n, ranges, n)
		}
		got, err := db.streamMeta(ctx, catalog.ShopReads.MetaKeys, ranges)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(byKey(got), byKey(want)) {
			t.Errorf("%d ranges %v:\n got %v\nwant %v", n, ranges, byKey(got), byKey(want))
		}
		if v := got.Values(variable, "_price"); !reflect.DeepEqual(v[len(v)-2:], []string{"7", "3"}) {
			t.Errorf("%d ranges: _price of %d = %q, want the late rows 7, 3 last", n, variable, v)
		}
		if p := got.First(simple, "_price"); p != "9" {
			t.Errorf("%d ranges: _price of %d = %q, want 9", n, simple, p)
		}
	}
}

// A load with no room in the pool for streams reads the meta in its one
// transaction; with room, alongside it: the rows are the same.
func TestLoadShopStreams(t *testing.T) {
	t.Parallel()
	// Two databases of the same shop (a fixture is loaded once).
	one, _ := openShopWith(t, newLoadShop().shop, Options{Prefix: "wp_", MaxOpen: 1})
	many, _ := openShopWith(t, newLoadShop().shop, Options{Prefix: "wp_", MaxOpen: 4})
	if one.streams() != 0 || many.streams() != metaStreams {
		t.Fatalf("streams: %d with MaxOpen 1, %d with 4; want 0 and %d", one.streams(), many.streams(), metaStreams)
	}
	a, err := one.LoadShop(context.Background(), catalog.ShopReads)
	if err != nil {
		t.Fatal(err)
	}
	b, err := many.LoadShop(context.Background(), catalog.ShopReads)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Products.Meta) == 0 || !reflect.DeepEqual(byKey(a.Products.Meta), byKey(b.Products.Meta)) {
		t.Errorf("meta in one transaction:\n%v\nstreamed:\n%v", byKey(a.Products.Meta), byKey(b.Products.Meta))
	}
}
