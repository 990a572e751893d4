package catalog

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"catalogd/api"
)

// TestRulesSlugLookup: a slug is found as the database compares post_name
// (case-insensitively, trailing spaces ignored), the lowest ID first among
// duplicates.
func TestRulesSlugLookup(t *testing.T) {
	s := newStore()
	s.add(product{Title: "Upper", Slug: "Radar-Pro", Regular: "1"})
	s.add(product{Title: "First", Slug: "twin", Regular: "1"})
	s.add(product{Title: "Second", Slug: "twin", Regular: "2"})
	s.add(product{Title: "Draft Twin", Slug: "solo", Regular: "3", Status: "draft"})
	s.add(product{Title: "Solo", Slug: "solo", Regular: "4"})
	s.add(product{Title: "Spaced", Slug: "spaced ", Regular: "5"})
	s.add(product{Title: "Cyrillic", Slug: "%d1%80%d0%b0%d0%b4%d0%b0%d1%80", Regular: "6"})
	c, _, _ := serve(t, s)
	tests := []struct {
		slug string
		name string // "" for not found
		kind string // the error's kind otherwise
	}{
		{"radar-pro", "Upper", ""},
		{"twin", "First", ""},
		{"solo", "Solo", ""}, // the draft's lower ID does not count
		{"spaced", "Spaced", ""},
		{"%d1%80%d0%b0%d0%b4%d0%b0%d1%80", "Cyrillic", ""},
		{"%D1%80%D0%B0%D0%B4%D0%B0%D1%80", "Cyrillic", ""},
		{"радар", "Cyrillic", ""},
		{"Radar-Pro", "", EINVALID}, // uppercase ASCII is not a spelling the API accepts
		{"nope", "", ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			p, err := c.Product(context.Background(), tt.slug)
			if tt.name == "" {
				if ErrorKind(err) != tt.kind {
					t.Errorf("%v, want kind %s", err, tt.kind)
				}
				return
			}
			if err != nil || p.Name != tt.name {
				t.Errorf("got %v (%v), want %s", p, err, tt.name)
			}
		})
	}
}

