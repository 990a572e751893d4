package catalog

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"catalogd/wpopt"
)

// Translation plugins catalogd knows.
const (
	pluginWPML           = "wpml"
	pluginPolylang       = "polylang"
	pluginTranslatePress = "translatepress"
)

// translationPlugin is what tells that WordPress loads a translation plugin:
// its main files as active_plugins lists them, and the tables it cannot work
// without. Its settings option alone proves nothing: WordPress keeps a
// deactivated plugin's options (and a deleted one's, often).
type translationPlugin struct {
	name, label string
	option      string
	files       []string
	tables      []string
}

var translationPlugins = []translationPlugin{
	{pluginWPML, "WPML", wpopt.OptionWPML, []string{"sitepress-multilingual-cms/sitepress.php"}, []string{TableWPMLTranslations, TableWPMLLanguages}},
	{pluginPolylang, "Polylang", wpopt.OptionPolylang, []string{"polylang/polylang.php", "polylang-pro/polylang.php"}, nil},
	{pluginTranslatePress, "TranslatePress", wpopt.OptionTranslatePress, []string{"translatepress-multilingual/index.php"}, nil},
}

// activePlugins is the set of plugin files WordPress loads: the site's
// active_plugins and the network's active_sitewide_plugins.
type activePlugins struct {
	site, network []string
}

// activePlugins decodes the site's active_plugins option and takes the
// network's plugins as read.
func (b *builder) activePlugins(rows *ShopRows) *activePlugins {
	site, err := wpopt.ParsePluginList(rows.Options["active_plugins"])
	if err != nil {
		// get_option() gives false for a value it cannot unserialize:
		// WordPress then loads no plugin.
		b.warn("active_plugins is damaged; no plugin counts as active", err)
	}
	return &activePlugins{site: site, network: rows.NetworkPlugins}
}

// has reports whether WordPress loads any of the plugin files.
func (a *activePlugins) has(files []string) bool {
	for _, f := range files {
		if slices.Contains(a.site, f) || slices.Contains(a.network, f) {
			return true
		}
	}
	return false
}

// multilingual is what a translation plugin WordPress loads changes in the
// catalog.
type multilingual struct {
	plugin   string // "" on a monolingual shop
	language string // the language served
	name     string // its name, as the plugin lists it ("Deutsch")
	// products and categories: the plugin translates the product post type
	// and the product_cat taxonomy. Only then are they filed by language and
	// is only the served language's part shown; otherwise they are shown
	// whole, as WordPress shows them.
	products, categories bool
	// langURL puts the served language into a permalink of a translated
	// item, as the plugin's URL mode does; nil: URLs carry no language.
	langURL func(string) string
	// Polylang: the served language's `language` term (its products) and
	// `term_language` term (its categories).
	pllLanguageTT, pllTermLanguageTT int64
}

// label names the language served in messages: "Deutsch (de)"; "English"
// on a shop that is not translated.
func (ml *multilingual) label() string {
	switch {
	case ml.name != "" && ml.language != "":
		return ml.name + " (" + ml.language + ")"
	case ml.language != "":
		return ml.language
	}
	return "English"
}

// LanguageError is a configured language the site does not have: serving it
// would be an empty catalog.
type LanguageError struct {
	Plugin    string
	Language  string
	Languages []string // the site's, by code
}

func (e *LanguageError) Error() string {
	return fmt.Sprintf("language %q (--language, CATALOG_LANGUAGE) is not one of the site's %s languages: %s",
		e.Language, e.Plugin, strings.Join(e.Languages, ", "))
}

// pllWooCommerce is Polylang for WooCommerce, which makes products and their
// categories translated whatever Polylang's own settings say (it adds them
// through the pll_get_post_types and pll_get_taxonomies filters).
var pllWooCommerce = []string{"polylang-wc/polylang-wc.php"}

