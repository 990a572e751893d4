package binlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"

	"catalogd/wpdb"
)

// Status tells whether the server and the user of dsn can feed
// catalogd the binary log: the log on, in ROW format with FULL (or NOBLOB)
// images (with MINIMAL an update's image lacks the post_id it needs), and the
// grants REPLICATION SLAVE and REPLICATION CLIENT (BINLOG MONITOR on
// MariaDB 10.5+). ok is false with one sentence saying what is missing,
// for the start-up log line that names the change mode; when ok, why says
// what the feed will follow. It reads variables and the user's own grants,
// which need no privilege, through db; dsn is the one the feed will
// connect with (New's), whose user must be db's.
func Status(ctx context.Context, db *wpdb.DB, dsn string) (ok bool, why string) {
	ok, why, _ = Check(ctx, db, dsn)
	return ok, why
}

// Check is Status, and, when the settings keep the log from
// showing every change, why, as the feed's *BlindError would say it (nil
// otherwise): the follower counts a log that is blind at start as one that
// goes blind while followed, from the one read of the settings.
func Check(ctx context.Context, db *wpdb.DB, dsn string) (ok bool, why string, blind *BlindError) {
	cfg, err := wpdb.ParseDSN(dsn)
	if err != nil {
		return false, "the DSN: " + err.Error(), nil
	}
	ctx, cancel := context.WithTimeout(ctx, db.QueryTimeout())
	defer cancel()
	conn, err := db.Pool().Conn(ctx)
	if err != nil {
		return false, "the database does not answer: " + db.Redact(err).Error(), nil
	}
	defer conn.Close()
	st, err := readSettings(ctx, db, conn)
	if err != nil {
		return false, "the binary log settings cannot be read: " + err.Error(), nil
	}
	if b := st.blind(); b != nil {
		return false, b.Detail, b
	}
	vers := st.version
	mariadb := strings.Contains(strings.ToLower(vers), "mariadb")
	var current string
	db.CountStatement()
	if err := conn.QueryRowContext(ctx, `SELECT CURRENT_USER()`).Scan(&current); err != nil {
		return false, "the database user cannot be read: " + db.Redact(err).Error(), nil
	}
	if name, _, _ := strings.Cut(current, "@"); name != cfg.User {
		return false, fmt.Sprintf("the database is read as user %q, not the DSN's %q", name, cfg.User), nil
	}
	var grants []string
	db.CountStatement()
	rows, err := conn.QueryContext(ctx, `SHOW GRANTS FOR CURRENT_USER()`)
	if err != nil {
		return false, "the user's grants cannot be read: " + db.Redact(err).Error(), nil
	}
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			rows.Close()
			return false, "the user's grants cannot be read: " + db.Redact(err).Error(), nil
		}
		grants = append(grants, g)
	}
	rows.Close()
	if missing := missingReplicationGrants(grants, mariadb); len(missing) > 0 {
		return false, fmt.Sprintf("the database user lacks %s ON *.* (see deploy/mysql)", strings.Join(missing, " and ")), nil
	}
	return true, fmt.Sprintf("the server's binary log (binlog_format=ROW, binlog_row_image=%s, %s)", strings.ToUpper(st.image), vers), nil
}

// binlogSettings are the server's binary log settings that decide whether
// the feed sees every change.
type binlogSettings struct {
	logBin        bool
	format, image string
	version       string
	// Whether the log holds the shop's changes (replica.go): the
	// schema read, the log's schema filters, log_slave_updates, and the
	// primary a replica applies the changes of ("" when none).
	schema, doDB, ignoreDB string
	replicaUpdates         bool
	replicaOf              string
}

// queryer is a *sql.DB or a *sql.Conn.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// readSettings reads the global binary log settings, and whether the
// log holds the shop's changes: variables need no privilege (a session
// that changed its own shows in its events); the filters and a replica's
// source need what the feed's grants give, and are taken as absent where
// the user may not read them.
func readSettings(ctx context.Context, db *wpdb.DB, q queryer) (binlogSettings, error) {
	var st binlogSettings
	db.CountStatement()
	if err := q.QueryRowContext(ctx, `SELECT @@GLOBAL.log_bin, @@GLOBAL.binlog_format, @@GLOBAL.binlog_row_image, VERSION()`).
		Scan(&st.logBin, &st.format, &st.image, &st.version); err != nil {
		return st, db.Redact(fmt.Errorf("wpdb: binary log settings: %w", err))
	}
	if err := logHolds(ctx, db, q, &st); err != nil {
		return st, db.Redact(err)
	}
	return st, nil
}

