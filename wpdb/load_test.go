package wpdb

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/catalog"
	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
	"catalogd/internal/wpdbtest"
	"catalogd/internal/wpfixture"
)

// loadShop is a shop with a product of every kind and what must not be
// loaded beside them.
type loadShop struct {
	shop                            *wpfixture.Shop
	vehicles, cars                  catalog.Term // a category and its child
	police                          catalog.Term // a tag of the simple product
	simple, thumb                   int64        // a simple product and its featured image
	variable, enabled, disabled     int64        // a variable product and its two variations
	grouped, child, draftChild      int64        // a grouped product, a published and a draft child
	draft, trashed, trashedVariants int64        // not published; trashedVariants is the trashed one's first variation
}

func newLoadShop() *loadShop {
	s := wpdbtest.NewShop("wp_")
	l := &loadShop{shop: s}
	vehicles := s.Category("Vehicles", "vehicles", "", 0)
	cars := s.Category("Cars", "cars", "vehicles", 1)
	l.vehicles = catalog.Term{TTID: vehicles.TTID, TermID: vehicles.TermID, Taxonomy: "product_cat", Slug: "vehicles", Name: "Vehicles"}
	l.cars = catalog.Term{TTID: cars.TTID, TermID: cars.TermID, Taxonomy: "product_cat", Slug: "cars", Name: "Cars",
		Parent: vehicles.TermID, Order: 1}
	police := s.Tag("Police", "police")
	l.police = catalog.Term{TTID: police.TTID, TermID: police.TermID, Taxonomy: "product_tag", Slug: "police", Name: "Police"}
	l.simple = s.Add(wpfixture.Product{Title: "Police Car", RegularPrice: "9", Categories: []string{"cars"},
		Image: "2026/11/police-car.jpg", Content: "<p>Fast</p>", SKU: "PC-1", Tags: []string{"police"}})
	l.thumb = l.simple + 1 // the attachment is the next post Add writes
	l.variable = s.Add(wpfixture.Product{Title: "Bundle", Type: "variable", Categories: []string{"vehicles"},
		Variations: []wpfixture.Variation{{Framework: "esx", RegularPrice: "10"}, {Framework: "qbcore", RegularPrice: "12", Disabled: true}}})
	l.enabled, l.disabled = l.variable+1, l.variable+2
	l.child = s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5"})
	l.draftChild = s.Add(wpfixture.Product{Title: "Radar Mount", Slug: "radar-mount", Status: "draft", RegularPrice: "2"})
	l.grouped = s.Add(wpfixture.Product{Title: "Radar Kit", Type: "grouped", Children: []int64{l.child, l.draftChild}})
	l.draft = s.Add(wpfixture.Product{Title: "Draft", Slug: "draft", Status: "draft", RegularPrice: "1", Image: "2026/11/draft.jpg"})
	l.trashed = s.Add(wpfixture.Product{Title: "Old Bundle", Status: "trash", Type: "variable",
		Variations: []wpfixture.Variation{{Framework: "qbox", RegularPrice: "3"}}})
	l.trashedVariants = l.trashed + 1
	// A revision of the simple product and an order, with its meta.
	s.AddNoise(l.simple, "Police Car")
	return l
}

// postIDs returns the posts' IDs, in their order.
func postIDs(posts []catalog.Post) []int64 {
	var ids []int64
	for _, p := range posts {
		ids = append(ids, p.ID)
	}
	return ids
}

// keys returns a map's keys, sorted.
func keys[V any](m map[int64]V) []int64 {
	return slices.Sorted(maps.Keys(m))
}

