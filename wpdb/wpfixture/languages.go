package wpfixture

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	phpserialize "github.com/trim21/go-phpserialize"
)

// Multilingual shops, stored the way each translation plugin stores them.
// WPML: {prefix}icl_translations rows (element_type post_product and
// tax_product_cat, the latter keyed by term_taxonomy_id), translations of an
// item sharing a trid, and the default language in the serialized option
// icl_sitepress_settings. Polylang: the `language` taxonomy (posts), the
// `term_language` taxonomy (terms, object_id = term_id, slug pll_{code}),
// post_translations / term_translations groups whose description is a
// serialized language → ID array, and the default in the `polylang` option.
// TranslatePress: no posts of its own; translated slugs in
// {prefix}trp_slug_originals / trp_slug_translations (SEO Pack 2.x), the
// default locale in trp_settings.

// wpmlSchema is WPML's table (sitepress-schema.php).
const wpmlSchema = `CREATE TABLE {prefix}icl_translations (
	translation_id bigint(20) NOT NULL AUTO_INCREMENT,
	element_type varchar(36) NOT NULL DEFAULT 'post_post',
	element_id bigint(20) DEFAULT NULL,
	trid bigint(20) NOT NULL,
	language_code varchar(7) NOT NULL,
	source_language_code varchar(7) DEFAULT NULL,
	PRIMARY KEY (translation_id),
	UNIQUE KEY el_type_id (element_type,element_id),
	UNIQUE KEY trid_lang (trid,language_code),
	KEY trid (trid),
	KEY id_type_language (element_id,element_type,language_code)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci`

// trpSchema is TranslatePress SEO Pack's slug tables (foreign key left out).
var trpSchema = []string{`CREATE TABLE {prefix}trp_slug_originals (
	id int(11) NOT NULL AUTO_INCREMENT,
	original varchar(200) NOT NULL,
	type varchar(50) DEFAULT 'other',
	PRIMARY KEY (id),
	UNIQUE KEY unique_original (original(191))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci`, `CREATE TABLE {prefix}trp_slug_translations (
	id int(11) NOT NULL AUTO_INCREMENT,
	original_id int(11) NOT NULL,
	translated varchar(255) NOT NULL,
	language varchar(20) DEFAULT NULL,
	status int(11) DEFAULT NULL,
	PRIMARY KEY (id),
	UNIQUE KEY original_language (original_id,language),
	KEY language (language),
	KEY translated (translated(191))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci`}

// langState is the active translation plugin of a fixture shop.
type langState struct {
	plugin   string // wpml, polylang, translatepress
	def, cur string // default language, language new items get
	nextTrid int64
	trids    map[string]int64            // "post:ID" or "tax:TTID" → trid
	groups   map[string]map[string]int64 // polylang: "post:ID" of the original → lang → ID
	groupOf  map[string]string           // polylang: member → original key
	nextTRP  int64
	origin   string // while adding a translation: the original's key
}

// EnableWPML installs WPML with the default language; products and
// categories added afterwards are in it.
func (s *Shop) EnableWPML(def string) {
	s.extraSchema = append(s.extraSchema, wpmlSchema)
	s.lang = &langState{plugin: "wpml", def: def, cur: def, trids: map[string]int64{}}
	s.SetOption("icl_sitepress_settings", Serialize(map[string]any{"default_language": def,
		"setup_complete": 1, "hidden_languages": []any{}}, "default_language", "setup_complete", "hidden_languages"))
	s.SetOption("icl_sitepress_version", "4.7.4")
	s.ActivatePlugin("sitepress-multilingual-cms/sitepress.php")
	s.languageOfTerm(s.TermRef("product_cat", "uncategorized"))
}

// EnablePolylang installs Polylang with its languages, the first being the
// default.
func (s *Shop) EnablePolylang(langs ...string) {
	s.lang = &langState{plugin: "polylang", def: langs[0], cur: langs[0],
		groups: map[string]map[string]int64{}, groupOf: map[string]string{}}
	for i, l := range langs {
		ref := s.Term("language", strings.ToUpper(l), l, 0)
		s.setTermDescription(ref.TTID, Serialize(map[string]any{"locale": l + "_" + strings.ToUpper(l), "rtl": 0,
			"flag_code": l}, "locale", "rtl", "flag_code"))
		s.setTermGroup(ref.TermID, i)
		s.Term("term_language", strings.ToUpper(l), "pll_"+l, 0)
	}
	s.SetOption("polylang", Serialize(map[string]any{"default_lang": langs[0], "version": "3.6.4",
		"force_lang": 1}, "default_lang", "version", "force_lang"))
	s.ActivatePlugin("polylang/polylang.php")
	s.languageOfTerm(s.TermRef("product_cat", "uncategorized"))
}

