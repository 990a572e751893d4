package catalog

import (
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"
)

// Two processes that read the same shop hold snapshots of one digest, by a
// whole read or by changes applied one by one; a change gives another, and
// undoing it gives the first again.
func TestDigestNamesTheContent(t *testing.T) {
	st := newStore()
	st.category("Jobs", "jobs", "", 0)
	var ids []int64
	for i := range 5 {
		ids = append(ids, st.add(product{Title: "P " + strconv.Itoa(i), Regular: "10", Categories: []string{"jobs"}}))
	}
	cfg := Config{Now: func() time.Time { return t0 }}
	build := func(version uint64) *Snapshot {
		t.Helper()
		s, err := Build(st.shopRows(), cfg, version, t0)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := build(1), build(7) // two processes, other versions and times
	if a.Digest() != b.Digest() || len(a.Digest()) != 32 {
		t.Fatalf("one shop, two digests: %s %s", a.Digest(), b.Digest())
	}

	id := ids[2]
	st.setMeta(id, metaPrice, "12")
	st.setMeta(id, metaRegularPrice, "12")
	patched := a.With(st.productRows([]int64{id}), []int64{id}, 2, cfg)
	if patched.Digest() == a.Digest() {
		t.Errorf("a price changed, the digest did not")
	}
	if fresh := build(3); fresh.Digest() != patched.Digest() {
		t.Errorf("the change applied (%s) and a whole read after it (%s) differ", patched.Digest(), fresh.Digest())
	}
	st.setMeta(id, metaPrice, "10")
	st.setMeta(id, metaRegularPrice, "10")
	if back := patched.With(st.productRows([]int64{id}), []int64{id}, 3, cfg); back.Digest() != a.Digest() {
		t.Errorf("the change undone: %s, want the first digest %s", back.Digest(), a.Digest())
	}

	st.options["woocommerce_currency"] = "USD" // the store's is EUR
	if build(4).Digest() == a.Digest() {
		t.Errorf("the currency changed, the digest did not")
	}
}

// itemSum hashes every field of item: one added to item must be added
// there, or a change of it would leave the digest as it was (and a start
// would keep the edge's copies showing the old value).
func TestItemSumCoversEveryField(t *testing.T) {
	hashed := []string{"id", "text", "ends", "image", "thumb", "ttids", "cats", "catIDs", "fws", "inStock", "typ",
		"modified", "description", "childIDs", "price", "regular", "purchasable", "windows", "varIDs", "wpml"}
	var fields []string
	for f := range reflect.TypeFor[item]().Fields() {
		fields = append(fields, f.Name)
	}
	if !slices.Equal(fields, hashed) {
		t.Errorf("item's fields are %q; itemSum hashes %q: hash the new ones, and list them here", fields, hashed)
	}
	if n := reflect.TypeFor[window]().NumField(); n != 6 {
		t.Errorf("window has %d fields; itemSum hashes 6", n)
	}
}