func TestLoadShop(t *testing.T) {
	t.Parallel()
	l := newLoadShop()
	db, raw := openShop(t, l.shop)
	var order, revision int64
	wpdbtest.RawScalar(t, raw, &order, `SELECT ID FROM wp_posts WHERE post_type = 'shop_order'`)
	wpdbtest.RawScalar(t, raw, &revision, `SELECT ID FROM wp_posts WHERE post_type = 'revision'`)

	rows, err := db.LoadShop(context.Background(), catalog.ShopReads)
	if err != nil {
		t.Fatalf("LoadShop: %v", err)
	}

	t.Run("settings", func(t *testing.T) {
		for name, want := range map[string]string{"blogname": "Script Shop", "home": "https://shop.example",
			"woocommerce_currency": "USD"} {
			if rows.Options[name] != want {
				t.Errorf("option %s = %q, want %q", name, rows.Options[name], want)
			}
		}
		for name := range rows.Options {
			if !slices.Contains(catalog.ShopReads.Options, name) {
				t.Errorf("option %s read, which the catalog does not ask for", name)
			}
		}
		if want := map[string]string{"framework": "menu_order"}; !reflect.DeepEqual(rows.OrderBy, want) {
			t.Errorf("OrderBy = %v, want %v", rows.OrderBy, want)
		}
		// A single site with no translation plugin.
		wantTables := map[string]bool{"icl_translations": false, "icl_languages": false,
			"trp_slug_originals": false, "trp_slug_translations": false}
		if !reflect.DeepEqual(rows.Tables, wantTables) || len(rows.Unreadable) != 0 {
			t.Errorf("Tables = %v, Unreadable = %v; want %v and none", rows.Tables, rows.Unreadable, wantTables)
		}
		if rows.NetworkPlugins != nil || rows.NetworkNote != "" || rows.Members != nil || rows.WPMLLanguages != nil ||
			rows.WPMLTerms != nil || len(rows.TranslatedSlugs) != 0 {
			t.Errorf("network %v %q, members %v, WPML %v %v, slugs %v; want none",
				rows.NetworkPlugins, rows.NetworkNote, rows.Members, rows.WPMLLanguages, rows.WPMLTerms, rows.TranslatedSlugs)
		}
	})

	t.Run("terms", func(t *testing.T) {
		got := map[int64]catalog.Term{}
		for _, term := range rows.Terms {
			if !slices.Contains(catalog.ShopReads.Taxonomies, term.Taxonomy) {
				t.Errorf("term %+v of a taxonomy the catalog does not read", term)
			}
			got[term.TTID] = term
		}
		for _, want := range []catalog.Term{l.vehicles, l.cars, l.police} {
			if got[want.TTID] != want {
				t.Errorf("term %d = %+v, want %+v", want.TTID, got[want.TTID], want)
			}
		}
	})

	p := rows.Products
	t.Run("products", func(t *testing.T) {
		// The published products, by ID: not the draft, the trashed
		// product, the draft child, revisions, orders or attachments.
		wpdbtest.AssertIDs(t, "Posts", postIDs(p.Posts), []int64{l.simple, l.variable, l.child, l.grouped})
		if p.Posts[0].Content != "<p>Fast</p>" {
			t.Errorf("the simple product's content = %q, want it read", p.Posts[0].Content)
		}
		// The variations in the storefront's order, the disabled one
		// included, then the grouped product's child that is not
		// published: not the trashed product's variation.
		wpdbtest.AssertIDs(t, "Related", postIDs(p.Related), []int64{l.enabled, l.disabled, l.draftChild})
		if st := p.Related[1].Status + "/" + p.Related[2].Status; st != "private/draft" {
			t.Errorf("statuses of the disabled variation and the draft child = %s, want private/draft", st)
		}
		if want := map[int64][]int64{l.grouped: {l.child, l.draftChild}}; !reflect.DeepEqual(p.Children, want) {
			t.Errorf("Children = %v, want %v", p.Children, want)
		}
	})

	t.Run("meta", func(t *testing.T) {
		// The products', their variations', the children's and the
		// image's: not the draft's (nor its image's), the trashed
		// product's, its variation's, the revision's or the order's.
		wpdbtest.AssertIDs(t, "posts with meta", keys(p.Meta),
			wpdbtest.SortedIDs([]int64{l.simple, l.thumb, l.variable, l.enabled, l.disabled, l.child, l.draftChild, l.grouped}))
		for _, id := range []int64{l.draft, l.trashed, l.trashedVariants, order, revision} {
			if _, ok := p.Meta[id]; ok {
				t.Errorf("meta of post %d loaded: %v", id, p.Meta[id])
			}
		}
		checks := []struct {
			id        int64
			key, want string
		}{
			{l.simple, "_price", "9"},
			{l.simple, "_thumbnail_id", strconv.FormatInt(l.thumb, 10)},
			{l.thumb, "_wp_attached_file", "2026/11/police-car.jpg"},
			{l.disabled, "_price", "12"},
			{l.draftChild, "_price", "2"},
			{l.simple, "_sku", "PC-1"},
		}
		for _, c := range checks {
			if got := p.Meta.First(c.id, c.key); got != c.want {
				t.Errorf("meta %d %s = %q, want %q", c.id, c.key, got, c.want)
			}
		}
		for id, kv := range p.Meta {
			for _, r := range kv {
				if key := r.Key; !slices.Contains(catalog.ShopReads.MetaKeys, key) {
					t.Errorf("meta %d %s read, which the catalog does not ask for", id, key)
				}
			}
		}
		// The empty _sku row every product without one carries is left out.
		if v := p.Meta.Values(l.variable, "_sku"); v != nil {
			t.Errorf("the variable product's empty _sku read: %q", v)
		}
	})

	t.Run("relationships", func(t *testing.T) {
		wpdbtest.AssertIDs(t, "posts with terms", keys(p.Terms),
			wpdbtest.SortedIDs([]int64{l.simple, l.variable, l.child, l.grouped, l.draftChild}))
		if !slices.Contains(p.Terms[l.simple], l.cars.TTID) || !slices.Contains(p.Terms[l.simple], l.police.TTID) {
			t.Errorf("terms of the simple product %v lack its category %d or its tag %d", p.Terms[l.simple], l.cars.TTID, l.police.TTID)
		}
		if len(p.WPML) != 0 || len(p.Groups) != 0 {
			t.Errorf("WPML %v, Polylang groups %v; want none", p.WPML, p.Groups)
		}
	})
}

