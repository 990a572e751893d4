package httpapi_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The ETag names the snapshot a response was computed from and a hash of
// its bytes. After a change to one product, that product's resource gets a
// new tag; another product's response stays cached, as computed from the
// older snapshot (the change did not touch it), and a client holding its
// tag gets 304.
func TestETagCarriesTheSnapshotVersion(t *testing.T) {
	const poll = 50 * time.Millisecond
	c := serveCached(t, newShop(), time.Now)
	c.watch(t, poll)
	changed, untouched := base+"/catalog/products/police-radar", base+"/catalog/products/car-dealer"
	// A body large enough to be worth it is sent gzipped, its ETag the
	// plain one's with "-gzip".
	tagRE := regexp.MustCompile(`^"s([0-9]+)-([0-9a-f]{32})(?:-gzip)?"$`)
	parse := func(r response) (version, bytes string) {
		t.Helper()
		m := tagRE.FindStringSubmatch(r.header.Get("ETag"))
		if m == nil {
			t.Fatalf("ETag %q is not \"s<version>-<hash>\"", r.header.Get("ETag"))
		}
		return m[1], m[2]
	}
	oldChanged, oldUntouched := get(t, c.srv, changed), get(t, c.srv, untouched)
	v1, _ := parse(oldChanged)
	if v, _ := parse(oldUntouched); v != v1 {
		t.Fatalf("two resources of one snapshot: versions %s and %s", v1, v)
	}

	for _, q := range []string{
		`UPDATE wp_postmeta m JOIN wp_posts p ON p.ID = m.post_id SET m.meta_value = '17' WHERE p.post_name = 'police-radar' AND m.meta_key IN ('_price', '_regular_price')`,
		`UPDATE wp_posts SET post_modified = NOW(), post_modified_gmt = UTC_TIMESTAMP() WHERE post_name = 'police-radar'`,
	} {
		if _, err := c.raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	var now response
	deadline := time.Now().Add(100 * poll)
	for now = get(t, c.srv, changed); price(t, now) != "17.00 on_sale=false"; now = get(t, c.srv, changed) {
		if time.Now().After(deadline) {
			t.Fatalf("edit not served: %s", now.body)
		}
		time.Sleep(poll / 2)
	}
	v2, _ := parse(now)
	if v2 == v1 {
		t.Errorf("the edited product's ETag still names snapshot %s", v1)
	}
	if r := do(t, c.srv, http.MethodGet, changed, map[string]string{"If-None-Match": oldChanged.header.Get("ETag")}); r.status != http.StatusOK {
		t.Errorf("the edited product with its old ETag: %d, want 200 with the new bytes", r.status)
	}

	again := get(t, c.srv, untouched)
	if again.header.Get("X-Cache") != "HIT" || again.header.Get("ETag") != oldUntouched.header.Get("ETag") {
		t.Errorf("the untouched product: %s, ETag %s; want a HIT with its ETag of before, %s",
			again.header.Get("X-Cache"), again.header.Get("ETag"), oldUntouched.header.Get("ETag"))
	}
	r := do(t, c.srv, http.MethodGet, untouched, map[string]string{"If-None-Match": oldUntouched.header.Get("ETag")})
	if r.status != http.StatusNotModified {
		t.Errorf("the untouched product with its ETag: %d, want 304", r.status)
	}
	// Once computed anew (the cache dropped), it names the new snapshot
	// and the same bytes: a client's old tag still matches.
	c.cache.Invalidate()
	fresh := get(t, c.srv, untouched)
	if v, b := parse(fresh); v == v1 || b != func() string { _, ob := parse(oldUntouched); return ob }() {
		t.Errorf("the untouched product computed anew: ETag %s, want a later snapshot than %s and the same bytes' hash",
			fresh.header.Get("ETag"), v1)
	}
	// The 304 carries the tag of the response now cached, computed from
	// the current snapshot: the one fresh named (the feed may apply the
	// two UPDATEs as one change or as two, so it may be later than v2).
	vf, _ := parse(fresh)
	r = do(t, c.srv, http.MethodGet, untouched, map[string]string{"If-None-Match": oldUntouched.header.Get("ETag")})
	if r.status != http.StatusNotModified || !strings.HasPrefix(r.header.Get("ETag"), `"s`+vf+"-") {
		t.Errorf("the untouched product with its old ETag after the change: %d, ETag %q; want 304 naming snapshot %s",
			r.status, r.header.Get("ETag"), vf)
	}
}
