package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"catalogd/api"

	"github.com/go-sql-driver/mysql"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
)

// multilingualShop builds the same English shop under each translation
// plugin, then adds German translations the way that plugin stores them.
func multilingualShop(plugin string) *wpfixture.Shop { return multilingualShopOn(newShop(), plugin) }

func multilingualShopOn(s *wpfixture.Shop, plugin string) *wpfixture.Shop {
	switch plugin {
	case "wpml":
		return translatedShop(s, func(s *wpfixture.Shop) { s.EnableWPML("en", "de") }, false)
	case "polylang":
		return translatedShop(s, func(s *wpfixture.Shop) { s.EnablePolylang("en", "de") }, false)
	case "translatepress":
		s.EnableTranslatePress("en_US", "de_DE")
		s = translatedShop(s, nil, false)
		s.TranslateSlug("police-radar", "de_DE", "polizeiradar")
		s.TranslateSlug("car-dealer", "de_DE", "autohaendler")
		return s
	}
	return translatedShop(s, nil, false)
}

// translatedShop builds the English shop after enable installs a plugin
// that keeps a post per translation (WPML, Polylang), then adds German
// translations: of the categories too, unless the plugin leaves product_cat
// untranslated, in which case the German products are filed under the
// English (language-less) categories, as the admin screens offer them.
func translatedShop(s *wpfixture.Shop, enable func(*wpfixture.Shop), untranslatedCats bool) *wpfixture.Shop {
	if enable != nil {
		enable(s)
	}
	s.Category("Jobs", "jobs", "", 0)
	s.Category("Police", "police", "jobs", 0)
	s.Category("Vehicles", "vehicles", "", 1)
	radar := s.Add(wpfixture.Product{Title: "Police Radar", RegularPrice: "20", Categories: []string{"police"}, Frameworks: []string{"esx"},
		Excerpt: "<p>Radar for the police.</p>"})
	car := s.Add(wpfixture.Product{Title: "Car Dealer", RegularPrice: "30", SalePrice: "25", Categories: []string{"vehicles"}, Frameworks: []string{"qbcore"}})
	s.Add(wpfixture.Product{Title: "Loose Script", RegularPrice: "5", Categories: []string{"jobs"}})
	if enable == nil {
		return s
	}
	police, vehicles, jobs := "polizei", "fahrzeuge", "berufe"
	if untranslatedCats {
		police, vehicles, jobs = "police", "vehicles", "jobs"
	} else {
		s.TranslateCategory("jobs", "de", "Berufe", "berufe", "")
		s.TranslateCategory("police", "de", "Polizei", "polizei", "berufe")
		s.TranslateCategory("vehicles", "de", "Fahrzeuge", "fahrzeuge", "")
	}
	s.Translate(radar, "de", wpfixture.Product{Title: "Polizeiradar", RegularPrice: "20", Categories: []string{police},
		Frameworks: []string{"esx"}, Excerpt: "<p>Radar für die Polizei.</p>"})
	s.Translate(car, "de", wpfixture.Product{Title: "Autohaendler", RegularPrice: "30", Categories: []string{vehicles}})
	// A product only in German.
	s.AddIn("de", wpfixture.Product{Title: "Nur Deutsch", RegularPrice: "3", Categories: []string{jobs}})
	return s
}

// snapshot is everything the API shows, as JSON.
func snapshot(t *testing.T, f *fixture) string {
	t.Helper()
	ctx := context.Background()
	var all []any
	idx, err := f.cat.Index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cats, err := f.cat.Categories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, idx, cats)
	l := f.list(t, api.ListQuery{PerPage: 50})
	all = append(all, l)
	for _, q := range []api.ListQuery{{Category: "jobs"}, {Category: "police"}, {Framework: "esx"}, {Framework: "qbcore"}} {
		all = append(all, f.list(t, q))
	}
	for _, p := range l.Products {
		all = append(all, f.product(t, p.Slug))
	}
	b, _ := json.MarshalIndent(all, "", " ")
	return string(b)
}

