package binlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"

	"catalogd/wpdb"
)

// Whether the server's binary log holds the shop's changes at all: a
// server can write a binary log in ROW format and still leave the shop out.
//   - A replica (a fleet reading one to spare the primary) writes the
//     changes it applies to its own log only with log_slave_updates
//     (log_replica_updates on MySQL), off by default: its log holds its
//     own writes, none of the shop's. Maxwell refuses to start there too.
//   - binlog_do_db and binlog_ignore_db filter the log by schema: a shop
//     left out of it never shows there.
//
// Either way the feed would follow a log that never names the shop, and
// report nothing: catalogd polls instead and says why.

// logHolds reads what decides whether the log holds the shop's changes
// into st: the schema read, the filters, log_slave_updates, and whether
// the server applies another's changes (replicaOf).
func logHolds(ctx context.Context, db *wpdb.DB, q queryer, st *binlogSettings) error {
	if !st.logBin {
		return nil
	}
	var schema sql.NullString
	db.CountStatement()
	if err := q.QueryRowContext(ctx, `SELECT DATABASE()`).Scan(&schema); err != nil {
		return fmt.Errorf("wpdb: the schema read: %w", err)
	}
	st.schema = schema.String
	var err error
	if st.doDB, st.ignoreDB, err = binlogFilters(ctx, db, q); err != nil {
		return err
	}
	// MySQL 8.4 knows the variable by its new name alone.
	for _, stmt := range []string{`SELECT @@log_slave_updates`, `SELECT @@log_replica_updates`} {
		db.CountStatement()
		if err = q.QueryRowContext(ctx, stmt).Scan(&st.replicaUpdates); !wpdb.IsUnknownVariable(err) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("wpdb: log_slave_updates: %w", err)
	}
	if st.replicaUpdates {
		return nil // a replica's log holds what it applies: nothing more to know
	}
	st.replicaOf, err = replicaOf(ctx, db, q, strings.Contains(strings.ToLower(st.version), "mariadb"))
	return err
}

// binlogFilters reads the binary log status's Binlog_Do_DB and
// Binlog_Ignore_DB (REPLICATION CLIENT, which the feed needs anyway; ""
// when the user lacks it or the server shows no status: the filters are
// then not known).
func binlogFilters(ctx context.Context, db *wpdb.DB, q queryer) (doDB, ignoreDB string, err error) {
	row, err := binaryLogStatus(ctx, db, q)
	switch {
	case needsPrivilege(err), errors.Is(err, errNoLogStatus):
		return "", "", nil
	case err != nil:
		return "", "", err
	}
	return row["Binlog_Do_DB"], row["Binlog_Ignore_DB"], nil
}

// replicaOf says whose changes the server applies as a replica ("" when
// none, or when it cannot be known): a row of the replication status for
// each source makes it one. MariaDB's is SHOW ALL SLAVES STATUS (SHOW
// SLAVE STATUS shows the default connection alone, never a named one) and
// wants SLAVE MONITOR from 10.5.9 on, which catalogd's grants need not
// hold; MySQL's (REPLICATION CLIENT) shows each channel as a row.
//
// On MariaDB, when the status is refused or shows no connection, the
// GTIDs tell, from variables anyone may read: a transaction the server
// applied as a replica (@@gtid_slave_pos) that its own binary log
// (@@gtid_binlog_pos) has not reached, in its domain, was not logged. A
// server promoted from replica logs its own writes past it.
func replicaOf(ctx context.Context, db *wpdb.DB, q queryer, mariadb bool) (string, error) {
	stmts := []string{`SHOW REPLICA STATUS`, `SHOW SLAVE STATUS`}
	if mariadb {
		stmts = []string{`SHOW ALL SLAVES STATUS`, `SHOW SLAVE STATUS`}
	}
	for _, stmt := range stmts {
		rows, err := showRows(ctx, db, q, stmt)
		if wpdb.IsSyntaxError(err) { // SHOW REPLICA STATUS before MySQL 8.0.22
			continue
		}
		if needsPrivilege(err) {
			break
		}
		if err != nil {
			return "", db.Redact(fmt.Errorf("wpdb: %s: %w", stmt, err))
		}
		if len(rows) > 0 {
			return sources(rows), nil
		}
		break // no source known to the status
	}
	if !mariadb {
		return "", nil
	}
	var slave, logged sql.NullString
	db.CountStatement()
	if err := q.QueryRowContext(ctx, `SELECT @@gtid_slave_pos, @@gtid_binlog_pos`).Scan(&slave, &logged); err != nil {
		return "", db.Redact(fmt.Errorf("wpdb: the server's GTID positions: %w", err))
	}
	if gtid := unlogged(slave.String, logged.String); gtid != "" {
		return "the primary whose transaction " + gtid + " it applied", nil
	}
	return "", nil
}