// languages finds the translation plugin WordPress loads, from its settings
// option, and the language to serve: the configured one, else the plugin's
// default. A plugin's leftovers (settings without the plugin active, or
// without its tables) are reported in ignored and the shop is served as
// monolingual, as WordPress serves it. A served language the site does not
// have is a *LanguageError.
func (b *builder) languages(rows *ShopRows, sh *shop, active *activePlugins) (ml multilingual, ignored []string, err error) {
	if rows.NetworkNote != "" {
		defer func() { ignored = append(ignored, rows.NetworkNote) }()
	}
	for _, p := range translationPlugins {
		raw, ok := rows.Options[p.option]
		if !ok {
			continue
		}
		if !active.has(p.files) {
			ignored = append(ignored, fmt.Sprintf("%s settings (option %s) but %s is not active (%s not in active_plugins)",
				p.label, p.option, p.label, strings.Join(p.files, " or ")))
			continue
		}
		missing := ""
		for _, table := range p.tables {
			if why, ok := rows.Unreadable[table]; ok {
				// The plugin is on: its table decides what is shown, and
				// only the operator can grant it.
				return ml, ignored, fmt.Errorf("%w: %s is active but its table cannot be read: %s", ErrUnavailable, p.label, why)
			}
			if !rows.Tables[table] {
				missing = table
				break
			}
		}
		if missing != "" {
			ignored = append(ignored, fmt.Sprintf("%s is active but its table %s is missing", p.label, missing))
			continue
		}
		switch p.name {
		case pluginPolylang:
			ml, err = b.polylang(rows, sh, raw, active)
		case pluginWPML:
			ml, err = b.wpml(rows, sh, raw)
		default:
			ml = b.translatePress(raw)
		}
		return ml, ignored, err
	}
	return ml, ignored, nil
}

// unreadable is what a plugin whose settings cannot be decoded gives:
// every language, as before the plugin was set up (a configured language
// cannot be told apart from the others without them).
func (b *builder) unreadable(plugin string, err error) multilingual {
	b.warn("translation plugin "+plugin+": settings unreadable; serving every language", err)
	return multilingual{}
}

// polylang reads Polylang's settings and languages (the `language` terms;
// their `term_language` twins file the terms).
func (b *builder) polylang(rows *ShopRows, sh *shop, raw string, active *activePlugins) (multilingual, error) {
	settings, err := wpopt.ParsePolylang(raw)
	if err == nil && settings.DefaultLang == "" {
		err = fmt.Errorf("%s: no default_lang", wpopt.OptionPolylang)
	}
	if err != nil {
		return b.unreadable(pluginPolylang, err), nil
	}
	ml := multilingual{plugin: pluginPolylang, language: cmp.Or(b.cfg.Language, settings.DefaultLang)}
	var codes []string
	for _, r := range rows.Terms {
		switch {
		case r.Taxonomy != taxLanguage && r.Taxonomy != taxTermLanguage:
		case r.Taxonomy == taxLanguage:
			codes = append(codes, r.Slug)
			if r.Slug == ml.language {
				ml.name, ml.pllLanguageTT = PlainName(r.Name), r.TTID
			}
		case r.Slug == "pll_"+ml.language:
			ml.pllTermLanguageTT = r.TTID
		}
	}
	if ml.pllLanguageTT == 0 {
		slices.Sort(codes)
		return ml, &LanguageError{Plugin: "Polylang", Language: ml.language, Languages: codes}
	}
	// PLL_Translated_Post / PLL_Translated_Term get_translated_object_types():
	// the core types plus the settings' post_types and taxonomies, plus what
	// the pll_get_post_types / pll_get_taxonomies filters add.
	wc := active.has(pllWooCommerce)
	ml.products = wc || slices.Contains(settings.PostTypes, "product")
	ml.categories = wc || slices.Contains(settings.Taxonomies, "product_cat")
	ml.langURL = polylangLink(settings, sh.home, sh.plainPermalinks, ml.language)
	return ml, nil
}

// wpml reads WPML's settings and active languages.
func (b *builder) wpml(rows *ShopRows, sh *shop, raw string) (multilingual, error) {
	settings, err := wpopt.ParseWPML(raw)
	if err == nil && settings.DefaultLanguage == "" {
		err = fmt.Errorf("%s: no default_language", wpopt.OptionWPML)
	}
	if err != nil {
		return b.unreadable(pluginWPML, err), nil
	}
	ml := multilingual{plugin: pluginWPML, language: cmp.Or(b.cfg.Language, settings.DefaultLanguage)}
	var codes []string
	for _, l := range rows.WPMLLanguages {
		codes = append(codes, l.Code)
		if l.Code == ml.language {
			ml.name = l.Name
		}
	}
	if !slices.Contains(codes, ml.language) {
		return ml, &LanguageError{Plugin: "WPML", Language: ml.language, Languages: codes}
	}
	// WPML's is_translated_post_type / is_translated_taxonomy: a sync
	// option of 1 (translatable) or 2 (translatable, default language as
	// fallback).
	ml.products = settings.PostTypes["product"] != 0
	ml.categories = settings.Taxonomies["product_cat"] != 0
	ml.langURL = wpmlLink(settings, sh.home, ml.language)
	return ml, nil
}

