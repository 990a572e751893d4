package wpdb

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"catalogd/catalog"
	"catalogd/internal/wpdbtest"
	"catalogd/internal/wpfixture"
)

// deletePost deletes a post as wp_delete_post does: its row, its meta and
// its term relationships.
func deletePost(t *testing.T, exec func(string, ...any), id int64) {
	t.Helper()
	for _, q := range []string{`DELETE FROM wp_posts WHERE ID = ?`, `DELETE FROM wp_postmeta WHERE post_id = ?`,
		`DELETE FROM wp_term_relationships WHERE object_id = ?`} {
		exec(q, id)
	}
}

func TestLoadProducts(t *testing.T) {
	t.Parallel()
	s := wpdbtest.NewShop("wp_")
	s.EnableWPML("en", "de")
	simple := s.Add(wpfixture.Product{Title: "Police Car", RegularPrice: "9", Image: "2026/11/police-car.jpg",
		Content: "<p>Fast</p>"})
	thumb := simple + 1 // the attachment is the next post Add writes
	simpleDE := s.Translate(simple, "de", wpfixture.Product{Title: "Polizeiauto", RegularPrice: "9"})
	variable := s.Add(wpfixture.Product{Title: "Bundle", Type: "variable",
		Variations: []wpfixture.Variation{{Framework: "esx", RegularPrice: "10"}, {Framework: "qbcore", RegularPrice: "12", Disabled: true}}})
	enabled, disabled := variable+1, variable+2
	child := s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5"})
	draftChild := s.Add(wpfixture.Product{Title: "Radar Mount", Slug: "radar-mount", Status: "draft", RegularPrice: "2"})
	grouped := s.Add(wpfixture.Product{Title: "Radar Kit", Type: "grouped", Children: []int64{draftChild, child}})
	trashed := s.Add(wpfixture.Product{Title: "Old", Status: "trash", RegularPrice: "1"})
	deleted := s.Add(wpfixture.Product{Title: "Gone", RegularPrice: "1"})
	db, raw := openShop(t, s)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := raw.ExecContext(context.Background(), q, args...); err != nil {
			t.Fatal(err)
		}
	}
	deletePost(t, exec, deleted)
	// WPML's delete_post hook drops its row too.
	exec(`DELETE FROM wp_icl_translations WHERE element_type = 'post_product' AND element_id = ?`, deleted)
	var wpml map[int64]catalog.WPMLElement
	view(t, db, func(ctx context.Context, tx *Tx) error {
		var err error
		wpml, err = tx.WPMLAllPosts(ctx)
		return err
	})

	rows, err := db.LoadProducts(context.Background(), catalog.ShopReads, []int64{simple, variable, grouped, trashed, deleted})
	if err != nil {
		t.Fatalf("LoadProducts: %v", err)
	}
	// Whatever their status: the trashed product comes back trashed, the
	// deleted one not at all.
	got := map[int64]catalog.Post{}
	for _, p := range rows.Posts {
		got[p.ID] = p
	}
	wpdbtest.AssertIDs(t, "Posts", keys(got), []int64{simple, variable, grouped, trashed})
	if got[trashed].Status != "trash" || got[simple].Content != "<p>Fast</p>" {
		t.Errorf("trashed product's status %q, simple product's content %q; want trash and the content",
			got[trashed].Status, got[simple].Content)
	}
	// The variations in the storefront's order, the disabled one
	// included, then the grouped product's children, published or not
	// (in no particular order: Children orders them).
	related := postIDs(rows.Related)
	if len(related) != 4 {
		t.Fatalf("Related = %v, want the 2 variations and the 2 children", related)
	}
	wpdbtest.AssertIDs(t, "Related variations", related[:2], []int64{enabled, disabled})
	wpdbtest.AssertIDs(t, "Related children", wpdbtest.SortedIDs(related[2:]), wpdbtest.SortedIDs([]int64{draftChild, child}))
	if want := map[int64][]int64{grouped: {draftChild, child}}; !reflect.DeepEqual(rows.Children, want) {
		t.Errorf("Children = %v, want %v", rows.Children, want)
	}
	// The meta of the products, their variations, children and image.
	wpdbtest.AssertIDs(t, "posts with meta", keys(rows.Meta),
		wpdbtest.SortedIDs([]int64{simple, thumb, variable, enabled, disabled, child, draftChild, grouped, trashed}))
	if file := rows.Meta.First(thumb, "_wp_attached_file"); file != "2026/11/police-car.jpg" {
		t.Errorf("image file = %q", file)
	}
	if price := rows.Meta.First(disabled, "_price"); price != "12" {
		t.Errorf("disabled variation's _price = %q, want 12", price)
	}
	wpdbtest.AssertIDs(t, "posts with terms", keys(rows.Terms), wpdbtest.SortedIDs([]int64{simple, variable, child, draftChild, grouped, trashed}))
	// WPML's rows of the products asked for: not of the translation
	// (simpleDE), which was not.
	wantWPML := map[int64]catalog.WPMLElement{simple: wpml[simple], variable: wpml[variable],
		grouped: wpml[grouped], trashed: wpml[trashed]}
	if !reflect.DeepEqual(rows.WPML, wantWPML) || rows.WPML[simple].TRID != wpml[simpleDE].TRID {
		t.Errorf("WPML = %v, want %v (the first in the group of %d)", rows.WPML, wantWPML, simpleDE)
	}
	if len(rows.Groups) != 0 {
		t.Errorf("Groups = %v on a shop without Polylang", rows.Groups)
	}
}

