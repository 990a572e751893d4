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
	hashed := []string{"id", "text", "ends", "inStock", "typ", "protected", "purchasable", "image", "thumb", "ttids", "cats",
		"catIDs", "fws", "attrs", "modified", "description", "childIDs", "price", "regular", "windows", "prange", "varIDs", "wpml", "rank",
		"searchExcerpt", "searchContent"}
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
	if n := reflect.TypeFor[priceRange]().NumField(); n != 2 {
		t.Errorf("priceRange has %d fields; itemSum hashes 2", n)
	}
	if n := reflect.TypeFor[attribute]().NumField(); n != 4 {
		t.Errorf("attribute has %d fields; itemSum hashes 4", n)
	}
	if n := reflect.TypeFor[ranks]().NumField(); n != 7 {
		t.Errorf("ranks has %d fields; itemSum hashes 7", n)
	}
}

// Two pods reading the same shop as the shipped read-only user, which may
// not read the translation plugins' tables, are refused in words that name
// each pod's address: their snapshots still have one digest. Which tables
// could not be read is content; the server's words are not.
func TestDigestIgnoresTheRefusalsWords(t *testing.T) {
	st := newStore()
	st.add(product{Title: "P", Regular: "10"})
	cfg := Config{Now: func() time.Time { return t0 }}
	from := func(addr string, unreadable ...string) string {
		t.Helper()
		rows := st.shopRows()
		rows.Unreadable = map[string]string{}
		for _, table := range unreadable {
			rows.Unreadable[table] = "SELECT command denied to user 'catalogd'@'" + addr + "' for table `shop`.`" + table + "`"
		}
		rows.NetworkNote = "SELECT command denied to user 'catalogd'@'" + addr + "' for table `shop`.`wp_sitemeta`"
		s, err := Build(rows, cfg, 1, t0)
		if err != nil {
			t.Fatal(err)
		}
		return s.Digest()
	}
	a, b := from("10.0.3.17", "wp_icl_translations"), from("10.0.5.2", "wp_icl_translations")
	if a != b {
		t.Errorf("one shop, read from two pods: digests %s and %s", a, b)
	}
	if c := from("10.0.3.17", "wp_icl_translations", "wp_trp_dictionary"); c == a {
		t.Errorf("another table unreadable, the digest did not move")
	}
}

// Two pods' reads of one shop cost the database differently (ShopRows.Cost,
// which paces the whole reads): their snapshots still have one digest, or
// every replica that starts beside another purges the edge.
func TestDigestIgnoresTheReadsCost(t *testing.T) {
	st := newStore()
	st.add(product{Title: "P", Regular: "10"})
	cfg := Config{Now: func() time.Time { return t0 }}
	digest := func(cost time.Duration) string {
		t.Helper()
		rows := st.shopRows()
		rows.Cost = cost
		s, err := Build(rows, cfg, 1, t0)
		if err != nil {
			t.Fatal(err)
		}
		return s.Digest()
	}
	if a, b := digest(80*time.Millisecond), digest(130*time.Millisecond); a != b {
		t.Errorf("one shop, read at two costs: digests %s and %s", a, b)
	}
}

// The settings that shape the answers from the same rows are part of the
// digest: a rolling restart that changes one of them is not taken for a
// start beside replicas that answer alike.
func TestDigestCoversTheShapingSettings(t *testing.T) {
	st := newStore()
	st.add(product{Title: "P", Regular: "10"})
	base := Config{Now: func() time.Time { return t0 }}
	digest := func(cfg Config) string {
		t.Helper()
		s, err := Build(st.shopRows(), cfg, 1, t0)
		if err != nil {
			t.Fatal(err)
		}
		return s.Digest()
	}
	was := digest(base)
	for name, change := range map[string]func(*Config){
		"site URL":       func(c *Config) { c.SiteURL = "https://other.example" },
		"uploads URL":    func(c *Config) { c.UploadsURL = "https://cdn.example/uploads" },
		"developers URL": func(c *Config) { c.DevelopersURL = "https://shop.example/developers" },
		"sitemap URL":    func(c *Config) { c.SitemapURL = SitemapNone },
	} {
		cfg := base
		change(&cfg)
		if digest(cfg) == was {
			t.Errorf("another %s, the same digest", name)
		}
	}
}