// EnableTranslatePress installs TranslatePress with its default locale.
func (s *Shop) EnableTranslatePress(defLocale string, locales ...string) {
	s.extraSchema = append(s.extraSchema, trpSchema...)
	s.lang = &langState{plugin: "translatepress", def: defLocale, cur: defLocale}
	all := append([]any{defLocale}, toAny(locales)...)
	slugs := map[string]any{}
	for _, l := range append([]string{defLocale}, locales...) {
		slugs[l] = strings.ToLower(l[:2])
	}
	s.SetOption("trp_settings", Serialize(map[string]any{"default-language": defLocale,
		"translation-languages": all, "publish-languages": all, "url-slugs": slugs},
		"default-language", "translation-languages", "publish-languages", "url-slugs"))
	s.ActivatePlugin("translatepress-multilingual/index.php")
}

// TranslateSlug stores a TranslatePress slug translation of an original
// (post) slug.
func (s *Shop) TranslateSlug(original, locale, translated string) {
	s.lang.nextTRP++
	s.Row("trp_slug_originals", []string{"id", "original", "type"}, s.lang.nextTRP, original, "post")
	s.Row("trp_slug_translations", []string{"original_id", "translated", "language", "status"},
		s.lang.nextTRP, translated, locale, 2)
}

// Translate adds p as the lang translation of the product of, and returns
// its ID. Categories named in p must be of that language (TranslateCategory).
func (s *Shop) Translate(of int64, lang string, p Product) int64 {
	prev := s.lang.cur
	s.lang.cur = lang
	s.lang.origin = fmt.Sprintf("post:%d", of)
	defer func() { s.lang.cur, s.lang.origin = prev, "" }()
	return s.Add(p)
}

// AddIn adds a product in a language, translating nothing.
func (s *Shop) AddIn(lang string, p Product) int64 {
	prev := s.lang.cur
	s.lang.cur = lang
	defer func() { s.lang.cur = prev }()
	return s.Add(p)
}

// TranslateCategory adds the lang translation of a category: name, slug,
// and the parent's translation's slug ("" at the top).
func (s *Shop) TranslateCategory(of, lang, name, slug, parent string) termRef {
	prev := s.lang.cur
	s.lang.cur = lang
	s.lang.origin = fmt.Sprintf("tax:%d", s.TermRef("product_cat", of).TTID)
	defer func() { s.lang.cur, s.lang.origin = prev, "" }()
	return s.Category(name, slug, parent, 0)
}

// languageOfPost records a new product's language.
func (s *Shop) languageOfPost(id int64) {
	if s.lang == nil {
		return
	}
	switch s.lang.plugin {
	case "wpml":
		s.wpmlRow("post_product", id, fmt.Sprintf("post:%d", id))
	case "polylang":
		s.Relate(id, s.TermRef("language", s.lang.cur))
		s.polylangGroup("post_translations", fmt.Sprintf("post:%d", id), id)
	}
}

// languageOfTerm records a new category's language.
func (s *Shop) languageOfTerm(ref termRef) {
	if s.lang == nil {
		return
	}
	switch s.lang.plugin {
	case "wpml":
		s.wpmlRow("tax_product_cat", ref.TTID, fmt.Sprintf("tax:%d", ref.TTID))
	case "polylang":
		s.Row("term_relationships", []string{"object_id", "term_taxonomy_id", "term_order"},
			ref.TermID, s.TermRef("term_language", "pll_"+s.lang.cur).TTID, 0)
		s.polylangGroup("term_translations", fmt.Sprintf("tax:%d", ref.TermID), ref.TermID)
	}
}

func (s *Shop) wpmlRow(elementType string, id int64, key string) {
	l := s.lang
	trid, source := int64(0), any(nil)
	if l.origin != "" {
		trid, source = l.trids[l.origin], l.def
	} else {
		l.nextTrid++
		trid = l.nextTrid
	}
	l.trids[key] = trid
	s.Row("icl_translations", []string{"element_type", "element_id", "trid", "language_code", "source_language_code"},
		elementType, id, trid, l.cur, source)
}

// polylangGroup keeps the translation group of an original and its
// translations; the group terms are written when the shop is flushed.
func (s *Shop) polylangGroup(taxonomy, key string, id int64) {
	l := s.lang
	// A category's origin is named by term_taxonomy_id; the fixture
	// numbers terms and term_taxonomy alike, so it is its term_id too.
	orig := key
	if l.origin != "" {
		orig = l.origin
	}
	if l.groups[orig] == nil {
		l.groups[orig] = map[string]int64{}
	}
	l.groups[orig][l.cur] = id
	l.groupOf[key] = orig
}

