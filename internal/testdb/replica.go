package testdb

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// A primary → replica pair of private servers, for the tests of catalogd
// reading a replica (a fleet sparing the primary): the replica applies
// the primary's binary log over real replication, as a host's would.

// NewReplica starts a private MariaDB that replicates primary from its
// first transaction (GTIDs, so that databases and users made on the
// primary later reach it too), with a server_id of its own and the extra
// options (--log-slave-updates, --binlog-do-db=…).
func NewReplica(t testing.TB, primary *Server, serverID int, extra ...string) *Server {
	t.Helper()
	return replicate(t, primary, serverID, "", extra)
}

// NewNamedReplica is NewReplica over a named replication connection
// (CHANGE MASTER 'name' TO …), as a MariaDB replicating from several
// primaries has: plain SHOW SLAVE STATUS does not show it.
func NewNamedReplica(t testing.TB, primary *Server, serverID int, name string, extra ...string) *Server {
	t.Helper()
	return replicate(t, primary, serverID, name, extra)
}

// replicate starts the replica, over the connection named name (""
// for the default one).
func replicate(t testing.TB, primary *Server, serverID int, name string, extra []string) *Server {
	t.Helper()
	r := NewServer(t, append([]string{fmt.Sprintf("--server-id=%d", serverID)}, extra...)...)
	db := Open(t, r.DSN())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn := ""
	if name != "" {
		conn = " '" + name + "'"
	}
	for _, stmt := range []string{
		fmt.Sprintf("CHANGE MASTER%s TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='root', "+
			"MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1", conn, primary.s.port),
		"START SLAVE" + conn,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("replicate: %s: %v", stmt, err)
		}
	}
	t.Cleanup(func() { db.Exec("STOP ALL SLAVES") })
	return r
}

// CaughtUp waits until the replica has applied everything the primary
// has logged so far.
func (s *Server) CaughtUp(t testing.TB, primary *Server) {
	t.Helper()
	var pos string
	if err := Open(t, primary.DSN()).QueryRow("SELECT @@gtid_binlog_pos").Scan(&pos); err != nil {
		t.Fatal(err)
	}
	var got int
	if err := Open(t, s.DSN()).QueryRow("SELECT MASTER_GTID_WAIT(?, 60)", pos).Scan(&got); err != nil || got != 0 {
		t.Fatalf("the replica did not reach the primary's %s: %d, %v", pos, got, err)
	}
}

// On returns dsn (a database on another server, its primary) as a DSN
// of the same database and user on this server.
func (s *Server) On(t testing.TB, dsn string) string {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr = strings.TrimSuffix(strings.TrimPrefix(s.s.dsn, "root@tcp("), ")/")
	return cfg.FormatDSN()
}