func TestMultilingualShops(t *testing.T) {
	plain := snapshot(t, load(t, multilingualShop("")))
	for _, plugin := range []string{"wpml", "polylang", "translatepress"} {
		t.Run(plugin, func(t *testing.T) {
			f := load(t, multilingualShop(plugin))
			info, err := f.cat.Languages(context.Background())
			if err != nil || info.Plugin != plugin || len(info.Ignored) > 0 {
				t.Fatalf("detected %+v, %v", info, err)
			}
			got := snapshot(t, f)
			if got != plain {
				t.Errorf("the English API differs from the same shop without %s:\n%s", plugin, firstDiff(plain, got))
			}
			for _, marker := range []string{"Polizei", "Berufe", "Fahrzeuge", "nur-deutsch", "polizeiradar", "autohaendler"} {
				if strings.Contains(strings.ToLower(got), strings.ToLower(marker)) {
					t.Errorf("a translation leaks: %s", marker)
				}
			}

			// A translated slug: 404 whose hint names the English product.
			for slug, english := range map[string]string{"polizeiradar": "police-radar", "autohaendler": "car-dealer"} {
				_, err := f.cat.Product(context.Background(), slug)
				var e *catalog.Error
				if !errors.As(err, &e) || e.Reason != "product_not_found" {
					t.Fatalf("%s: err = %v, want product_not_found", slug, err)
				}
				if !strings.Contains(e.Hint, `"`+english+`"`) || e.Link != "/catalog/products/"+english {
					t.Errorf("%s: hint %q, link %q do not name %s and its API path", slug, e.Hint, e.Link, english)
				}
			}
			// An unknown slug, and a German-only product: the ordinary hint.
			for _, slug := range []string{"no-such-thing", "nur-deutsch"} {
				_, err := f.cat.Product(context.Background(), slug)
				var e *catalog.Error
				if !errors.As(err, &e) || e.Reason != "product_not_found" || !strings.Contains(e.Hint, "List the products") {
					t.Errorf("%s: %v", slug, err)
				}
			}
			// A translation's category is no category of the English API.
			if plugin != "translatepress" {
				if _, err := f.cat.Products(context.Background(), api.ListQuery{Category: "polizei"}); catalog.ErrorKind(err) != catalog.EINVALID {
					t.Errorf("category=polizei: err = %v, want invalid", err)
				}
			}
		})
	}
}