// translatePress keeps one post per product and translates on output:
// nothing is filtered and URLs stay the original language's.
func (b *builder) translatePress(raw string) multilingual {
	def, err := wpopt.DefaultLanguage(wpopt.OptionTranslatePress, raw)
	if err != nil && b.cfg.Language == "" {
		return b.unreadable(pluginTranslatePress, err)
	}
	return multilingual{plugin: pluginTranslatePress, language: cmp.Or(b.cfg.Language, def)}
}

// polylangLink mirrors PLL_Filters_Links::post_type_link and term_link:
// with a language in URLs (force_lang ≠ 0), the item's language is put in
// by the links model's add_language_to_link(): PLL_Links_Default (plain
// permalinks: a lang query argument), PLL_Links_Directory (/de/, or
// /language/de/ without rewrite), PLL_Links_Subdomain (de.host),
// PLL_Links_Domain (the language's host from domains). hide_default leaves
// the default language's URLs alone (except with domains, which have none).
func polylangLink(settings wpopt.PolylangSettings, home string, plain bool, lang string) func(string) string {
	hidden := settings.HideDefault && lang == settings.DefaultLang
	switch {
	case settings.ForceLang == 0:
		return nil // the language is set from the content
	case plain:
		if hidden {
			return nil
		}
		return func(u string) string { return addQueryArg(u, "lang", lang) }
	case settings.ForceLang == 1:
		if hidden {
			return nil
		}
		dir := lang + "/"
		if !settings.Rewrite {
			dir = "language/" + dir
		}
		return inDirectory(home, dir)
	case settings.ForceLang == 2:
		if hidden {
			return nil
		}
		www := "://"
		if strings.Contains(home, "://www.") {
			www = "://www."
		}
		return func(u string) string { return strings.Replace(u, www, "://"+lang+".", 1) }
	case settings.ForceLang == 3:
		d, err := url.Parse(settings.Domains[lang])
		h, herr := url.Parse(home)
		if err != nil || herr != nil || d.Host == "" || h.Host == "" {
			return nil
		}
		return func(u string) string { return strings.Replace(u, "://"+h.Host, "://"+d.Host, 1) }
	}
	return nil
}

// wpmlLink mirrors WPML's URL converter strategies for a post's or term's
// permalink in its language: WPML_URL_Converter_Subdir_Strategy (a
// directory, the default language's only with
// urls[directory_for_default_language]), _Domain_Strategy (the language's
// host from language_domains; the default language keeps the home's) and
// _Parameter_Strategy (?lang=, never for the default language).
func wpmlLink(settings wpopt.WPMLSettings, home string, lang string) func(string) string {
	isDefault := lang == settings.DefaultLanguage
	switch settings.Negotiation {
	case 1:
		if isDefault && !settings.DirectoryForDefault {
			return nil
		}
		return inDirectory(home, lang+"/")
	case 2:
		host := settings.Domains[lang]
		if isDefault || host == "" {
			return nil
		}
		host = strings.TrimPrefix(strings.TrimPrefix(host, "https://"), "http://")
		host, _, _ = strings.Cut(host, "/")
		h, err := url.Parse(home)
		if err != nil || h.Host == "" {
			return nil
		}
		return func(u string) string { return strings.Replace(u, "://"+h.Host, "://"+host, 1) }
	case 3:
		if isDefault {
			return nil
		}
		return func(u string) string { return addQueryArg(u, "lang", lang) }
	}
	return nil
}

// inDirectory puts dir right after the home URL.
func inDirectory(home, dir string) func(string) string {
	root := home + "/"
	return func(u string) string {
		if rest, ok := strings.CutPrefix(u, root); ok {
			return root + dir + rest
		}
		return u
	}
}

// addQueryArg appends a query argument as add_query_arg() does to a URL
// without that argument.
func addQueryArg(u, key, value string) string {
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + url.QueryEscape(key) + "=" + url.QueryEscape(value)
}