// A database user that may read WordPress's tables and not WPML's (a
// grant list written before the plugin came): the load reads the shop
// as if the plugin had no tables, and says which it could not read.
func TestLoadShopWithoutGrantsOnPluginTables(t *testing.T) {
	t.Parallel()
	shop := newWPMLShop().shop
	dsn, _ := testdb.Load(t, shop)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	var grants []string
	for _, table := range ReadTables {
		grants = append(grants, "SELECT ON `"+cfg.DBName+"`.`wp_"+table+"`")
	}
	u := testdb.NewUser(t, dsn, grants...)
	tests := []struct {
		name       string
		dsn        string
		tables     map[string]bool
		unreadable []string
		languages  int
	}{
		{"owner", dsn, map[string]bool{"icl_translations": true, "icl_languages": true,
			"trp_slug_originals": false, "trp_slug_translations": false}, nil, 2},
		// MySQL says "denied" whether or not a table exists: the
		// TranslatePress tables the shop lacks are unreadable too.
		{"site tables only", u.DSN, map[string]bool{},
			[]string{"icl_languages", "icl_translations", "trp_slug_originals", "trp_slug_translations"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(tt.dsn, Options{Prefix: "wp_"})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			rows, err := db.LoadShop(context.Background(), catalog.ShopReads)
			if err != nil {
				t.Fatalf("LoadShop: %v", err)
			}
			if !reflect.DeepEqual(rows.Tables, tt.tables) {
				t.Errorf("Tables = %v, want %v", rows.Tables, tt.tables)
			}
			if got := slices.Sorted(maps.Keys(rows.Unreadable)); !slices.Equal(got, tt.unreadable) {
				t.Errorf("Unreadable = %v, want %v", rows.Unreadable, tt.unreadable)
			}
			if len(rows.WPMLLanguages) != tt.languages {
				t.Errorf("WPMLLanguages = %v, want %d", rows.WPMLLanguages, tt.languages)
			}
			// Without the tables, no product is filed under a language.
			if n := len(rows.Products.Posts); n != 3 || (len(rows.Products.WPML) == 0) != (tt.languages == 0) {
				t.Errorf("%d products, WPML rows %v", n, rows.Products.WPML)
			}
			// This single site has no sitemeta, which the user cannot
			// be granted: taken for a single site, without a note
			// (TestNetworkPluginsDeniedToSiteOnlyUser).
			if rows.NetworkNote != "" {
				t.Errorf("NetworkNote = %q", rows.NetworkNote)
			}
		})
	}
}