// sources names the host:port of each row of a replication status
// (MySQL 8.0.22+ says Source_, older servers and MariaDB Master_).
func sources(rows []map[string]string) string {
	names := make([]string, len(rows))
	for i, row := range rows {
		names[i] = row["Source_Host"] + row["Master_Host"] + ":" + row["Source_Port"] + row["Master_Port"]
	}
	return strings.Join(names, ", ")
}

// unlogged returns a GTID of applied (domain-server-seq, comma-separated)
// whose domain logged has not reached, or "".
func unlogged(applied, logged string) string {
	reached := map[string]uint64{}
	for _, g := range strings.Split(logged, ",") {
		if d, seq, ok := gtidParts(g); ok {
			reached[d] = max(reached[d], seq)
		}
	}
	for _, g := range strings.Split(applied, ",") {
		if d, seq, ok := gtidParts(g); ok && reached[d] < seq {
			return strings.TrimSpace(g)
		}
	}
	return ""
}

// gtidParts reads a MariaDB GTID, domain-server-seq.
func gtidParts(g string) (domain string, seq uint64, ok bool) {
	parts := strings.Split(strings.TrimSpace(g), "-")
	if len(parts) != 3 {
		return "", 0, false
	}
	seq, err := strconv.ParseUint(parts[2], 10, 64)
	return parts[0], seq, err == nil
}

// showRow runs a SHOW statement and returns its first row by column name
// (nil when it has none).
func showRow(ctx context.Context, db *wpdb.DB, q queryer, stmt string) (map[string]string, error) {
	rows, err := showRows(ctx, db, q, stmt)
	if len(rows) == 0 {
		return nil, err
	}
	return rows[0], err
}

// showRows runs a SHOW statement and returns its rows by column name.
func showRows(ctx context.Context, db *wpdb.DB, q queryer, stmt string) ([]map[string]string, error) {
	db.CountStatement()
	rows, err := q.QueryContext(ctx, stmt)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var all []map[string]string
	for rows.Next() {
		m := map[string]any{}
		if err := sqlx.MapScan(rows, m); err != nil {
			return nil, err
		}
		row := make(map[string]string, len(m))
		for c, v := range m {
			switch v := v.(type) {
			case nil:
			case []byte:
				row[c] = string(v)
			default:
				row[c] = fmt.Sprint(v)
			}
		}
		all = append(all, row)
	}
	return all, rows.Err()
}

// filteredOut says whether binlog_do_db or binlog_ignore_db leaves schema
// out of the log.
func filteredOut(schema, doDB, ignoreDB string) bool {
	listed := func(list string) bool {
		for _, s := range strings.Split(list, ",") {
			if strings.TrimSpace(s) == schema {
				return true
			}
		}
		return false
	}
	return schema != "" && (doDB != "" && !listed(doDB) || listed(ignoreDB))
}

// needsPrivilege reports whether err is the server refusing a statement
// to this user for a privilege it lacks (1227: "Access denied; you need
// (at least one of) the … privilege").
func needsPrivilege(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1227
}
