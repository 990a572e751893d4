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

// wpmlLanguagesSchema is WPML's language list (sitepress-schema.php).
const wpmlLanguagesSchema = `CREATE TABLE {prefix}icl_languages (
	id int(11) NOT NULL AUTO_INCREMENT,
	code varchar(7) NOT NULL,
	english_name varchar(128) NOT NULL,
	major tinyint(4) NOT NULL DEFAULT 0,
	active tinyint(4) NOT NULL,
	default_locale varchar(35) DEFAULT NULL,
	tag varchar(35) DEFAULT NULL,
	encode_url tinyint(1) NOT NULL DEFAULT 0,
	country varchar(10) DEFAULT NULL,
	PRIMARY KEY (id),
	UNIQUE KEY code (code),
	UNIQUE KEY english_name (english_name)
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
	// untranslatedCats: the plugin does not translate product_cat, so
	// categories get no language.
	untranslatedCats bool
}

// languageNames are the names the plugins give the languages fixtures use:
// Polylang's language term name (its languages list) and WPML's
// icl_languages.english_name.
var languageNames = map[string][2]string{
	"en": {"English", "English"}, "de": {"Deutsch", "German"},
	"fr": {"Français", "French"}, "es": {"Español", "Spanish"},
}

// WPMLOptions are the WPML settings of a fixture shop; the zero value is
// WPML's default: a directory per language except the default's, products
// and product categories translatable.
type WPMLOptions struct {
	Negotiation            int               // language_negotiation_type: 1 directory (0 means 1), 2 domain, 3 parameter
	DirectoryForDefault    bool              // urls[directory_for_default_language]
	Domains                map[string]string // language_domains: language → host
	UntranslatedCategories bool              // taxonomies_sync_option[product_cat] = 0
}

// EnableWPML installs WPML with its active languages, the first being the
// default; products and categories added afterwards are in it.
func (s *Shop) EnableWPML(langs ...string) { s.EnableWPMLWith(WPMLOptions{}, langs...) }

// EnableWPMLWith installs WPML with settings. Its tables are those of
// sitepress-schema.php; icl_languages holds the languages fixtures know, the
// site's active.
func (s *Shop) EnableWPMLWith(o WPMLOptions, langs ...string) {
	def := langs[0]
	s.extraSchema = append(s.extraSchema, wpmlSchema, wpmlLanguagesSchema)
	s.lang = &langState{plugin: "wpml", def: def, cur: def, trids: map[string]int64{},
		untranslatedCats: o.UntranslatedCategories}
	codes := make([]string, 0, len(languageNames))
	for code := range languageNames {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	for _, code := range codes {
		active := 0
		if slices.Contains(langs, code) {
			active = 1
		}
		s.Row("icl_languages", []string{"code", "english_name", "major", "active", "default_locale", "tag"},
			code, languageNames[code][1], 1, active, code+"_"+strings.ToUpper(code), code)
	}
	if o.Negotiation == 0 {
		o.Negotiation = 1
	}
	catSync := 1
	if o.UntranslatedCategories {
		catSync = 0
	}
	domains := map[string]any{}
	var domainKeys []string
	for _, l := range langs[1:] {
		if d, ok := o.Domains[l]; ok {
			domains[l] = d
			domainKeys = append(domainKeys, l)
		}
	}
	s.SetOption("icl_sitepress_settings", Serialize(map[string]any{
		"default_language":          def,
		"setup_complete":            1,
		"hidden_languages":          []any{},
		"language_negotiation_type": o.Negotiation,
		"urls": Serialized(Serialize(map[string]any{"directory_for_default_language": boolInt(o.DirectoryForDefault),
			"show_on_root": "", "root_html_file_path": "", "root_page": 0, "hide_language_switchers": 1},
			"directory_for_default_language", "show_on_root", "root_html_file_path", "root_page", "hide_language_switchers")),
		"language_domains":         Serialized(Serialize(domains, domainKeys...)),
		"custom_posts_sync_option": Serialized(Serialize(map[string]any{"product": 1, "product_variation": 1}, "product", "product_variation")),
		"taxonomies_sync_option": Serialized(Serialize(map[string]any{"product_cat": catSync, "product_tag": 1,
			"product_shipping_class": 1}, "product_cat", "product_tag", "product_shipping_class")),
	}, "default_language", "setup_complete", "hidden_languages", "language_negotiation_type", "urls",
		"language_domains", "custom_posts_sync_option", "taxonomies_sync_option"))
	s.SetOption("icl_sitepress_version", "4.7.4")
	s.ActivatePlugin("sitepress-multilingual-cms/sitepress.php")
	s.languageOfTerm(s.TermRef("product_cat", "uncategorized"))
}

// PolylangOptions are the Polylang settings of a fixture shop; the zero
// value is Polylang's default: the language in a directory, hidden for the
// default language, products and product categories translated.
type PolylangOptions struct {
	ForceLang              int               // 1 directory (0 means 1), 2 subdomain, 3 domains, -1 from the content (stored 0)
	ShowDefault            bool              // hide_default false: the default language has its directory too
	Domains                map[string]string // ForceLang 3: language → URL
	UntranslatedCategories bool              // product_cat not in the taxonomies setting
}

// EnablePolylang installs Polylang with its languages, the first being the
// default.
func (s *Shop) EnablePolylang(langs ...string) { s.EnablePolylangWith(PolylangOptions{}, langs...) }

// EnablePolylangWith installs Polylang 3.8 with settings, stored as its
// options registry saves them.
func (s *Shop) EnablePolylangWith(o PolylangOptions, langs ...string) {
	s.lang = &langState{plugin: "polylang", def: langs[0], cur: langs[0],
		groups: map[string]map[string]int64{}, groupOf: map[string]string{}, untranslatedCats: o.UntranslatedCategories}
	for i, l := range langs {
		name := languageNames[l][0]
		ref := s.Term("language", name, l, 0)
		s.setTermDescription(ref.TTID, Serialize(map[string]any{"locale": l + "_" + strings.ToUpper(l), "rtl": 0,
			"flag_code": l}, "locale", "rtl", "flag_code"))
		s.setTermGroup(ref.TermID, i)
		s.Term("term_language", name, "pll_"+l, 0)
	}
	switch o.ForceLang {
	case 0:
		o.ForceLang = 1
	case -1:
		o.ForceLang = 0
	}
	taxonomies := []string{"product_cat", "product_tag"}
	if o.UntranslatedCategories {
		taxonomies = []string{"product_tag"}
	}
	domains := map[string]any{}
	var domainKeys []string
	for _, l := range langs {
		if d, ok := o.Domains[l]; ok {
			domains[l] = d
			domainKeys = append(domainKeys, l)
		}
	}
	s.SetOption("polylang", Serialize(map[string]any{
		"browser": false, "rewrite": true, "hide_default": !o.ShowDefault, "force_lang": o.ForceLang,
		"redirect_lang": false, "media_support": false, "uninstall": false, "sync": []string{},
		"post_types": []string{"product"}, "taxonomies": taxonomies,
		"domains": Serialized(Serialize(domains, domainKeys...)), "version": "3.8.7", "first_activation": s.Now.Unix(),
		"previous_version": "", "default_lang": langs[0], "nav_menus": []string{}, "language_taxonomies": []string{},
	}, "browser", "rewrite", "hide_default", "force_lang", "redirect_lang", "media_support", "uninstall", "sync",
		"post_types", "taxonomies", "domains", "version", "first_activation", "previous_version", "default_lang",
		"nav_menus", "language_taxonomies"))
	s.ActivatePlugin("polylang/polylang.php")
	s.languageOfTerm(s.TermRef("product_cat", "uncategorized"))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
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
	if s.lang == nil || s.lang.untranslatedCats {
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