// A product deleted in a Polylang shop has no terms left: its load reads
// no translation group, where a nil list would read every one.
func TestLoadProductsDeletedInPolylangShop(t *testing.T) {
	t.Parallel()
	p := newPolylangShop()
	db, exec := p.open(t)
	deletePost(t, exec, p.Lonely)
	rows, err := db.LoadProducts(context.Background(), catalog.ShopReads, []int64{p.Lonely})
	if err != nil {
		t.Fatalf("LoadProducts: %v", err)
	}
	if len(rows.Posts) != 0 || len(rows.Groups) != 0 {
		t.Errorf("LoadProducts(deleted) = posts %v, groups %v; want none", rows.Posts, rows.Groups)
	}
	rows, err = db.LoadProducts(context.Background(), catalog.ShopReads, []int64{p.RadarDE})
	if err != nil {
		t.Fatalf("LoadProducts: %v", err)
	}
	want := map[int64]map[string]int64{p.radarGroup: {"en": p.Radar, "de": p.RadarDE}}
	if !reflect.DeepEqual(rows.Groups, want) {
		t.Errorf("Groups of a translation = %v, want %v", rows.Groups, want)
	}
}

// The number of statements of a load does not grow with the number of
// products: the IDs go into IN lists, a chunk at a time. Each kind of
// product takes its own reads (variations, images; grouped children).
func TestLoadProductsStatements(t *testing.T) {
	t.Parallel()
	s := wpdbtest.NewShop("wp_")
	s.EnablePolylang("en", "de")
	kid := s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5"})
	draftKid := s.Add(wpfixture.Product{Title: "Radar Mount", Status: "draft", RegularPrice: "2"})
	var variable, grouped []int64
	for i := range 20 {
		id := s.Add(wpfixture.Product{Title: fmt.Sprintf("Bundle %d", i), Type: "variable", Image: fmt.Sprintf("2026/11/b%d.jpg", i),
			Variations: []wpfixture.Variation{{Framework: "esx", RegularPrice: "10"}, {Framework: "qbcore", RegularPrice: "12"}}})
		s.Translate(id, "de", wpfixture.Product{Title: fmt.Sprintf("Bündel %d", i), RegularPrice: "1"})
		variable = append(variable, id)
		id = s.Add(wpfixture.Product{Title: fmt.Sprintf("Kit %d", i), Type: "grouped", Children: []int64{kid, draftKid}})
		s.Translate(id, "de", wpfixture.Product{Title: fmt.Sprintf("Set %d", i), RegularPrice: "1"})
		grouped = append(grouped, id)
	}
	db, _ := openShop(t, s)
	count := func(t *testing.T, ids []int64) int64 {
		t.Helper()
		before := db.Queries()
		rows, err := db.LoadProducts(context.Background(), catalog.ShopReads, ids)
		if err != nil {
			t.Fatalf("LoadProducts: %v", err)
		}
		if len(rows.Posts) != len(ids) || len(rows.Groups) != len(ids) || len(rows.Related) == 0 {
			t.Fatalf("LoadProducts(%d IDs): %d posts, %d related, %d groups; want every product, its related posts and group",
				len(ids), len(rows.Posts), len(rows.Related), len(rows.Groups))
		}
		return db.Queries() - before
	}
	for _, tt := range []struct {
		name string
		ids  []int64
	}{{"variable with images", variable}, {"grouped", grouped}} {
		t.Run(tt.name, func(t *testing.T) {
			one, twenty := count(t, tt.ids[:1]), count(t, tt.ids)
			if one != twenty {
				t.Errorf("LoadProducts sends %d statements for 1 product, %d for 20; want as many", one, twenty)
			}
			t.Logf("%d statements for 1 or 20 products", one)
		})
	}
}

// A product's part of the shop is the same whichever way it is read: the
// snapshot patched with LoadProducts must equal one built by LoadShop.
func TestLoadProductsAgreesWithLoadShop(t *testing.T) {
	t.Parallel()
	l := newLoadShop()
	db, _ := openShop(t, l.shop)
	shop, err := db.LoadShop(context.Background(), catalog.ShopReads)
	if err != nil {
		t.Fatalf("LoadShop: %v", err)
	}
	whole := shop.Products
	part, err := db.LoadProducts(context.Background(), catalog.ShopReads, postIDs(whole.Posts))
	if err != nil {
		t.Fatalf("LoadProducts: %v", err)
	}
	byID := func(posts []catalog.Post) map[int64]catalog.Post {
		m := map[int64]catalog.Post{}
		for _, p := range posts {
			m[p.ID] = p
		}
		return m
	}
	sorted := func(m map[int64][]int64) map[int64][]int64 {
		out := map[int64][]int64{}
		for id, v := range m {
			out[id] = wpdbtest.SortedIDs(v)
		}
		return out
	}
	for _, c := range []struct {
		what        string
		shop, items any
	}{
		{"Posts", byID(whole.Posts), byID(part.Posts)},
		{"Related", byID(whole.Related), byID(part.Related)},
		{"Meta", whole.Meta, part.Meta},
		{"Terms", sorted(whole.Terms), sorted(part.Terms)},
		{"Children", whole.Children, part.Children},
	} {
		if !reflect.DeepEqual(c.shop, c.items) {
			t.Errorf("%s:\nLoadShop     %v\nLoadProducts %v", c.what, c.shop, c.items)
		}
	}
}
