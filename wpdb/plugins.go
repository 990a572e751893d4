package wpdb

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/go-sql-driver/mysql"

	"catalogd/wpopt"
)

// A plugin's settings outlive it: WordPress keeps a deactivated plugin's
// options and tables. These reads tell whether WordPress would load a
// plugin at all: listed in the site's active_plugins option, or, on a
// multisite network, in the network's active_sitewide_plugins.

// subsiteRE splits a multisite subsite's table prefix (wp_2_) into the
// network's base prefix (wp_) and the blog ID, as $wpdb->get_blog_prefix()
// builds it.
var subsiteRE = regexp.MustCompile(`^(.*?)([0-9]+)_$`)

// basePrefix returns the network's base prefix and the blog ID for a table
// prefix: the prefix itself and blog 1 unless it has a subsite's shape.
func basePrefix(prefix string) (string, int64) {
	if m := subsiteRE.FindStringSubmatch(prefix); m != nil {
		if id, err := strconv.ParseInt(m[2], 10, 64); err == nil && id > 1 {
			return m[1], id
		}
	}
	return prefix, 1
}

// NetworkPlugins returns the plugins activated for the whole network
// (the keys of active_sitewide_plugins in {base_prefix}sitemeta, for the
// network the site belongs to). A single site has no sitemeta table: none.
func (tx *Tx) NetworkPlugins(ctx context.Context) ([]string, error) {
	base, blog := basePrefix(tx.prefix)
	// On the main site, ask information_schema first: it shows a user the
	// tables it has any privilege on, so a sitemeta it does not show is
	// absent (a single site, the usual case) or not granted to a
	// SELECT-only user of the site's tables alone (deploy/mysql's), which
	// MySQL answers "denied" for a missing table too. Either way there is
	// nothing to read, and no statement is sent to fail. A subsite (blog >
	// 1) belongs to a network, whose sitemeta is there: it is read, and a
	// denial said.
	if blog == 1 {
		var seen int
		if err := tx.Get(ctx, &seen, `SELECT COUNT(*) FROM information_schema.TABLES
			WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`, base+"sitemeta"); err == nil && seen == 0 {
			return nil, nil
		}
	}
	// The base prefix is a part of a validated prefix: safe to splice.
	var raws []string
	err := tx.probe(ctx, &raws, `SELECT meta_value FROM `+"`"+base+"sitemeta`"+`
		WHERE meta_key = 'active_sitewide_plugins'
		  AND site_id = COALESCE((SELECT site_id FROM `+"`"+base+"blogs`"+` WHERE blog_id = ?), 1)`, blog)
	if missingTable(err) {
		return nil, nil
	}
	if denied(err) {
		return nil, fmt.Errorf("wpdb: read %ssitemeta: %w", base, ErrDenied)
	}
	if err != nil {
		return nil, fmt.Errorf("wpdb: read network plugins: %w", err)
	}
	var files []string
	for _, raw := range raws {
		f, err := wpopt.ParseNetworkPlugins(raw)
		if err != nil {
			return nil, err
		}
		files = append(files, f...)
	}
	slices.Sort(files)
	return files, nil
}

// HasTable reports whether the table (unprefixed name) exists under the
// prefix and can be read.
func (tx *Tx) HasTable(ctx context.Context, name string) (bool, error) {
	var n []int
	err := tx.probe(ctx, &n, `SELECT 1 FROM {`+name+`} LIMIT 0`)
	if missingTable(err) {
		return false, nil
	}
	if denied(err) {
		return false, fmt.Errorf("wpdb: table %s%s: %w (%w)", tx.prefix, name, ErrDenied, err)
	}
	if err != nil {
		return false, fmt.Errorf("wpdb: table %s%s: %w", tx.prefix, name, err)
	}
	return true, nil
}

// ErrDenied is a read the database user has no grant for.
var ErrDenied = errors.New("no SELECT grant")

// denied reports whether err is MySQL's "SELECT command denied" (1142).
func denied(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1142
}

// missingTable reports whether err is MySQL's "table doesn't exist" (1146).
func missingTable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1146
}
