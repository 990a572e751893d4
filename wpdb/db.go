// Package wpdb reads a WordPress + WooCommerce database: every SQL statement
// catalogd runs lives here, one small file per read, or in its two change
// feeds, wpdb/binlog and wpdb/poll, which run theirs through it. It never
// writes: each request runs in a read-only transaction, and production
// gives it a user that holds SELECT and nothing more.
package wpdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"
)

// Options tune the connection pool and the query deadline.
type Options struct {
	Prefix       string        // table prefix, "wp_" by default
	QueryTimeout time.Duration // deadline of one statement, and of a View
	// LoadTimeout is the deadline of a whole snapshot load (LoadShop) and
	// of each of its statements, 2 minutes by default: a large shop's post
	// meta read streams millions of rows for seconds, which QueryTimeout
	// must not cut at every try. It is also the deadline of LoadProducts'
	// read and of the poll source's scan as a whole. catalogd's
	// --db-load-timeout sets it, for a shop whose read nears it
	// (docs/performance.md#how-memory-and-start-up-grow-with-the-shop); an
	// error from a read it cut names that setting.
	LoadTimeout time.Duration
	MaxOpen     int // open connections at most
	MaxIdle     int // idle connections kept
	// LoadStreams is how many connections a whole load (LoadShop) reads
	// on at once, each a transaction opened on the same instant (see
	// load_streams.go); 0 picks the default, 1 reads it in one
	// transaction. It is capped to leave the change feed and a patch
	// read their connections (MaxOpen - 2).
	LoadStreams int
	// Observe, when set, is told the duration of every statement.
	Observe func(d time.Duration, err error)
	// DSNFile, when set, is the file the DSN was read from: new
	// connections take the user and password it holds then (dsnfile.go).
	DSNFile string
}

// DB is the shop's database, read-only.
type DB struct {
	db      *sqlx.DB
	prefix  string
	timeout time.Duration
	load    time.Duration
	streams int // a whole load's connections (Options.LoadStreams, capped)
	queries atomic.Int64
	observe func(time.Duration, error)
	stmts   sync.Map // statement with {table} placeholders → prefixed statement
	// passwords are what redact takes out of every error text.
	passwords *passwords
	// dsn is Open's DSN; dsnFile, when set, the file new connections take
	// their user and password from.
	dsn     string
	dsnFile *dsnFile
	// betweenOpenings, when set (tests), runs after the load's i-th
	// transaction is opened and before the next: where a commit would
	// fall between the streams' snapshots.
	betweenOpenings func(i int)
	// baseliner is the change feed whose baseline the whole loads take
	// (baseline.go).
	baseliner baseliner
	// noStatsExpiry is set once the server refused
	// information_schema_stats_expiry (MariaDB has no such variable).
	noStatsExpiry atomic.Bool
	// noSnapshots is set once the server refused START TRANSACTION WITH
	// CONSISTENT SNAPSHOT (load_streams.go): whole loads read in one
	// transaction from then on.
	noSnapshots atomic.Bool
	// noWeights is set once the server refused WEIGHT_STRING (titlekey.go).
	noWeights atomic.Bool
}

var prefixRE = regexp.MustCompile(`^[A-Za-z0-9_]{0,32}$`)

// ValidPrefix reports whether p can be a table prefix. Table names cannot be
// bound as SQL parameters, so the prefix is spliced into statements and must
// be a plain identifier part, as WordPress itself requires.
func ValidPrefix(p string) bool { return prefixRE.MatchString(p) }

// Open connects to the database named by a go-sql-driver DSN. It does not
// wait for the database to answer: catalogd starts without one and reports
// not ready until it does.
func Open(dsn string, o Options) (*DB, error) {
	if !ValidPrefix(o.Prefix) {
		return nil, fmt.Errorf("wpdb: table prefix %q: want letters, digits and underscores", o.Prefix)
	}
	cfg, err := ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("wpdb: DSN: %w", err)
	}
	// Parameters interpolated by the driver (it escapes them for the
	// connection's charset) save a prepare round trip on every query.
	cfg.InterpolateParams = true
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Collation = "utf8mb4_unicode_ci"
	secrets := newPasswords(cfg.Passwd)
	cfg.Logger = redactLogger{next: cfg.Logger, secrets: secrets}
	var file *dsnFile
	if o.DSNFile != "" {
		parsed, _ := ParseDSN(dsn) // as the file gives it: cfg has Open's settings
		file = &dsnFile{path: o.DSNFile, secrets: secrets, dsn: dsn, cfg: parsed}
		if err := cfg.Apply(mysql.BeforeConnect(file.beforeConnect)); err != nil {
			return nil, fmt.Errorf("wpdb: connector: %w", err)
		}
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("wpdb: connector: %w", err)
	}
	sdb := sql.OpenDB(boundedConnector{Connector: conn, timeout: cfg.Timeout})
	if o.MaxOpen <= 0 {
		o.MaxOpen = 10
	}
	if o.MaxIdle <= 0 || o.MaxIdle > o.MaxOpen {
		o.MaxIdle = o.MaxOpen
	}
	sdb.SetMaxOpenConns(o.MaxOpen)
	sdb.SetMaxIdleConns(o.MaxIdle)
	sdb.SetConnMaxLifetime(30 * time.Minute)
	sdb.SetConnMaxIdleTime(5 * time.Minute)
	if o.QueryTimeout <= 0 {
		o.QueryTimeout = 5 * time.Second
	}
	if o.LoadTimeout <= 0 {
		o.LoadTimeout = 2 * time.Minute
	}
	if o.Observe == nil {
		o.Observe = func(time.Duration, error) {}
	}
	if o.LoadStreams <= 0 {
		o.LoadStreams = defaultLoadStreams
	}
	return &DB{db: sqlx.NewDb(sdb, "mysql"), prefix: o.Prefix, timeout: o.QueryTimeout, load: o.LoadTimeout, observe: o.Observe,
		streams: max(1, min(o.LoadStreams, o.MaxOpen-streamsReserve)), passwords: secrets, dsn: dsn, dsnFile: file}, nil
}

