package catalog_test

import (
	"context"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"catalogd/api"

	"catalogd/catalog"
	"catalogd/internal/wpfixture"
)

// urlsOf are the URLs of the Police Radar product and the Police category
// (a child of Jobs) in one language, and the product's and category's slugs
// there.
type urlsOf struct {
	productSlug, product   string
	categorySlug, category string
}

// The English and German URLs each fixture's WordPress gives. Product URLs
// are get_permalink() and category URLs get_term_link(), each passed through
// the plugin's filter: Polylang's PLL_Filters_Links::post_type_link /
// term_link → PLL_Links_Directory, PLL_Links_Subdomain, PLL_Links_Domain
// ::add_language_to_link() (nothing with force_lang 0, nothing for a
// taxonomy Polylang does not translate); WPML's
// WPML_URL_Converter_Subdir_Strategy, _Domain_Strategy and
// _Parameter_Strategy ::convert_url_string().
const home = "https://shop.example"

var (
	enPlain = urlsOf{"police-radar", home + "/product/police-radar/", "police", home + "/product-category/jobs/police/"}
	dePlain = urlsOf{"polizeiradar", home + "/product/polizeiradar/", "polizei", home + "/product-category/berufe/polizei/"}
	deDir   = urlsOf{"polizeiradar", home + "/de/product/polizeiradar/", "polizei", home + "/de/product-category/berufe/polizei/"}
	enDir   = urlsOf{"police-radar", home + "/en/product/police-radar/", "police", home + "/en/product-category/jobs/police/"}
	// Untranslated categories: the German product under the English,
	// language-less category, whose URL nothing changes.
	deDirUntranslated = urlsOf{"polizeiradar", home + "/de/product/polizeiradar/", "police", home + "/product-category/jobs/police/"}
	enDirUntranslated = urlsOf{"police-radar", home + "/en/product/police-radar/", "police", home + "/product-category/jobs/police/"}
)

var modes = []struct {
	name         string
	enable       func(*wpfixture.Shop)
	untranslated bool // product_cat not translated
	en, de       urlsOf
}{
	{"polylang directory, hide_default, categories translated",
		func(s *wpfixture.Shop) { s.EnablePolylang("en", "de") }, false, enPlain, deDir},
	{"polylang directory, default shown, categories translated",
		func(s *wpfixture.Shop) {
			s.EnablePolylangWith(wpfixture.PolylangOptions{ShowDefault: true}, "en", "de")
		}, false, enDir, deDir},
	{"polylang directory, hide_default, categories untranslated",
		func(s *wpfixture.Shop) {
			s.EnablePolylangWith(wpfixture.PolylangOptions{UntranslatedCategories: true}, "en", "de")
		}, true, enPlain, deDirUntranslated},
	{"polylang directory, default shown, categories untranslated",
		func(s *wpfixture.Shop) {
			s.EnablePolylangWith(wpfixture.PolylangOptions{ShowDefault: true, UntranslatedCategories: true}, "en", "de")
		}, true, enDirUntranslated, deDirUntranslated},
	{"polylang subdomain",
		func(s *wpfixture.Shop) { s.EnablePolylangWith(wpfixture.PolylangOptions{ForceLang: 2}, "en", "de") }, false,
		enPlain, urlsOf{"polizeiradar", "https://de.shop.example/product/polizeiradar/", "polizei", "https://de.shop.example/product-category/berufe/polizei/"}},
	{"polylang domains",
		func(s *wpfixture.Shop) {
			s.EnablePolylangWith(wpfixture.PolylangOptions{ForceLang: 3,
				Domains: map[string]string{"en": home, "de": "https://shop.example.de"}}, "en", "de")
		}, false,
		enPlain, urlsOf{"polizeiradar", "https://shop.example.de/product/polizeiradar/", "polizei", "https://shop.example.de/product-category/berufe/polizei/"}},
	{"polylang language from the content",
		func(s *wpfixture.Shop) { s.EnablePolylangWith(wpfixture.PolylangOptions{ForceLang: -1}, "en", "de") }, false, enPlain, dePlain},
	{"polylang, plain permalinks (PLL_Links_Default)",
		func(s *wpfixture.Shop) {
			s.SetOption("permalink_structure", "")
			s.EnablePolylang("en", "de")
		}, false,
		urlsOf{"police-radar", home + "/?product=police-radar", "police", home + "/?product_cat=police"},
		urlsOf{"polizeiradar", home + "/?product=polizeiradar&lang=de", "polizei", home + "/?product_cat=polizei&lang=de"}},
	{"wpml directory",
		func(s *wpfixture.Shop) { s.EnableWPML("en", "de") }, false, enPlain, deDir},
	{"wpml directory, default language too",
		func(s *wpfixture.Shop) {
			s.EnableWPMLWith(wpfixture.WPMLOptions{DirectoryForDefault: true}, "en", "de")
		}, false, enDir, deDir},
	{"wpml parameter",
		func(s *wpfixture.Shop) { s.EnableWPMLWith(wpfixture.WPMLOptions{Negotiation: 3}, "en", "de") }, false,
		enPlain, urlsOf{"polizeiradar", home + "/product/polizeiradar/?lang=de", "polizei", home + "/product-category/berufe/polizei/?lang=de"}},
	{"wpml domain per language",
		func(s *wpfixture.Shop) {
			s.EnableWPMLWith(wpfixture.WPMLOptions{Negotiation: 2, Domains: map[string]string{"de": "shop.example.de"}}, "en", "de")
		}, false,
		enPlain, urlsOf{"polizeiradar", "https://shop.example.de/product/polizeiradar/", "polizei", "https://shop.example.de/product-category/berufe/polizei/"}},
	{"wpml, categories untranslated",
		func(s *wpfixture.Shop) {
			s.EnableWPMLWith(wpfixture.WPMLOptions{UntranslatedCategories: true}, "en", "de")
		}, true, enPlain, deDirUntranslated},
}

