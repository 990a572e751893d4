package binlog

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpdbtest"
)

// A replica of the shop's database whose binary log does not hold the
// changes it applies (log_slave_updates off, MariaDB's default, or the
// shop's schema filtered out of its log) cannot feed catalogd, and
// Status says why, for root and for a user with exactly the grants
// deploy/mysql gives (who may not run SHOW SLAVE STATUS on MariaDB
// 10.5.9+), whether it replicates over the default connection or a named
// one (which MariaDB's plain SHOW SLAVE STATUS does not show); a replica
// that logs what it applies can, and its log shows a price saved on the
// primary.
func TestBinlogStatusOnAReplica(t *testing.T) {
	primary := testdb.NewServer(t)
	p := wpdbtest.NewProducts()
	dsn, raw := testdb.LoadOn(t, primary.DSN(), p.Shop)
	schema := dsn[strings.LastIndex(dsn, "/")+1:]
	schema, _, _ = strings.Cut(schema, "?")
	var grants []string
	for _, tb := range []string{"posts", "postmeta", "terms", "term_taxonomy", "term_relationships", "termmeta",
		"options", "woocommerce_attribute_taxonomies"} {
		grants = append(grants, "SELECT ON `"+schema+"`.`wp_"+tb+"`")
	}
	// Made on the primary, as grants are: the replicas apply them.
	u := testdb.NewUserOn(t, primary.DSN(), dsn, append(slices.Clone(grants), "REPLICATION SLAVE, REPLICATION CLIENT ON *.*")...)

	tests := []struct {
		name       string
		connection string // the replication connection's name, "" for the default one
		extra      []string
		ok         bool
		want       string
	}{
		{"log_slave_updates off", "", nil, false, "log_slave_updates is OFF"},
		{"log_slave_updates off, over a named connection", "shop", nil, false, "log_slave_updates is OFF"},
		{"log_slave_updates on", "", []string{"--log-slave-updates"}, true, "binlog_format=ROW"},
		{"the shop filtered out of the log", "", []string{"--log-slave-updates", "--binlog-do-db=unrelated"}, false,
			"leaves the shop's schema " + schema + " out"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var replica *testdb.Server
			if tt.connection == "" {
				replica = testdb.NewReplica(t, primary, 2+i, tt.extra...)
			} else {
				replica = testdb.NewNamedReplica(t, primary, 2+i, tt.connection, tt.extra...)
			}
			replica.CaughtUp(t, primary)
			for _, as := range []struct{ who, dsn string }{
				{"root", replica.On(t, dsn)},
				{"the deploy/mysql user", replica.On(t, u.DSN)},
			} {
				db := openTest(t, as.dsn)
				ok, why := Status(context.Background(), db, as.dsn)
				t.Logf("%s: %v, %s", as.who, ok, why)
				if ok != tt.ok || !strings.Contains(why, tt.want) {
					t.Errorf("as %s, Status = %v, %q; want %v, %q", as.who, ok, why, tt.ok, tt.want)
				}
				if !tt.ok && as.who == "root" && !strings.Contains(why, "replica (of 127.0.0.1:") && tt.extra == nil {
					t.Errorf("as root, the sentence does not name the primary: %q", why)
				}
			}
			if !tt.ok {
				return
			}
			// The replica's log shows a price saved on the primary.
			h := &feedHarness{raw: raw, db: openTest(t, replica.On(t, u.DSN))}
			h.run(t, replica.On(t, u.DSN), Options{}, nil)
			h.exec(t, true, fmt.Sprintf("UPDATE wp_postmeta SET meta_value = '77' WHERE post_id = %d AND meta_key = '_regular_price'", p.Radar))
			expect(t, h.next(t), catalog.Change{Posts: ids(p.Radar), Kind: catalog.KindProduct})
		})
	}
}

// unlogged finds a transaction a MariaDB replica applied that its own
// binary log has not reached, domain by domain.
func TestUnlogged(t *testing.T) {
	tests := []struct{ applied, logged, want string }{
		{"", "", ""},
		{"0-1-50", "", "0-1-50"},
		{"0-1-50", "0-1-50", ""},
		{"0-1-50", "0-2-7", "0-1-50"}, // its own writes only
		{"0-1-50", "0-2-51", ""},      // promoted: it logs past what it applied
		{"0-1-50,1-3-9", "0-1-50", "1-3-9"},
		{"0-1-50, 1-3-9", "1-3-9,0-1-60", ""},
		{"garbage", "", ""},
	}
	for _, tt := range tests {
		if got := unlogged(tt.applied, tt.logged); got != tt.want {
			t.Errorf("unlogged(%q, %q) = %q, want %q", tt.applied, tt.logged, got, tt.want)
		}
	}
}

// filteredOut reads binlog_do_db and binlog_ignore_db as the server
// does: a schema outside a do list, or in an ignore list, is not logged.
func TestFilteredOut(t *testing.T) {
	tests := []struct {
		schema, do, ignore string
		want               bool
	}{
		{"shop", "", "", false},
		{"shop", "shop", "", false},
		{"shop", "other,shop", "", false},
		{"shop", "other", "", true},
		{"shop", "", "shop", true},
		{"shop", "", "other", false},
		{"", "other", "", false}, // no schema read: nothing to say
	}
	for _, tt := range tests {
		if got := filteredOut(tt.schema, tt.do, tt.ignore); got != tt.want {
			t.Errorf("filteredOut(%q, %q, %q) = %v, want %v", tt.schema, tt.do, tt.ignore, got, tt.want)
		}
	}
}