// DSN is the DSN a new connection is opened with now: Open's, or the one
// its DSN file holds (Options.DSNFile). The binary log's connection is
// opened with it.
func (db *DB) DSN() string {
	if db.dsnFile == nil {
		return db.dsn
	}
	dsn, _ := db.dsnFile.current()
	return dsn
}

// boundedConnector puts the whole of opening a connection (dial,
// handshake, authentication) under the dial timeout. The driver bounds only
// the dial by it and the rest by the caller's context, and database/sql
// opens the pool's spare connections with a context that never ends: with
// a database that accepts TCP but never answers (a black hole), those would
// hang and hold the pool's every slot, so that no later read even tries.
type boundedConnector struct {
	driver.Connector
	timeout time.Duration
}

func (c boundedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return c.Connector.Connect(ctx)
}

// Close closes the pool.
func (db *DB) Close() error { return db.db.Close() }

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, db.timeout)
	defer cancel()
	return db.Redact(db.db.PingContext(ctx))
}

// Pool is the connection pool, for its metrics.
func (db *DB) Pool() *sql.DB { return db.db.DB }

// Queries returns how many statements have been sent since Open, for the
// query-count tests and metrics.
func (db *DB) Queries() int64 { return db.queries.Load() }

// Tx is one consistent, read-only view of the database.
type Tx struct {
	tx     querier
	db     *DB
	prefix string
	stmt   time.Duration // the deadline of one statement
}

// View runs fn in a read-only transaction under the query deadline, so that
// the several reads of one response see the same snapshot of the shop.
func (db *DB) View(ctx context.Context, fn func(ctx context.Context, tx *Tx) error) error {
	return db.view(ctx, db.timeout, fn)
}

// view runs fn in a read-only transaction under the deadline.
func (db *DB) view(ctx context.Context, timeout time.Duration, fn func(ctx context.Context, tx *Tx) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	db.queries.Add(1)
	// REPEATABLE READ whatever the server's default: at READ COMMITTED
	// each statement would see the commits before it, and the reads of
	// one view would not be one snapshot.
	start := time.Now()
	stx, err := db.db.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
	if err != nil {
		// Observed as an errored statement: with the database away, every
		// read fails here, and /metrics would show only successes.
		db.observe(time.Since(start), err)
		return db.Redact(fmt.Errorf("wpdb: begin read-only transaction: %w", err))
	}
	// Rollback: there is nothing to commit, and it releases the snapshot.
	defer stx.Rollback() //nolint:errcheck // the outcome of a read is fn's error
	return db.Redact(fn(ctx, &Tx{tx: stx, db: db, prefix: db.prefix, stmt: db.timeout}))
}

// sql replaces {name} placeholders in a statement with prefixed table names,
// once per statement text: the requests' statements are a small fixed set.
func (tx *Tx) sql(stmt string) string {
	if q, ok := tx.db.stmts.Load(stmt); ok {
		return q.(string)
	}
	q := tableRE.ReplaceAllStringFunc(stmt, func(m string) string {
		return tx.prefix + m[1:len(m)-1]
	})
	tx.db.stmts.Store(stmt, q)
	return q
}

var tableRE = regexp.MustCompile(`\{[a-z_]+\}`)

