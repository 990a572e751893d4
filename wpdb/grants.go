package wpdb

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// writeGrantRE finds a privilege in SHOW GRANTS that lets the user change
// data or schema.
var writeGrantRE = regexp.MustCompile(`(?i)\b(ALL PRIVILEGES|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|INDEX|TRIGGER|REFERENCES|EXECUTE|CREATE ROUTINE|ALTER ROUTINE|SUPER)\b`)

// ErrNoGrantTables is WritePrivileges' answer on a server that keeps no
// grants at all: the embedded in-memory server of make demo answers SHOW
// GRANTS with "database not found: mysql" (1049). Whether the user may
// write cannot be known there, and nothing is wrong either.
var ErrNoGrantTables = errors.New("the server keeps no grant tables")

// WritePrivileges returns the grants of the connected user that allow more
// than reading; catalogd warns at start when there are any. It needs no
// privilege: every user may see its own grants.
func (db *DB) WritePrivileges(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, db.timeout)
	defer cancel()
	var grants []string
	db.queries.Add(1)
	if err := db.db.SelectContext(ctx, &grants, `SHOW GRANTS FOR CURRENT_USER()`); err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) && me.Number == 1049 {
			return nil, fmt.Errorf("wpdb: show grants: %w (%w)", ErrNoGrantTables, err)
		}
		return nil, db.Redact(fmt.Errorf("wpdb: show grants: %w", err))
	}
	var writes []string
	for _, g := range grants {
		on := g
		if i := strings.Index(strings.ToUpper(g), " ON "); i > 0 {
			on = g[:i] // the privileges, not the object names
		}
		if writeGrantRE.MatchString(strings.TrimPrefix(strings.ToUpper(on), "GRANT ")) {
			// The line names the user and, on MariaDB, its password hash.
			writes = append(writes, db.passwords.redact(g))
		}
	}
	return writes, nil
}
