package poll

import (
	"context"
	"fmt"

	"catalogd/wpdb"
)

// optionSums reads a digest of each named option by the options table's
// unique option_name index: its MD5, not its value (active_plugins or an
// SEO plugin's settings run to kilobytes), so that a round sends little.
// A missing option is absent from the map.
//
// The poller never watches a transient: under a persistent object cache
// (Redis, Memcached) WordPress keeps them in the cache, not in this table.
func optionSums(ctx context.Context, tx *wpdb.Tx, names []string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	if len(names) == 0 {
		return out, nil
	}
	var rows []struct {
		Name string `db:"option_name"`
		Sum  string `db:"sum"`
	}
	if err := tx.Select(ctx, &rows,
		`SELECT option_name, MD5(option_value) AS sum FROM {options} WHERE option_name IN (?)`, names); err != nil {
		return nil, fmt.Errorf("wpdb: read option digests: %w", err)
	}
	for _, r := range rows {
		out[r.Name] = r.Sum
	}
	return out, nil
}
