package wpdb

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpdbtest"
)

func TestNetworkPlugins(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		prefix string
		base   string // "" = a single site
		want   []string
	}{
		{"single site: no sitemeta table", "wp_", "", nil},
		{"main site of a network", "wp_", "wp_", []string{"polylang/polylang.php"}},
		{"subsite wp_2_ reads the base prefix's sitemeta", "wp_2_", "wp_", []string{"polylang/polylang.php"}},
		{"subsite whose prefix has no underscore base", "shop3_", "shop", []string{"polylang/polylang.php"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			shop := wpdbtest.NewShop(tt.prefix)
			if tt.base != "" {
				blog := int64(1)
				if tt.base != tt.prefix {
					_, blog = basePrefix(tt.prefix)
				}
				shop.NetworkActivate(tt.base, blog, "polylang/polylang.php")
			}
			db, _ := openShop(t, shop)
			view(t, db, func(ctx context.Context, tx *Tx) error {
				got, err := tx.NetworkPlugins(ctx)
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("NetworkPlugins = %q, want %q", got, tt.want)
				}
				return nil
			})
		})
	}
}

// HasTable answers whether an optional table is there; an absent one is
// an answer, observed as no errored query (it is no failure), while a
// statement that does fail still is.
func TestHasTable(t *testing.T) {
	t.Parallel()
	shop := wpdbtest.NewShop("wp_")
	shop.EnableWPML("en")
	var mu sync.Mutex
	var errored []error
	db, _ := openShopWith(t, shop, Options{Prefix: "wp_", Observe: func(_ time.Duration, err error) {
		if err != nil {
			mu.Lock()
			errored = append(errored, err)
			mu.Unlock()
		}
	}})
	view(t, db, func(ctx context.Context, tx *Tx) error {
		for table, want := range map[string]bool{"icl_translations": true, "posts": true, "trp_slug_originals": false} {
			got, err := tx.HasTable(ctx, table)
			if err != nil {
				return err
			}
			if got != want {
				t.Errorf("HasTable(%s) = %v, want %v", table, got, want)
			}
		}
		if plugins, err := tx.NetworkPlugins(ctx); err != nil || plugins != nil {
			t.Errorf("NetworkPlugins on a single site = %v, %v; want none", plugins, err)
		}
		return nil
	})
	mu.Lock()
	if len(errored) > 0 {
		t.Errorf("absent tables observed as errored queries: %v", errored)
	}
	mu.Unlock()
	err := db.View(context.Background(), func(ctx context.Context, tx *Tx) error {
		var n []int
		return tx.Select(ctx, &n, `SELECT 1 FROM {no_such_table}`)
	})
	mu.Lock()
	defer mu.Unlock()
	if err == nil || len(errored) != 1 {
		t.Errorf("a statement on a missing table outside a probe: err %v, observed errors %v; want it failed and observed", err, errored)
	}
}

// A SELECT-only user granted the site's tables alone (deploy/mysql's) on a
// single site gets "denied" for the sitemeta table the site does not
// have: no false alarm. On a subsite, whose network's sitemeta is there,
// the missing grant is said.
func TestNetworkPluginsDeniedToSiteOnlyUser(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		prefix   string
		network  bool
		wantNote bool
	}{
		{"single site", "wp_", false, false},
		{"subsite of a network", "wp_2_", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			shop := wpdbtest.NewShop(tt.prefix)
			if tt.network {
				_, blog := basePrefix(tt.prefix)
				shop.NetworkActivate("wp_", blog, "polylang/polylang.php")
			}
			dsn, _ := testdb.Load(t, shop)
			cfg, err := mysql.ParseDSN(dsn)
			if err != nil {
				t.Fatal(err)
			}
			var grants []string
			for _, table := range ReadTables {
				grants = append(grants, "SELECT ON `"+cfg.DBName+"`.`"+tt.prefix+table+"`")
			}
			u := testdb.NewUser(t, dsn, grants...)
			db, err := Open(u.DSN, Options{Prefix: tt.prefix})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			rows, err := db.LoadShop(context.Background(), catalog.ShopReads)
			if err != nil {
				t.Fatalf("LoadShop: %v", err)
			}
			if got := rows.NetworkNote != ""; got != tt.wantNote {
				t.Errorf("NetworkNote = %q; want one: %v", rows.NetworkNote, tt.wantNote)
			}
		})
	}
}