// writePolylangGroups stores the translation groups that have at least two
// members (posts) or any member (terms), as Polylang does.
func (s *Shop) writePolylangGroups() {
	if s.lang == nil || s.lang.plugin != "polylang" {
		return
	}
	for orig, members := range s.lang.groups {
		taxonomy := "post_translations"
		if strings.HasPrefix(orig, "tax:") {
			taxonomy = "term_translations"
		} else if len(members) < 2 {
			continue
		}
		keys := []string{}
		m := map[string]any{}
		for _, l := range append([]string{s.lang.def}, s.otherLangs(members)...) {
			if id, ok := members[l]; ok {
				keys = append(keys, l)
				m[l] = id
			}
		}
		ref := s.Term(taxonomy, "pll_"+strings.ReplaceAll(orig, ":", "_"), "pll_"+strings.ReplaceAll(orig, ":", "_"), 0)
		s.setTermDescription(ref.TTID, Serialize(m, keys...))
		for _, id := range members {
			s.Row("term_relationships", []string{"object_id", "term_taxonomy_id", "term_order"}, id, ref.TTID, 0)
		}
	}
	s.lang.groups = map[string]map[string]int64{}
}

func (s *Shop) otherLangs(m map[string]int64) []string {
	var out []string
	for l := range m {
		if l != s.lang.def {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

func (s *Shop) setTermDescription(ttid int64, desc string) {
	for _, row := range s.tables["term_taxonomy"].rows {
		if row[0] == ttid {
			row[3] = desc
		}
	}
}

func (s *Shop) setTermGroup(termID int64, group int) {
	for _, row := range s.tables["terms"].rows {
		if row[0] == termID {
			row[3] = group
		}
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, v := range ss {
		out[i] = v
	}
	return out
}

// ActivatePlugin adds plugin main files to the active_plugins option, a
// serialized list, as activate_plugin() does (sorted, as it sorts them).
func (s *Shop) ActivatePlugin(files ...string) {
	for _, f := range files {
		if !slices.Contains(s.plugins, f) {
			s.plugins = append(s.plugins, f)
		}
	}
	s.writePlugins()
}

// DeactivatePlugin removes plugin files from active_plugins, leaving their
// settings and tables behind, as deactivate_plugins() does.
func (s *Shop) DeactivatePlugin(files ...string) {
	s.plugins = slices.DeleteFunc(s.plugins, func(f string) bool { return slices.Contains(files, f) })
	s.writePlugins()
}

func (s *Shop) writePlugins() {
	slices.Sort(s.plugins)
	b, err := phpserialize.Marshal(s.plugins)
	if err != nil {
		panic(err)
	}
	s.SetOption("active_plugins", string(b))
}

// NetworkActivate makes the shop a site of a multisite network whose tables
// live under base (the shop's Prefix being base + blog ID + "_"), with the
// plugin files network-activated: {base}blogs maps the blog to network 1,
// {base}sitemeta holds active_sitewide_plugins, a serialized map of plugin
// file to activation time. The network's tables are created with their rows.
func (s *Shop) NetworkActivate(base string, blogID int64, files ...string) {
	m := map[string]any{}
	for _, f := range files {
		m[f] = s.Now.Unix()
	}
	sitewide := Serialize(m, files...)
	s.extraSchema = append(s.extraSchema, `CREATE TABLE `+base+`blogs (
	blog_id bigint(20) NOT NULL AUTO_INCREMENT,
	site_id bigint(20) NOT NULL DEFAULT 0,
	domain varchar(200) NOT NULL DEFAULT '',
	path varchar(100) NOT NULL DEFAULT '',
	PRIMARY KEY (blog_id),
	KEY domain (domain(50),path(5))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci`, `CREATE TABLE `+base+`sitemeta (
	meta_id bigint(20) unsigned NOT NULL AUTO_INCREMENT,
	site_id bigint(20) unsigned NOT NULL DEFAULT 0,
	meta_key varchar(255) DEFAULT NULL,
	meta_value longtext,
	PRIMARY KEY (meta_id),
	KEY meta_key (meta_key(191)),
	KEY site_id (site_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci`,
		blogsRows(base, blogID),
		`INSERT INTO `+base+`sitemeta (site_id, meta_key, meta_value) VALUES (1, 'active_sitewide_plugins', `+literal(sitewide)+`)`)
}

// blogsRows inserts the main site and, for a subsite, the shop's blog.
func blogsRows(base string, blogID int64) string {
	q := `INSERT INTO ` + base + `blogs (blog_id, site_id, domain, path) VALUES (1, 1, 'shop.example', '/')`
	if blogID > 1 {
		q += fmt.Sprintf(`, (%d, 1, 'shop.example', '/site%d/')`, blogID, blogID)
	}
	return q
}