// urlLine matches the URLs a permalink structure shapes: the items' and
// the sitemap's (WordPress's is ?sitemap=index under plain permalinks).
var urlLine = regexp.MustCompile(`(?m)^\s*"(url|sitemap)": ".*",?\n`)

// Each fixture, served in its default language and in German: the default
// language's catalog is the shop without the plugin (URLs aside, which are
// checked one by one); the German catalog has the German products, their
// categories (the English ones when categories are untranslated), the URLs
// WordPress gives them, and 404s that name the German slug (issue 18).
func TestMultilingualModes(t *testing.T) {
	plain := snapshot(t, load(t, translatedShop(newShop(), nil, false)))
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			f := load(t, translatedShop(newShop(), m.enable, m.untranslated))
			ctx := context.Background()

			t.Run("default language", func(t *testing.T) {
				got := snapshot(t, f)
				if g, p := urlLine.ReplaceAllString(got, ""), urlLine.ReplaceAllString(plain, ""); g != p {
					t.Errorf("differs from the same shop without the plugin:\n%s", firstDiff(p, g))
				}
				checkURLs(t, f.cat, m.en)
			})

			t.Run("german", func(t *testing.T) {
				de := catalog.New(f.db, catalog.Config{Language: "de", Now: func() time.Time { return now }})
				l, err := de.Products(ctx, api.ListQuery{PerPage: 50})
				if err != nil {
					t.Fatal(err)
				}
				if got := slugs(l.Products); !reflect.DeepEqual(got, []string{"polizeiradar", "autohaendler", "nur-deutsch"}) {
					t.Errorf("German list = %v", got)
				}
				checkURLs(t, de, m.de)
				cats, err := de.Categories(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var catSlugs []string
				for _, c := range cats.Categories {
					catSlugs = append(catSlugs, c.Slug)
				}
				want := []string{"berufe", "fahrzeuge", "polizei"} // the translations have no "order" meta: by name
				if m.untranslated {
					want = []string{"jobs", "police", "vehicles"}
				}
				if !reflect.DeepEqual(catSlugs, want) {
					t.Errorf("German categories = %v, want %v", catSlugs, want)
				}
				// A filter on a category of the language served.
				fl, err := de.Products(ctx, api.ListQuery{Category: want[0]})
				if err != nil || fl.Total != 2 {
					t.Errorf("category=%s: %v, %v; want polizeiradar and nur-deutsch", want[0], fl, err)
				}
				// The English slug: 404 naming German and the German slug.
				_, err = de.Product(ctx, "police-radar")
				var e *catalog.Error
				if !errors.As(err, &e) || e.Reason != "product_not_found" {
					t.Fatalf("police-radar in German: %v", err)
				}
				if strings.Contains(e.Message+e.Hint, "English") || !strings.Contains(e.Message, "(de)") ||
					!strings.Contains(e.Hint, `"polizeiradar"`) || e.Link != "/catalog/products/polizeiradar" {
					t.Errorf("404 = %q / %q; want the German language and slug named", e.Message, e.Hint)
				}
			})
		})
	}
}

