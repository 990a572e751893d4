package catalog

import (
	"slices"
	"testing"
)

// TestSlugIndex: products are found by slug compared folded, lowest ID
// first, whichever order they were added in; a product whose hash another
// slug shares is not found under that slug.
func TestSlugIndex(t *testing.T) {
	all := map[int64]*item{}
	x := newSlugIndex(0)
	for _, p := range []struct {
		id   int64
		slug string
	}{{9, "radar"}, {5, "Radar "}, {3, "other"}, {7, "radar"}, {4, "Only"}} {
		it := &item{id: p.id, text: p.slug}
		for i := range it.ends {
			it.ends[i] = uint32(len(p.slug))
		}
		all[p.id] = it
		x.add(p.slug, p.id)
	}
	find := func(slug string) []int64 {
		var ids []int64
		for it := range x.products(all, slug) {
			ids = append(ids, it.id)
		}
		return ids
	}
	for _, tt := range []struct {
		slug string
		want []int64
	}{{"radar", []int64{5, 7, 9}}, {"RADAR  ", []int64{5, 7, 9}}, {"only", []int64{4}}, {"other", []int64{3}}, {"none", nil}} {
		if got := find(tt.slug); !slices.Equal(got, tt.want) {
			t.Errorf("%q finds %v, want %v", tt.slug, got, tt.want)
		}
	}
	// The first product found ends a lookup that wants one.
	for it := range x.products(all, "radar") {
		if it.id != 5 {
			t.Errorf("radar first finds %d", it.id)
		}
		break
	}
	// Slugs whose hashes collide, as if: each hash's products are read
	// back, and only those with the slug asked for are found.
	x.many[slugHash("none")] = []int64{3, 4}
	x.one[slugHash("nothing")] = 9
	for _, slug := range []string{"none", "nothing"} {
		if got := find(slug); got != nil {
			t.Errorf("%q, colliding, finds %v", slug, got)
		}
	}
}
