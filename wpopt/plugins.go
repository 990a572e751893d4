package wpopt

import (
	"fmt"
	"slices"
)

// ParsePluginList decodes the active_plugins option: a serialized list of
// plugin main files ("polylang/polylang.php"). A missing option is an empty
// list.
func ParsePluginList(raw string) ([]string, error) {
	if raw == "" {
		return nil, nil
	}
	var m map[any]any
	if err := unserialize(raw, &m); err != nil {
		return nil, fmt.Errorf("active_plugins: %w", err)
	}
	files := phpStrings(m)
	if len(files) == 0 {
		return nil, nil // no plugin: as a missing option
	}
	slices.Sort(files)
	return files, nil
}

// ParseNetworkPlugins decodes a network's active_sitewide_plugins site
// meta: plugin main file → activation time.
func ParseNetworkPlugins(raw string) ([]string, error) {
	var m map[any]any
	if err := unserialize(raw, &m); err != nil {
		return nil, fmt.Errorf("active_sitewide_plugins: %w", err)
	}
	var files []string
	for f := range m {
		if s, ok := f.(string); ok {
			files = append(files, s)
		}
	}
	slices.Sort(files)
	return files, nil
}
