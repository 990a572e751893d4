package catalog

import (
	"context"
	"testing"
	"time"

	"catalogd/api"
)

// TestWholeReadWarmsTheOrdersInUse: after a whole read, the sorts the
// shop's visitors were using are made again before a request asks for
// them, and only those: the first sorted page after a reload does not
// sort the whole shop while its visitor waits.
func TestWholeReadWarmsTheOrdersInUse(t *testing.T) {
	c, _, _ := serve(t, findShop())
	getList(t, c, api.ListQuery{OrderBy: "title"})
	getList(t, c, api.ListQuery{OrderBy: "price", Order: "desc"})
	old := c.cur.Load()
	if err := c.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := c.cur.Load()
	if s == old {
		t.Fatal("Reload kept the snapshot")
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.find.orders[orderTitle].peek() == nil || s.find.orders[orderMaxPrice].peek() == nil {
		if time.Now().After(deadline) {
			t.Fatal("the title and highest-price orders are not made after the reload")
		}
		time.Sleep(time.Millisecond)
	}
	for _, k := range []orderKind{orderDate, orderMinPrice, orderSales, orderRating, orderMenu} {
		if s.find.orders[k].peek() != nil {
			t.Errorf("order %d made though no request used it", k)
		}
	}
	// The warmed orders are the ones a request would make.
	got := listSlugs(getList(t, c, api.ListQuery{OrderBy: "title"}).Products)
	fresh := newSnapshotOrder(t, c, orderTitle)
	if len(got) == 0 || len(fresh) != len(s.served) {
		t.Fatalf("title order: %v, fresh %v", got, fresh)
	}
	for i, pos := range *s.find.orders[orderTitle].peek() {
		if fresh[i] != pos {
			t.Fatalf("warmed title order %v, sorted anew %v", *s.find.orders[orderTitle].peek(), fresh)
		}
	}
}

// newSnapshotOrder is the order of the kind sorted anew over the current
// snapshot's products.
func newSnapshotOrder(t *testing.T, c *Catalog, k orderKind) []int32 {
	t.Helper()
	s := *c.cur.Load()
	s.find = &finder{}
	return s.order(k)
}
