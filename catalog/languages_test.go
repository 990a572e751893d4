package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/wpdb/wpfixture"
)

// multilingualShop builds the same English shop under each translation
// plugin, then adds German translations the way that plugin stores them.
func multilingualShop(plugin string) *wpfixture.Shop {
	s := newShop()
	switch plugin {
	case "wpml":
		s.EnableWPML("en")
	case "polylang":
		s.EnablePolylang("en", "de")
	case "translatepress":
		s.EnableTranslatePress("en_US", "de_DE")
	}
	s.Category("Jobs", "jobs", "", 0)
	s.Category("Police", "police", "jobs", 0)
	s.Category("Vehicles", "vehicles", "", 1)
	radar := s.Add(wpfixture.Product{Title: "Police Radar", RegularPrice: "20", Categories: []string{"police"}, Frameworks: []string{"esx"},
		Excerpt: "<p>Radar for the police.</p>"})
	car := s.Add(wpfixture.Product{Title: "Car Dealer", RegularPrice: "30", SalePrice: "25", Categories: []string{"vehicles"}, Frameworks: []string{"qbcore"}})
	s.Add(wpfixture.Product{Title: "Loose Script", RegularPrice: "5", Categories: []string{"jobs"}})

	switch plugin {
	case "wpml", "polylang":
		s.TranslateCategory("jobs", "de", "Berufe", "berufe", "")
		s.TranslateCategory("police", "de", "Polizei", "polizei", "berufe")
		s.TranslateCategory("vehicles", "de", "Fahrzeuge", "fahrzeuge", "")
		s.Translate(radar, "de", wpfixture.Product{Title: "Polizeiradar", RegularPrice: "20", Categories: []string{"polizei"},
			Frameworks: []string{"esx"}, Excerpt: "<p>Radar für die Polizei.</p>"})
		s.Translate(car, "de", wpfixture.Product{Title: "Autohaendler", RegularPrice: "30", Categories: []string{"fahrzeuge"}})
		// A product only in German.
		s.AddIn("de", wpfixture.Product{Title: "Nur Deutsch", RegularPrice: "3", Categories: []string{"berufe"}})
	case "translatepress":
		s.TranslateSlug("police-radar", "de_DE", "polizeiradar")
		s.TranslateSlug("car-dealer", "de_DE", "autohaendler")
	}
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
	l := f.list(t, catalog.ListQuery{PerPage: 50})
	all = append(all, l)
	for _, q := range []catalog.ListQuery{{Category: "jobs"}, {Category: "police"}, {Framework: "esx"}, {Framework: "qbcore"}} {
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
			plugin2, lang, err := f.cat.Languages(context.Background())
			if err != nil || plugin2 != plugin {
				t.Fatalf("detected %q %q, %v", plugin2, lang, err)
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
				if !strings.Contains(e.Hint, `"`+english+`"`) || !strings.Contains(e.Hint, "/wp-json/shop/v1/catalog/products/"+english) {
					t.Errorf("%s: hint %q does not name %s and its API URL", slug, e.Hint, english)
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
				if _, err := f.cat.Products(context.Background(), catalog.ListQuery{Category: "polizei"}); catalog.ErrorKind(err) != catalog.EINVALID {
					t.Errorf("category=polizei: err = %v, want invalid", err)
				}
			}
		})
	}
}

// A configured language serves that language instead.
func TestConfiguredLanguage(t *testing.T) {
	f := load(t, multilingualShop("wpml"))
	de := catalog.New(f.db, catalog.Config{Language: "de", Now: func() time.Time { return now }})
	l, err := de.Products(context.Background(), catalog.ListQuery{})
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