// assertUnavailable fails unless err is a load's failure to reach the
// database in time: IsUnavailable, and marked catalog.ErrUnavailable for
// the catalog to answer 503 and retry.
func assertUnavailable(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	if !IsUnavailable(err) || !errors.Is(err, catalog.ErrUnavailable) {
		t.Errorf("%s: %v; want it unavailable (IsUnavailable %v, catalog.ErrUnavailable %v)",
			what, err, IsUnavailable(err), errors.Is(err, catalog.ErrUnavailable))
	}
}

func TestLoadUnreachable(t *testing.T) {
	t.Parallel()
	db, err := Open("root@tcp("+proctest.FreeAddr(t)+")/wp?timeout=1s", Options{Prefix: "wp_"})
	if err != nil {
		t.Fatalf("Open does not wait for the database, yet failed: %v", err)
	}
	defer db.Close()
	_, err = db.LoadShop(context.Background(), catalog.ShopReads)
	assertUnavailable(t, "LoadShop", err)
	_, err = db.LoadProducts(context.Background(), catalog.ShopReads, []int64{1})
	assertUnavailable(t, "LoadProducts", err)
}

// A load past Options.LoadTimeout stops with a deadline error that names
// the setting to raise (a 1ns deadline has always passed), on the streams
// and in one transaction alike; a caller's own deadline names none: the
// setting would not help.
func TestLoadTimeout(t *testing.T) {
	t.Parallel()
	const setting = "raise --db-load-timeout (CATALOG_DB_LOAD_TIMEOUT)"
	for _, streams := range []int{1, 3} {
		t.Run(fmt.Sprintf("streams %d", streams), func(t *testing.T) {
			t.Parallel()
			db, _ := openShopWith(t, newLoadShop().shop, Options{Prefix: "wp_", LoadTimeout: time.Nanosecond, LoadStreams: streams})
			_, err := db.LoadShop(context.Background(), catalog.ShopReads)
			assertUnavailable(t, "LoadShop", err)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("LoadShop under a 1ns load deadline: %v, want context.DeadlineExceeded", err)
			}
			if err == nil || !strings.Contains(err.Error(), "the whole read of the shop passed its deadline of 1ns") ||
				!strings.Contains(err.Error(), setting) {
				t.Errorf("LoadShop under a 1ns load deadline: %v; want it to say the load's deadline passed and %q", err, setting)
			}
			_, err = db.LoadProducts(context.Background(), catalog.ShopReads, []int64{1})
			assertUnavailable(t, "LoadProducts", err)
			if err == nil || !strings.Contains(err.Error(), setting) {
				t.Errorf("LoadProducts under a 1ns load deadline: %v; want %q", err, setting)
			}
		})
	}
	t.Run("caller's deadline", func(t *testing.T) {
		t.Parallel()
		db, _ := openShopWith(t, newLoadShop().shop, Options{Prefix: "wp_"})
		ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
		defer cancel()
		_, err := db.LoadShop(ctx, catalog.ShopReads)
		if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "--db-load-timeout") {
			t.Errorf("LoadShop past the caller's deadline: %v; want context.DeadlineExceeded, no setting named", err)
		}
	})
}

