package wpdb

import (
	"context"
	"reflect"
	"testing"
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
			shop := newTestShop(tt.prefix)
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

func TestHasTable(t *testing.T) {
	t.Parallel()
	shop := newTestShop("wp_")
	shop.EnableWPML("en")
	db, _ := openShop(t, shop)
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
		return nil
	})
}