// querier is what a Tx reads through: a database/sql transaction (View),
// or a connection on which a whole load's stream opened its own
// transaction with a consistent snapshot (openSnapshots), which
// database/sql's BeginTx cannot ask for.
type querier interface {
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Select runs a query that returns rows into dest. Every statement of a
// Tx names its tables as {name} (the prefix is added), may expand a slice
// argument into an IN (?) list, and is counted, timed and bounded by the
// statement deadline.
func (tx *Tx) Select(ctx context.Context, dest any, stmt string, args ...any) error {
	return tx.run(ctx, stmt, args, func(ctx context.Context, q string, args []any) error {
		return tx.tx.SelectContext(ctx, dest, q, args...)
	})
}

// Get runs a query that returns one row into dest; sql.ErrNoRows is
// returned as is.
func (tx *Tx) Get(ctx context.Context, dest any, stmt string, args ...any) error {
	return tx.run(ctx, stmt, args, func(ctx context.Context, q string, args []any) error {
		return tx.tx.GetContext(ctx, dest, q, args...)
	})
}

// probe is Select for a statement whose "table doesn't exist" (1146) is
// an answer, not a failure: an optional plugin's table, a network's
// sitemeta, absent on most shops. It is counted, logged at DEBUG, and not
// observed as an errored query: counted as errors, these answers would
// show errored queries on /metrics at every healthy start, with nothing in
// the log to say why, and hide the errors that matter.
func (tx *Tx) probe(ctx context.Context, dest any, stmt string, args ...any) error {
	return tx.runAnswering(ctx, stmt, args, missingTable, func(ctx context.Context, q string, args []any) error {
		return tx.tx.SelectContext(ctx, dest, q, args...)
	})
}

// run prefixes the statement's tables, expands IN (?) lists, counts and
// times the statement, under the statement deadline.
func (tx *Tx) run(ctx context.Context, stmt string, args []any, do func(context.Context, string, []any) error) error {
	return tx.runAnswering(ctx, stmt, args, nil, do)
}

// runAnswering is run where the errors answer reports true for are an
// answer, not a failure (see probe).
func (tx *Tx) runAnswering(ctx context.Context, stmt string, args []any, answer func(error) bool,
	do func(context.Context, string, []any) error) error {
	ctx, cancel := context.WithTimeout(ctx, tx.stmt)
	defer cancel()
	tx.db.queries.Add(1)
	q := tx.sql(stmt)
	if len(args) > 0 {
		var err error
		q, args, err = sqlx.In(q, args...)
		if err != nil {
			return fmt.Errorf("wpdb: expand query: %w", err)
		}
	}
	start := time.Now()
	err := do(ctx, q, args)
	observed := err
	if err != nil && answer != nil && answer(err) {
		observed = nil
		slog.DebugContext(ctx, "wpdb: an optional table is absent", "err", err)
	}
	took := time.Since(start)
	tx.db.observe(took, observed)
	if c, ok := ctx.Value(costKey{}).(*atomic.Int64); ok {
		c.Add(int64(took))
	}
	return err
}

// costKey carries, in a context, the total its statements took (withCost).
type costKey struct{}

// withCost returns a context whose statements add up their durations in
// the counter it returns: a read's database time, over its streams.
func withCost(ctx context.Context) (context.Context, *atomic.Int64) {
	c := new(atomic.Int64)
	return context.WithValue(ctx, costKey{}, c), c
}

// IsUnavailable reports whether err means the database could not be reached
// or did not answer in time, as opposed to a query that is wrong.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	// driver.ErrBadConn: the connection broke inside a transaction, where
	// database/sql cannot retry on another one (a reset mid-result).
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrTxDone) {
		return true
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		// 1040 too many connections, 1044 database denied, 1045 and 1698
		// access denied, 1049 unknown database, 1053 shutdown in progress,
		// 1927 connection killed; 1142/1143 a table or column the user may
		// not read (an active plugin's table missing from the grants): the
		// operator's to fix, not a server bug, and /readyz names it.
		switch me.Number {
		case 1040, 1044, 1045, 1049, 1053, 1142, 1143, 1698, 1927:
			return true
		}
		return false
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// IsSyntaxError reports whether err is the server's "this is not a
// statement I know": MySQL's and MariaDB's parse error (1064), or the
// generic 1105 whose text says so, as MySQL-compatible servers that are
// neither (the demo's embedded one) answer.
func IsSyntaxError(err error) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	return me.Number == 1064 || me.Number == 1105 && strings.HasPrefix(me.Message, "syntax error")
}

// Each runs a query and hands every row to fn as it arrives, for reads too
// large to hold as a slice of rows first.
func (tx *Tx) Each(ctx context.Context, stmt string, args []any, fn func(rows *sqlx.Rows) error) error {
	return tx.run(ctx, stmt, args, func(ctx context.Context, q string, args []any) error {
		rows, err := tx.tx.QueryxContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := fn(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// rowID scans an integer column (an ID, unsigned in WordPress's tables) as
// the driver hands it: scanned into an int64, database/sql formats and
// parses each unsigned value (a string of garbage per row); into a
// uint64, it assigns it through reflection, a large part of the Scan of a
// whole load's meta rows. A Scanner is handed the value as is.
type rowID int64

// Scan implements sql.Scanner.
func (i *rowID) Scan(src any) error {
	switch v := src.(type) {
	case int64:
		*i = rowID(v)
	case uint64:
		*i = rowID(v)
	case []byte: // a driver that hands the text as is
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return fmt.Errorf("wpdb: an ID of %q: %w", v, err)
		}
		*i = rowID(n)
	default:
		return fmt.Errorf("wpdb: an ID of type %T", src)
	}
	return nil
}