// blind says why the binary log, with these settings, cannot show every
// change; nil when it can.
func (st binlogSettings) blind() *BlindError {
	switch {
	case !st.logBin:
		return &BlindError{Reason: BlindNoLog,
			Detail: "the server writes no binary log (log_bin is OFF; start it with log_bin and binlog_format=ROW)"}
	case !strings.EqualFold(st.format, "ROW"):
		return &BlindError{Reason: BlindFormat,
			Detail: fmt.Sprintf("the binary log's binlog_format is %s, not ROW", st.format)}
	case !strings.EqualFold(st.image, "FULL") && !strings.EqualFold(st.image, "NOBLOB"):
		// NOBLOB leaves out only the text columns the feed does not read.
		return &BlindError{Reason: BlindImage,
			Detail: fmt.Sprintf("the binary log's binlog_row_image is %s, not FULL (row images would lack the IDs)", st.image)}
	case st.replicaOf != "" && !st.replicaUpdates:
		return &BlindError{Reason: BlindReplica,
			Detail: fmt.Sprintf("the server is a replica (of %s) that does not log what it applies "+
				"(log_slave_updates is OFF): its binary log holds none of the shop's changes; "+
				"turn log_slave_updates on, or let catalogd follow the primary's log", st.replicaOf)}
	case filteredOut(st.schema, st.doDB, st.ignoreDB):
		return &BlindError{Reason: BlindFilter,
			Detail: fmt.Sprintf("the binary log leaves the shop's schema %s out (binlog_do_db %q, binlog_ignore_db %q)",
				st.schema, st.doDB, st.ignoreDB)}
	}
	return nil
}

// BlindError is why the binary log cannot show every change the catalog
// reads: the server stopped writing it, or writes some changes as
// statements or as partial row images. Binlog.Run returns it, so that the
// follower polls instead until the log can show everything again.
type BlindError struct {
	// Reason is one of the Blind* constants, for the metric.
	Reason string
	// Detail says what was seen, in a sentence.
	Detail string
}

func (e *BlindError) Error() string {
	return "wpdb: the binary log cannot show every change: " + e.Detail
}

// Reasons the binary log is blind.
const (
	BlindNoLog     = "log_bin"          // the server writes no binary log
	BlindFormat    = "binlog_format"    // binlog_format is not ROW
	BlindImage     = "binlog_row_image" // binlog_row_image is not FULL
	BlindStatement = "statement"        // a change logged as a statement that may touch a watched table
	BlindPartial   = "partial_image"    // a row event without the columns the feed reads
	BlindReplica   = "replica"          // a replica that does not log what it applies
	BlindFilter    = "binlog_filter"    // binlog_do_db or binlog_ignore_db leaves the shop out
)

// readBlind reads the server's binary log settings now: a *BlindError
// when they keep the feed from seeing every change, nil when they do not,
// or the error that kept them from being read (the server is away).
func readBlind(ctx context.Context, db *wpdb.DB) error {
	ctx, cancel := context.WithTimeout(ctx, db.QueryTimeout())
	defer cancel()
	st, err := readSettings(ctx, db, db.Pool())
	if err != nil {
		return err
	}
	if b := st.blind(); b != nil {
		return b
	}
	return nil
}

// globalGrantRE is a SHOW GRANTS line on *.*: the privileges it gives.
var globalGrantRE = regexp.MustCompile(`(?i)^GRANT (.+?) ON \*\.\* TO `)

// missingReplicationGrants names the replication privileges the grants
// lack.
func missingReplicationGrants(grants []string, mariadb bool) []string {
	var have []string
	for _, g := range grants {
		if m := globalGrantRE.FindStringSubmatch(g); m != nil {
			for _, p := range strings.Split(m[1], ",") {
				have = append(have, strings.ToUpper(strings.TrimSpace(p)))
			}
		}
	}
	has := func(names ...string) bool {
		for _, h := range have {
			for _, n := range names {
				if h == n || h == "ALL PRIVILEGES" || h == "ALL" {
					return true
				}
			}
		}
		return false
	}
	var missing []string
	if !has("REPLICATION SLAVE", "REPLICATION REPLICA") {
		missing = append(missing, "REPLICATION SLAVE")
	}
	// MariaDB 10.5 renamed REPLICATION CLIENT to BINLOG MONITOR, and shows
	// the new name for a grant of the old one.
	if !has("REPLICATION CLIENT", "BINLOG MONITOR") {
		if mariadb {
			missing = append(missing, "REPLICATION CLIENT (BINLOG MONITOR)")
		} else {
			missing = append(missing, "REPLICATION CLIENT")
		}
	}
	return missing
}