// A whole load has one deadline, the load's, for all its statements: a
// table another session holds locked stops it then, naming the statement
// that waited — not QueryTimeout, which a streamed read of a million meta
// rows on a busy server would exceed at every try. In one transaction,
// each table is first read by a statement of another kind:
// term_relationships by PublishedRelationships (streamed), posts and
// postmeta by TranslatedSlugs (a slice of rows). On several streams, the
// first statement to wait stops the others, and every connection goes
// back to the pool.
func TestLoadDeadline(t *testing.T) {
	t.Parallel()
	const query, load = 100 * time.Millisecond, 1500 * time.Millisecond
	for _, tt := range []struct {
		table   string
		streams int
		read    string // the statement stopped; "" for any
	}{
		{"posts", 1, "read TranslatePress slugs"},
		{"term_relationships", 1, "read term relationships"},
		{"postmeta", 1, "read TranslatePress slugs"},
		{"posts", 3, ""},
		{"term_relationships", 3, "read term relationships"},
		{"postmeta", 3, ""},
	} {
		t.Run(fmt.Sprintf("%s/%d", tt.table, tt.streams), func(t *testing.T) {
			t.Parallel()
			db, raw := openShopWith(t, newLoadShop().shop, Options{Prefix: "wp_", QueryTimeout: query, LoadTimeout: load,
				LoadStreams: tt.streams})
			ctx := context.Background()
			conn, err := raw.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// Cleanups run last first: the lock is released before the
			// database is dropped.
			t.Cleanup(func() {
				_, _ = conn.ExecContext(ctx, `UNLOCK TABLES`)
				conn.Close()
			})
			if _, err := conn.ExecContext(ctx, `LOCK TABLES wp_`+tt.table+` WRITE`); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = db.LoadShop(ctx, catalog.ShopReads)
			elapsed := time.Since(start)
			assertUnavailable(t, "LoadShop", err)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("LoadShop on a locked table: %v, want context.DeadlineExceeded", err)
			}
			if !strings.Contains(err.Error(), tt.read) {
				t.Errorf("LoadShop on a locked %s: %v; want the statement that reads it first (%s) stopped", tt.table, err, tt.read)
			}
			if !strings.Contains(err.Error(), "--db-load-timeout") {
				t.Errorf("LoadShop on a locked %s: %v; want the setting that raises the load's deadline named", tt.table, err)
			}
			// At least the load's deadline: the statement's did not stop
			// it. The upper bound only says something stopped it, with
			// room for a busy machine.
			if elapsed < load || elapsed > 20*load {
				t.Errorf("LoadShop returned after %v: want the load's deadline (%v) to stop it, not the statement's (%v)",
					elapsed, load, query)
			}
			// The streams give their connections back before LoadShop
			// returns (one transaction's, database/sql gives back from a
			// goroutine of its own, later).
			if n := db.Pool().Stats().InUse; tt.streams > 1 && n != 0 {
				t.Errorf("after the failed load, %d connections still in use, want 0", n)
			}
		})
	}
}

// A whole read says what it cost the database (ShopRows.Cost, which paces
// the whole reads): its statements' time, on one stream or several.
func TestLoadShopCost(t *testing.T) {
	t.Parallel()
	for _, streams := range []int{1, 3} {
		t.Run(fmt.Sprint(streams, " streams"), func(t *testing.T) {
			t.Parallel()
			db, _ := openShopWith(t, wpdbtest.NewProducts().Shop, Options{Prefix: "wp_", LoadStreams: streams})
			start := time.Now()
			rows, err := db.LoadShop(context.Background(), catalog.ShopReads)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); rows.Cost <= 0 || rows.Cost > time.Duration(streams)*took {
				t.Errorf("the read took %v on %d streams, and says it cost the database %v", took, streams, rows.Cost)
			}
		})
	}
}