// checkURLs compares the url of the product and the category with what
// WordPress gives in the language served.
func checkURLs(t *testing.T, cat *catalog.Catalog, want urlsOf) {
	t.Helper()
	ctx := context.Background()
	p, err := cat.Product(ctx, want.productSlug)
	if err != nil {
		t.Fatal(err)
	}
	if p.URL != want.product {
		t.Errorf("product url = %s, want %s", p.URL, want.product)
	}
	cats, err := cat.Categories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range cats.Categories {
		if c.Slug == want.categorySlug {
			found = true
			if c.URL != want.category {
				t.Errorf("category url = %s, want %s", c.URL, want.category)
			}
		}
	}
	if !found {
		t.Errorf("no category %s in %v", want.categorySlug, cats.Categories)
	}
}

// With product categories untranslated (only products ticked in Polylang's
// settings), the categories carry no language: the default language's
// categories, counts, product categories and filters are the plugin-less
// shop's, and the German view lists the same categories with the German
// products counted (WordPress shows an untranslated taxonomy whole).
func TestUntranslatedCategoriesCount(t *testing.T) {
	f := load(t, translatedShop(newShop(), func(s *wpfixture.Shop) {
		s.EnablePolylangWith(wpfixture.PolylangOptions{UntranslatedCategories: true}, "en", "de")
	}, true))
	ctx := context.Background()
	cats, err := f.cat.Categories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	idx, _ := f.cat.Index(ctx)
	if len(cats.Categories) != 3 || idx.CategoryCount != 3 {
		t.Fatalf("categories = %v, category_count %d; want jobs, police, vehicles", cats.Categories, idx.CategoryCount)
	}
	if p := f.product(t, "police-radar"); !reflect.DeepEqual(p.Categories, []string{"police"}) {
		t.Errorf("police-radar categories = %v", p.Categories)
	}
	if l := f.list(t, api.ListQuery{Category: "jobs"}); l.Total != 2 {
		t.Errorf("category=jobs total = %d, want 2 (police-radar, loose-script)", l.Total)
	}
}

// A configured language the site lacks is an error naming the site's
// languages, never an empty catalog; a language the site has but without
// products is an empty catalog, and says so (issue 18).
func TestLanguageTheSiteLacks(t *testing.T) {
	for _, tt := range []struct {
		name   string
		enable func(*wpfixture.Shop)
		want   string
	}{
		{"polylang", func(s *wpfixture.Shop) { s.EnablePolylang("en", "de") }, "Polylang languages: de, en"},
		{"wpml", func(s *wpfixture.Shop) { s.EnableWPML("en", "de") }, "WPML languages: de, en"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := load(t, translatedShop(newShop(), tt.enable, false))
			fr := catalog.New(f.db, catalog.Config{Language: "fr", Now: func() time.Time { return now }})
			_, err := fr.Languages(context.Background())
			var le *catalog.LanguageError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), `"fr"`) {
				t.Errorf("Languages = %v, want a LanguageError naming %s", err, tt.want)
			}
			// Served, it is unavailable (503 and /readyz's reason), not an
			// internal error: it is the operator's to fix.
			var ce *catalog.Error
			if l, err := fr.Products(context.Background(), api.ListQuery{}); !errors.As(err, &ce) || ce.Kind != catalog.EUNAVAILABLE {
				t.Errorf("Products = %d products, %v; want an EUNAVAILABLE error", l.Total, err)
			}
			if fr.Ready(context.Background()) == nil {
				t.Errorf("Ready = nil for a language the site lacks")
			}
		})
	}
	t.Run("a language without products", func(t *testing.T) {
		f := load(t, translatedShop(newShop(), func(s *wpfixture.Shop) { s.EnablePolylang("en", "de", "fr") }, false))
		fr := catalog.New(f.db, catalog.Config{Language: "fr", Now: func() time.Time { return now }})
		info, err := fr.Languages(context.Background())
		if err != nil || info.Products != 0 || info.Language != "fr" {
			t.Errorf("Languages = %+v, %v; want fr with 0 products", info, err)
		}
	})
}