// A translation plugin's leftovers (its settings, language terms or tables
// without the plugin active, or its settings without its tables) leave the
// shop monolingual, as WordPress serves it; start-up reports what was
// ignored (issue 14).
func TestTranslationPluginLeftovers(t *testing.T) {
	plain := snapshot(t, load(t, multilingualShop("")))
	tests := []struct {
		name    string
		shop    func() *wpfixture.Shop
		ignored string // a word of the one line reported; "" = none
		plugin  string
	}{
		{"polylang option, plugin never active", func() *wpfixture.Shop {
			s := multilingualShop("")
			s.SetOption("polylang", wpfixture.Serialize(map[string]any{"default_lang": "en", "force_lang": 1}, "default_lang", "force_lang"))
			return s
		}, "Polylang settings", ""},
		{"polylang deactivated, translations left", func() *wpfixture.Shop {
			s := multilingualShop("polylang")
			s.DeactivatePlugin("polylang/polylang.php")
			return s
		}, "polylang/polylang.php", ""},
		{"wpml option without its table, plugin not active", func() *wpfixture.Shop {
			s := multilingualShop("")
			s.SetOption("icl_sitepress_settings", wpfixture.Serialize(map[string]any{"default_language": "en"}, "default_language"))
			return s
		}, "WPML settings", ""},
		{"wpml active without its table", func() *wpfixture.Shop {
			s := multilingualShop("")
			s.SetOption("icl_sitepress_settings", wpfixture.Serialize(map[string]any{"default_language": "en"}, "default_language"))
			s.ActivatePlugin("sitepress-multilingual-cms/sitepress.php")
			return s
		}, "icl_translations is missing", ""},
		{"translatepress option, plugin not active", func() *wpfixture.Shop {
			s := multilingualShop("")
			s.SetOption("trp_settings", wpfixture.Serialize(map[string]any{"default-language": "en_US"}, "default-language"))
			return s
		}, "TranslatePress settings", ""},
		{"polylang-pro counts as polylang", func() *wpfixture.Shop {
			s := multilingualShop("polylang")
			s.DeactivatePlugin("polylang/polylang.php")
			s.ActivatePlugin("polylang-pro/polylang.php")
			return s
		}, "", "polylang"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shop := tt.shop()
			f := load(t, shop)
			info, err := f.cat.Languages(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if info.Plugin != tt.plugin {
				t.Errorf("plugin = %q, want %q", info.Plugin, tt.plugin)
			}
			if got := strings.Join(info.Ignored, "\n"); tt.ignored == "" && got != "" ||
				tt.ignored != "" && (len(info.Ignored) != 1 || !strings.Contains(got, tt.ignored)) {
				t.Errorf("ignored = %q, want one line with %q", info.Ignored, tt.ignored)
			}
			if tt.plugin != "" {
				if got := snapshot(t, f); got != plain {
					t.Errorf("the English API differs from the same shop without a plugin:\n%s", firstDiff(plain, got))
				}
				return
			}
			// Monolingual: every published product of every language, as
			// WordPress without the plugin lists them.
			idx, err := f.cat.Index(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want := 3
			if strings.Contains(tt.name, "translations left") {
				want = 6 // the German ones too
			}
			if idx.ProductCount != want {
				t.Errorf("product_count = %d, want %d", idx.ProductCount, want)
			}
			if !strings.Contains(tt.name, "translations left") {
				if got := snapshot(t, f); got != plain {
					t.Errorf("the API differs from the same shop without the leftover:\n%s", firstDiff(plain, got))
				}
			}
			for _, slug := range []string{"police-radar", "car-dealer"} {
				f.product(t, slug)
			}
		})
	}
}

// On a multisite network a plugin can be active for every site at once: it
// is then in the network's active_sitewide_plugins, not the site's
// active_plugins. The subsite's tables are wp_2_*, the network's wp_*.
func TestNetworkActivatedPlugin(t *testing.T) {
	for _, network := range []bool{true, false} {
		t.Run(fmt.Sprintf("network-active=%v", network), func(t *testing.T) {
			s := wpfixture.New("wp_2_", "https://shop.example/site2")
			s.Now = now
			multilingualShopOn(s, "polylang")
			s.DeactivatePlugin("polylang/polylang.php")
			files := []string{"woocommerce/woocommerce.php"}
			if network {
				files = append(files, "polylang/polylang.php")
			}
			s.NetworkActivate("wp_", 2, files...)
			f := load(t, s)
			info, err := f.cat.Languages(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want, wantProducts := "", 6
			if network {
				want, wantProducts = "polylang", 3
			}
			l := f.list(t, api.ListQuery{PerPage: 50})
			if info.Plugin != want || len(info.Ignored) != map[bool]int{true: 0, false: 1}[network] || l.Total != wantProducts {
				t.Errorf("plugin %q, ignored %q, %d products; want %q and %d products", info.Plugin, info.Ignored, l.Total, want, wantProducts)
			}
		})
	}
}

// A configured language serves that language instead.
func TestConfiguredLanguage(t *testing.T) {
	f := load(t, multilingualShop("wpml"))
	de := catalog.New(f.db, catalog.Config{Language: "de", Now: func() time.Time { return now }})
	l, err := de.Products(context.Background(), api.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if got := slugs(l.Products); !reflect.DeepEqual(got, []string{"polizeiradar", "autohaendler", "nur-deutsch"}) {
		t.Errorf("German list = %v", got)
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range al {
		if i >= len(bl) || al[i] != bl[i] {
			lo := max(0, i-3)
			return "want:\n" + strings.Join(al[lo:min(len(al), i+3)], "\n") + "\ngot:\n" + strings.Join(bl[lo:min(len(bl), i+3)], "\n")
		}
	}
	return "(longer)"
}

// A SELECT-only user granted the shop's own tables cannot read the network
// tables ({base}sitemeta) a leftover's check looks at: MySQL answers
// "denied" even where they do not exist. The leftover is still ignored;
// the network's sitemeta, which this single site does not have, is not
// reported.
func TestLeftoverWithSelectOnlyUser(t *testing.T) {
	s := multilingualShop("")
	s.SetOption("polylang", wpfixture.Serialize(map[string]any{"default_lang": "en"}, "default_lang"))
	dsn, admin := testdb.Load(t, s)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	user := "catalogd_lang_" + strings.TrimPrefix(cfg.DBName, "catalogd_test_")
	t.Cleanup(func() { admin.Exec("DROP USER IF EXISTS '" + user + "'@'%'") })
	if _, err := admin.Exec("CREATE USER '" + user + "'@'%' IDENTIFIED BY 'pw'"); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"posts", "postmeta", "terms", "term_taxonomy", "term_relationships", "termmeta",
		"options", "woocommerce_attribute_taxonomies"} {
		if _, err := admin.Exec("GRANT SELECT ON `" + cfg.DBName + "`.`wp_" + table + "` TO '" + user + "'@'%'"); err != nil {
			t.Fatal(err)
		}
	}
	ro := *cfg
	ro.User, ro.Passwd = user, "pw"
	db, err := wpdb.Open(ro.FormatDSN(), wpdb.Options{Prefix: "wp_"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cat := catalog.New(db, catalog.Config{Now: func() time.Time { return now }})
	info, err := cat.Languages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// This single site has no wp_sitemeta, which the user cannot be
	// granted: not reported (no false alarm at every start).
	if info.Plugin != "" || len(info.Ignored) != 1 || strings.Contains(strings.Join(info.Ignored, "\n"), "wp_sitemeta") {
		t.Errorf("Languages = %+v; want no plugin and the leftover alone reported", info)
	}
	if l, err := cat.Products(context.Background(), api.ListQuery{}); err != nil || l.Total != 3 {
		t.Errorf("Products = %v, %v; want the 3 products", l, err)
	}
}
