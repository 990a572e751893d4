package catalog

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"catalogd/wpdb"
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
	{pluginWPML, "WPML", wpdb.OptionWPML, []string{"sitepress-multilingual-cms/sitepress.php"}, []string{"icl_translations"}},
	{pluginPolylang, "Polylang", wpdb.OptionPolylang, []string{"polylang/polylang.php", "polylang-pro/polylang.php"}, nil},
	{pluginTranslatePress, "TranslatePress", wpdb.OptionTranslatePress, []string{"translatepress-multilingual/index.php"}, nil},
}

// activePlugins is the set of plugin files WordPress loads, read at most once
// per build: the site's active_plugins, and the network's only when a plugin
// is not in the site's.
type activePlugins struct {
	site    []string
	network []string
	read    bool // network read
}

func (a *activePlugins) has(ctx context.Context, tx *wpdb.Tx, files []string) (bool, error) {
	for _, f := range files {
		if slices.Contains(a.site, f) {
			return true, nil
		}
	}
	if !a.read {
		var err error
		if a.network, err = tx.NetworkPlugins(ctx); err != nil {
			return false, err
		}
		a.read = true
	}
	for _, f := range files {
		if slices.Contains(a.network, f) {
			return true, nil
		}
	}
	return false, nil
}

// languages finds the translation plugin WordPress loads, from its settings
// option, and the language to serve: the configured one, else the plugin's
// default. A plugin's leftovers (settings without the plugin active, or
// without its tables) are reported in ignored and the shop is served as
// monolingual, as WordPress serves it.
func (c *Catalog) languages(ctx context.Context, tx *wpdb.Tx, opts map[string]string) (plugin, lang string, ignored []string, err error) {
	var active *activePlugins
	for _, p := range translationPlugins {
		raw, ok := opts[p.option]
		if !ok {
			continue
		}
		if active == nil {
			site, perr := wpdb.ParsePluginList(opts["active_plugins"])
			if perr != nil {
				// get_option() gives false for a value it cannot
				// unserialize: WordPress then loads no plugin.
				slog.WarnContext(ctx, "active_plugins is damaged; no plugin counts as active", "err", perr)
			}
			active = &activePlugins{site: site}
		}
		on, err := active.has(ctx, tx, p.files)
		if err != nil {
			return "", "", nil, err
		}
		if !on {
			ignored = append(ignored, fmt.Sprintf("%s settings (option %s) but %s is not active (%s not in active_plugins)",
				p.label, p.option, p.label, strings.Join(p.files, " or ")))
			continue
		}
		missing := ""
		for _, table := range p.tables {
			ok, err := tx.HasTable(ctx, table)
			if err != nil {
				return "", "", nil, err
			}
			if !ok {
				missing = table
				break
			}
		}
		if missing != "" {
			ignored = append(ignored, fmt.Sprintf("%s is active but its table %s is missing", p.label, missing))
			continue
		}
		def, err := wpdb.DefaultLanguage(p.option, raw)
		if err != nil && c.cfg.Language == "" {
			slog.WarnContext(ctx, "translation plugin settings unreadable; serving every language", "plugin", p.name, "err", err)
			return "", "", ignored, nil
		}
		if c.cfg.Language != "" {
			def = c.cfg.Language
		}
		return p.name, def, ignored, nil
	}
	return "", "", ignored, nil
}