// binlogPosition is where the binary log stands: a GTID set where the
// server has one, else a file and offset.
type binlogPosition struct {
	gtid gomysql.GTIDSet // nil: file/pos
	file gomysql.Position
}

func (p binlogPosition) String() string {
	if p.gtid != nil {
		return "GTID " + p.gtid.String()
	}
	return fmt.Sprintf("%s:%d", p.file.Name, p.file.Pos)
}

// clone copies the position, so that the stream's updates do not move a
// copy handed out.
func (p binlogPosition) clone() binlogPosition {
	if p.gtid != nil {
		p.gtid = p.gtid.Clone()
	}
	return p
}

// serverFlavor is "mariadb" or "mysql".
func serverFlavor(ctx context.Context, db *wpdb.DB) (string, error) {
	var vers string
	db.CountStatement()
	if err := db.Pool().QueryRowContext(ctx, `SELECT VERSION()`).Scan(&vers); err != nil {
		return "", db.Redact(fmt.Errorf("wpdb: server version: %w", err))
	}
	if strings.Contains(strings.ToLower(vers), "mariadb") {
		return gomysql.MariaDBFlavor, nil
	}
	return gomysql.MySQLFlavor, nil
}

// readPosition reads where the server's binary log stands now: MariaDB's
// @@gtid_binlog_pos, MySQL's @@gtid_executed when gtid_mode is ON, else the
// file and offset of SHOW MASTER STATUS (SHOW BINARY LOG STATUS on MySQL
// 8.4, which dropped the former).
func readPosition(ctx context.Context, db *wpdb.DB, flavor string) (binlogPosition, error) {
	ctx, cancel := context.WithTimeout(ctx, db.QueryTimeout())
	defer cancel()
	var gtid sql.NullString
	db.CountStatement()
	if flavor == gomysql.MariaDBFlavor {
		if err := db.Pool().QueryRowContext(ctx, `SELECT @@gtid_binlog_pos`).Scan(&gtid); err != nil {
			return binlogPosition{}, db.Redact(fmt.Errorf("wpdb: binary log position: %w", err))
		}
	} else {
		var mode sql.NullString
		if err := db.Pool().QueryRowContext(ctx, `SELECT @@gtid_mode, @@gtid_executed`).Scan(&mode, &gtid); err != nil {
			return binlogPosition{}, db.Redact(fmt.Errorf("wpdb: binary log position: %w", err))
		}
		if !strings.EqualFold(mode.String, "ON") {
			gtid.String = ""
		}
	}
	// An empty set (a server that has logged nothing yet) cannot say where
	// to start: MariaDB would send the whole log. The file and offset can.
	if s := strings.TrimSpace(gtid.String); s != "" {
		// A set go-mysql cannot parse (MySQL 8.4's tagged GTIDs,
		// uuid:tag:1-5) is followed by file and offset instead, which
		// every server has.
		if set, err := gomysql.ParseGTIDSet(flavor, s); err == nil {
			return binlogPosition{gtid: set}, nil
		}
	}
	p, err := masterStatus(ctx, db)
	if err != nil {
		return binlogPosition{}, err
	}
	return binlogPosition{file: p}, nil
}

// masterStatus reads the current binary log file and offset.
func masterStatus(ctx context.Context, db *wpdb.DB) (gomysql.Position, error) {
	var p gomysql.Position
	row, err := binaryLogStatus(ctx, db, db.Pool())
	if err != nil {
		return p, db.Redact(fmt.Errorf("wpdb: the binary log status: %w", err))
	}
	if row == nil {
		return p, errors.New("wpdb: the server writes no binary log (SHOW MASTER STATUS is empty)")
	}
	pos, err := strconv.ParseUint(row["Position"], 10, 32)
	if err != nil {
		return p, fmt.Errorf("wpdb: the binary log status: position %q: %w", row["Position"], err)
	}
	return gomysql.Position{Name: row["File"], Pos: uint32(pos)}, nil
}

// errNoLogStatus: the server knows neither statement of the binary log's
// status.
var errNoLogStatus = errors.New("the server shows no binary log status")

// binaryLogStatus reads SHOW MASTER STATUS, or SHOW BINARY LOG STATUS on
// MySQL 8.4, which dropped the former: the log's file, offset and schema
// filters, by column name; nil when the server writes no log.
func binaryLogStatus(ctx context.Context, db *wpdb.DB, q queryer) (map[string]string, error) {
	for _, stmt := range []string{`SHOW MASTER STATUS`, `SHOW BINARY LOG STATUS`} {
		row, err := showRow(ctx, db, q, stmt)
		if wpdb.IsSyntaxError(err) {
			continue
		}
		return row, err
	}
	return nil, errNoLogStatus
}