// TestRulesTranslationHints: a slug of another language answers 404 with
// a hint naming the served language's slug, as each plugin relates
// translations: WPML by trid, Polylang by post_translations group,
// TranslatePress by its table of translated slugs.
func TestRulesTranslationHints(t *testing.T) {
	plugins := map[string]func(s *store){
		"wpml": func(s *store) {
			s.options["active_plugins"] = phpList("woocommerce/woocommerce.php", "sitepress-multilingual-cms/sitepress.php")
			s.options["icl_sitepress_settings"] = `a:4:{s:16:"default_language";s:2:"en";s:25:"language_negotiation_type";i:1;` +
				`s:24:"custom_posts_sync_option";a:1:{s:7:"product";i:1;}s:22:"taxonomies_sync_option";a:1:{s:11:"product_cat";i:0;}}`
			s.tables[TableWPMLTranslations], s.tables[TableWPMLLanguages] = true, true
			s.langs = []Language{{Code: "de", Name: "Deutsch"}, {Code: "en", Name: "English"}}
			file := func(id int64, lang string, trid int64) { s.wpml[id] = WPMLElement{Language: lang, TRID: trid} }
			file(s.add(product{Title: "Police Radar", Regular: "1"}), "en", 1)
			file(s.add(product{Title: "Polizeiradar", Regular: "1"}), "de", 1)
			file(s.add(product{Title: "Nur Deutsch", Regular: "1"}), "de", 2)
			file(s.add(product{Title: "Entwurf", Slug: "entwurf-de", Regular: "1"}), "de", 3)
			file(s.add(product{Title: "Draft", Slug: "draft-en", Regular: "1", Status: "draft"}), "en", 3)
		},
		"polylang": func(s *store) {
			s.options["active_plugins"] = phpList("woocommerce/woocommerce.php", "polylang/polylang.php")
			s.options["polylang"] = `a:4:{s:12:"default_lang";s:2:"en";s:10:"force_lang";i:1;` +
				`s:10:"post_types";a:1:{i:0;s:7:"product";}s:10:"taxonomies";a:0:{}}`
			s.term(taxLanguage, "English", "en", "", 0)
			s.term(taxLanguage, "Deutsch", "de", "", 1)
			s.term(taxTermLanguage, "English", "pll_en", "", 0)
			s.term(taxTermLanguage, "Deutsch", "pll_de", "", 0)
			group := func(name string, members map[string]int64) {
				tt := s.term("post_translations", name, name, "", 0)
				s.groups[tt] = members
				for _, id := range members {
					s.rels[id] = append(s.rels[id], tt)
				}
			}
			in := func(id int64, lang string) int64 { s.relate(id, taxLanguage, lang); return id }
			en := in(s.add(product{Title: "Police Radar", Regular: "1"}), "en")
			de := in(s.add(product{Title: "Polizeiradar", Regular: "1"}), "de")
			group("pll_1", map[string]int64{"en": en, "de": de})
			in(s.add(product{Title: "Nur Deutsch", Regular: "1"}), "de")
			deDraft := in(s.add(product{Title: "Entwurf", Slug: "entwurf-de", Regular: "1"}), "de")
			enDraft := in(s.add(product{Title: "Draft", Slug: "draft-en", Regular: "1", Status: "draft"}), "en")
			group("pll_2", map[string]int64{"en": enDraft, "de": deDraft})
		},
		"translatepress": func(s *store) {
			s.options["active_plugins"] = phpList("woocommerce/woocommerce.php", "translatepress-multilingual/index.php")
			s.options["trp_settings"] = `a:1:{s:16:"default-language";s:5:"en_US";}`
			s.tables[TableTRPSlugOriginals], s.tables[TableTRPSlugTranslations] = true, true
			s.add(product{Title: "Police Radar", Regular: "1"})
			s.add(product{Title: "Draft", Slug: "draft-en", Regular: "1", Status: "draft"})
			s.trp["polizeiradar"] = "police-radar"
			s.trp["entwurf-de"] = "draft-en"
		},
	}
	tests := []struct {
		plugin, slug string
		hint         string // the served language's slug the 404 names; "" for none
	}{
		{"wpml", "polizeiradar", "police-radar"},
		{"wpml", "nur-deutsch", ""}, // no English translation
		{"wpml", "entwurf-de", ""},  // its English translation is a draft
		{"wpml", "nope", ""},
		{"polylang", "polizeiradar", "police-radar"},
		{"polylang", "nur-deutsch", ""},
		{"polylang", "entwurf-de", ""},
		{"polylang", "nope", ""},
		{"translatepress", "polizeiradar", "police-radar"},
		{"translatepress", "entwurf-de", ""}, // the original is a draft
		{"translatepress", "nope", ""},
	}
	for _, tt := range tests {
		t.Run(tt.plugin+" "+tt.slug, func(t *testing.T) {
			s := newStore()
			plugins[tt.plugin](s)
			c, _, _ := serve(t, s)
			if l := getList(t, c, api.ListQuery{}); tt.plugin != "translatepress" && !reflect.DeepEqual(listSlugs(l.Products), []string{"police-radar"}) {
				t.Errorf("served %v, want the English product only", listSlugs(l.Products))
			}
			_, err := c.Product(context.Background(), tt.slug)
			var e *Error
			if !errors.As(err, &e) || e.Kind != ENOTFOUND || e.Reason != "product_not_found" {
				t.Fatalf("%v, want product_not_found", err)
			}
			named := strings.Contains(e.Hint, `"`+tt.hint+`"`) && e.Link == "/catalog/products/"+tt.hint &&
				strings.Contains(e.Message, "translation")
			if tt.hint != "" && !named {
				t.Errorf("message %q, hint %q, link %q; want the English slug %s named", e.Message, e.Hint, e.Link, tt.hint)
			}
			if tt.hint == "" && (strings.Contains(e.Message, "translation") || e.Link != "/catalog/products") {
				t.Errorf("message %q, hint %q, link %q; want the plain not-found hint", e.Message, e.Hint, e.Link)
			}
		})
	}
}
