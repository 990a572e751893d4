// Package binlog is the change feed (catalog.Feed) that follows the
// server's binary log as a replica does, and the checks of whether the
// server and the user can feed it every change.
package binlog

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"

	"catalogd/catalog"
	"catalogd/internal/redact"
	"catalogd/wpdb"
)

// Binlog is the replication change feed: it follows the server's binary
// log as a replica does and reports each committed transaction that
// touches what catalogd reads (catalog.Reads) as one catalog.Change. It
// needs binlog_format=ROW, binlog_row_image=FULL (or NOBLOB) and the
// grants REPLICATION SLAVE, REPLICATION CLIENT (Status checks them).
// Those settings can change while it follows (SET GLOBAL, a session's own,
// a restart without the log): Run checks them at each reconnection, and
// each event for a change it cannot read (a statement, a partial image),
// and returns a *BlindError when the log cannot show every change. It
// never writes.
type Binlog struct {
	db       *wpdb.DB
	reads    catalog.Reads
	schema   string
	prefix   string
	password string // taken out of every error text
	o        Options
	log      *slog.Logger
	cfg      replication.BinlogSyncerConfig

	mu      sync.Mutex
	flavor  string
	pos     binlogPosition // after the last committed transaction seen
	started bool

	m *binlogMapper
}

// Options tune the feed.
type Options struct {
	// ServerID is the replica server ID the feed registers with; it must
	// differ from every server's and replica's of the topology. 0: a
	// random one in [2^30, 2^31), so that two replicas of catalogd do not
	// clash.
	ServerID uint32
	// Logger receives the feed's log lines (reconnections, resyncs);
	// go-mysql's own lines come at debug level. slog.Default() by default.
	Logger *slog.Logger
	// OnReconnect, when set, is called each time the feed connects again
	// after losing the stream (a metric).
	OnReconnect func()
	// OnResync, when set, is called each time the feed lost its position
	// (the log purged, a failover) and reported a KindResync change.
	OnResync func()
	// Heartbeat is how often the server signals an idle stream; a stream
	// silent for 4 heartbeats is taken for dead and reconnected. 5 s by
	// default.
	Heartbeat time.Duration
	// Confirm is how long after a change the catalog reads it again
	// (catalog.Change.Confirm): MariaDB sends a transaction's events once
	// they are in the binary log, before InnoDB's commit is visible to
	// other sessions, so a read made at once may miss it, now and then
	// under load. 250 ms by default.
	Confirm time.Duration
}

// New makes the feed for the shop that db reads: dsn is the DSN
// wpdb.Open took (its host, port, user, password, TLS and database name:
// the schema whose tables are followed), reads what the catalog reads.
// It connects to nothing until Start.
func New(db *wpdb.DB, dsn string, reads catalog.Reads, o Options) (*Binlog, error) {
	cfg, err := wpdb.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("wpdb: binlog DSN: %w", err)
	}
	if cfg.DBName == "" {
		return nil, errors.New("wpdb: binlog DSN: no database name")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ServerID == 0 {
		var b [4]byte
		_, _ = rand.Read(b[:])
		o.ServerID = 1<<30 | binary.BigEndian.Uint32(b[:])&(1<<30-1)
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 5 * time.Second
	}
	if o.Confirm <= 0 {
		o.Confirm = 250 * time.Millisecond
	}
	sc := replication.BinlogSyncerConfig{
		ServerID:         o.ServerID,
		User:             cfg.User,
		Password:         cfg.Passwd,
		Charset:          "utf8mb4",
		TLSConfig:        cfg.TLS,
		HeartbeatPeriod:  o.Heartbeat,
		ReadTimeout:      4 * o.Heartbeat,
		DisableRetrySync: true, // Run reconnects, from its own committed position
		Logger:           slog.New(debugHandler{o.Logger.Handler()}),
		// UTC strings for TIMESTAMPs: the feed reads no time column, but
		// the decoder must not depend on the machine's zone.
		TimestampStringLocation: time.UTC,
	}
	switch cfg.Net {
	case "unix":
		sc.Host = cfg.Addr
		sock := cfg.Addr
		sc.Dialer = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}
	default:
		host, port, err := net.SplitHostPort(cfg.Addr)
		if err != nil {
			host, port = cfg.Addr, "3306"
		}
		p, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			return nil, fmt.Errorf("wpdb: binlog DSN: port %q", port)
		}
		sc.Host, sc.Port = host, uint16(p)
		timeout := cfg.Timeout
		if timeout <= 0 {
			timeout = 5 * time.Second
		}
		sc.Dialer = (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext
	}
	b := &Binlog{db: db, reads: reads, schema: cfg.DBName, prefix: db.Prefix(), password: cfg.Passwd,
		o: o, log: o.Logger.With("feed", "binlog"), cfg: sc}
	b.m = newBinlogMapper(b.schema, b.prefix, reads)
	return b, nil
}

// Name is the feed's name in logs, metrics and /readyz.
func (b *Binlog) Name() string { return "binlog" }

// SeesEverything implements catalog.Sighted: every row event of a table
// the catalog reads maps to what it touches, and Run stops with a
// *BlindError the moment the log could hide one (a statement-logged
// change, a partial row image), so while it runs it sees every change.
func (b *Binlog) SeesEverything() bool { return true }

// Position is where the feed stands: a GTID set or file:offset after the
// last transaction it has seen committed; "" before Start.
func (b *Binlog) Position() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.started {
		return ""
	}
	return b.pos.String()
}

// Start marks the binary log's current position, from which Run follows
// it, and reads the column positions of the tables it maps.
func (b *Binlog) Start(ctx context.Context) error {
	pos, err := b.mark(ctx)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.started = true
	b.mu.Unlock()
	b.log.Info("binlog feed: starting", "position", pos.String(), "server_id", b.o.ServerID)
	return nil
}

// mark takes the server's current position and reads the columns and
// terms (again, after a failover: the new server's may differ).
func (b *Binlog) mark(ctx context.Context) (binlogPosition, error) {
	flavor, err := serverFlavor(ctx, b.db)
	if err != nil {
		return binlogPosition{}, err
	}
	pos, err := readPosition(ctx, b.db, flavor)
	if err != nil {
		return binlogPosition{}, b.redact(err)
	}
	b.m.forgetTables()
	if err := b.m.load(ctx, b.db); err != nil {
		return binlogPosition{}, b.redact(err)
	}
	b.mu.Lock()
	b.flavor, b.pos = flavor, pos
	b.mu.Unlock()
	return pos, nil
}

// startAt is Start from a position given (the tests' purged position).
func (b *Binlog) startAt(ctx context.Context, pos binlogPosition) error {
	if err := b.Start(ctx); err != nil {
		return err
	}
	b.mu.Lock()
	b.pos = pos.clone()
	b.mu.Unlock()
	return nil
}

// Run follows the binary log from the position Start marked, reporting
// one Change per committed transaction that touches what the catalog
// reads, until ctx ends. A lost connection is reconnected, from the last
// committed transaction; a position the server no longer has (purged, a
// failover) is reported as one KindResync change, and the feed goes on
// from the server's current position.
func (b *Binlog) Run(ctx context.Context, h catalog.ChangeHandler) error {
	b.mu.Lock()
	started := b.started
	b.mu.Unlock()
	if !started {
		if err := b.Start(ctx); err != nil {
			return err
		}
	}
	const minBackoff, maxBackoff = 200 * time.Millisecond, 10 * time.Second
	backoff := minBackoff
	for {
		progressed, err := b.stream(ctx, h)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if progressed {
			backoff = minBackoff
		}
		var blind *BlindError
		if errors.As(err, &blind) {
			return blind
		}
		// The settings may have changed while the stream was down (a
		// server restarted without the log, SET GLOBAL binlog_format):
		// reconnecting would follow a log that misses changes, or none.
		if berr := readBlind(ctx, b.db); errors.As(berr, &blind) {
			return blind
		}
		if isPositionLost(err) {
			b.log.Warn("binlog feed: the position is gone from the server's binary log; rebuilding everything",
				"position", b.Position(), "error", b.errText(err))
			if err := b.resync(ctx); err == nil {
				if b.o.OnResync != nil {
					b.o.OnResync()
				}
				h.OnChange(catalog.Change{All: true, Kind: catalog.KindResync, Committed: time.Now()})
				backoff = minBackoff
				continue
			} else {
				b.log.Warn("binlog feed: cannot read the server's position", "error", b.errText(err))
			}
		} else {
			b.log.Warn("binlog feed: stream lost; reconnecting", "position", b.Position(),
				"error", b.errText(err), "retry_in", backoff)
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		backoff = min(2*backoff, maxBackoff)
		if b.o.OnReconnect != nil {
			b.o.OnReconnect()
		}
	}
}

// resync takes the server's current position: the one followed is gone.
func (b *Binlog) resync(ctx context.Context) error {
	pos, err := b.mark(ctx)
	if err != nil {
		return err
	}
	b.log.Info("binlog feed: following again", "position", pos.String())
	return nil
}

// stream follows the log once, until the connection or ctx ends;
// progressed says whether it saw any event.
func (b *Binlog) stream(ctx context.Context, changes catalog.ChangeHandler) (progressed bool, err error) {
	b.mu.Lock()
	cfg := b.cfg
	cfg.Flavor = b.flavor
	pos := b.pos.clone()
	b.mu.Unlock()
	syncer := replication.NewBinlogSyncer(cfg)
	defer syncer.Close()
	var s *replication.BinlogStreamer
	if pos.gtid != nil {
		s, err = syncer.StartSyncGTID(pos.gtid.Clone())
	} else {
		s, err = syncer.StartSync(pos.file)
	}
	if err != nil {
		return false, err
	}
	t := &binlogTxn{}
	for {
		ev, err := s.GetEvent(ctx)
		if err != nil {
			return progressed, err
		}
		progressed = true
		if err := b.handle(ctx, ev, &pos, t, changes); err != nil {
			return progressed, err
		}
	}
}

// binlogTxn is the transaction being read.
type binlogTxn struct {
	open   bool   // between BEGIN and its end
	gtid   string // its GTID, "" when the server gives none
	commit time.Time
	change catalog.Change
}

func (t *binlogTxn) reset() { *t = binlogTxn{} }

// handle takes one event: row events add to the transaction's change, its
// end reports it and moves the committed position.
func (b *Binlog) handle(ctx context.Context, ev *replication.BinlogEvent, pos *binlogPosition,
	t *binlogTxn, changes catalog.ChangeHandler) error {
	h := ev.Header
	switch e := ev.Event.(type) {
	case *replication.RotateEvent:
		pos.file = gomysql.Position{Name: string(e.NextLogName), Pos: uint32(e.Position)}
		b.setPos(*pos)
		return nil
	case *replication.MariadbGTIDEvent:
		t.reset()
		t.gtid = e.GTID.String()
		// A standalone event group (DDL) has no BEGIN; its statement ends it.
		t.open = !e.IsStandalone()
		return nil
	case *replication.GTIDEvent:
		t.reset()
		if next, err := e.GTIDNext(); err == nil {
			t.gtid = next.String()
		}
		if ct := e.ImmediateCommitTime(); !ct.IsZero() {
			t.commit = ct
		}
		return nil
	case *replication.QueryEvent:
		q := strings.TrimSpace(string(e.Query))
		switch {
		case strings.EqualFold(q, "BEGIN"):
			t.open = true
			return nil
		case strings.EqualFold(q, "COMMIT"):
			return b.commit(h, pos, t, changes)
		case isDML(q) || isCall(q):
			// A change logged as a statement (binlog_format STATEMENT or
			// MIXED, for the server or one session): its rows are not in
			// the log, so what it changed cannot be known from here,
			// unless it writes only tables shown to be plain ones the
			// catalog does not read (unwatched.go).
			lookup := func(t target) tableFacts { return b.m.known(ctx, b.db, t) }
			if why := b.m.dmlTouches(string(e.Schema), q, lookup); why != "" {
				return statementBlind(e.SlaveProxyID, why)
			}
			if !t.open {
				return b.commit(h, pos, t, changes)
			}
			return nil
		case t.open && !isDDL(q):
			// SAVEPOINT, ROLLBACK TO, XA … inside a transaction.
			return nil
		}
		// A statement logged as such (DDL: ALTER, CREATE, DROP, TRUNCATE,
		// RENAME) is its own transaction. What it names may be a view, or
		// have triggers, from now on.
		if isDDL(q) {
			if why := b.m.knownChanged(string(e.Schema), h.Timestamp, q); why != "" {
				return &BlindError{Reason: BlindStatement, Detail: why}
			}
		}
		if b.m.ddlTouches(string(e.Schema), q) {
			if err := b.m.load(ctx, b.db); err != nil {
				return b.redact(err)
			}
			t.change.All, t.change.Kind = true, catalog.KindTable
		}
		return b.commit(h, pos, t, changes)
	case *replication.XIDEvent:
		return b.commit(h, pos, t, changes)
	case *replication.GtidTaggedLogEvent:
		// MySQL 8.4's GTID with a tag: a transaction's start. go-mysql's
		// GTID sets have no tags, so the position does not take it (a
		// server whose set holds tags is followed by file and offset,
		// see binlogPosition); after a reconnection such a transaction
		// may be reported again, which costs a read, never a change.
		t.reset()
		if ct := e.ImmediateCommitTime(); !ct.IsZero() {
			t.commit = ct
		}
		return nil
	case *replication.TransactionPayloadEvent:
		// MySQL 8.0.20+ with binlog_transaction_compression: the whole
		// transaction, compressed in one event that go-mysql decodes.
		for _, inner := range e.Events {
			if err := b.handle(ctx, inner, pos, t, changes); err != nil {
				return err
			}
		}
		return nil
	case *replication.ExecuteLoadQueryEvent:
		// LOAD DATA logged as a statement: go-mysql does not decode its
		// text, so which table it loads is not known.
		return statementBlind(e.SlaveProxyID, "it is a LOAD DATA, whose table catalogd cannot read from the log")
	case *replication.TableMapEvent:
		return nil
	case *replication.RowsEvent:
		update := false
		switch h.EventType {
		case replication.UPDATE_ROWS_EVENTv0, replication.UPDATE_ROWS_EVENTv1, replication.UPDATE_ROWS_EVENTv2,
			replication.PARTIAL_UPDATE_ROWS_EVENT, replication.MARIADB_UPDATE_ROWS_COMPRESSED_EVENT_V1:
			update = true
		}
		stale, err := b.m.rows(e, update, &t.change)
		if err != nil {
			return err
		}
		if stale {
			// The table's columns moved: read them again; this event
			// cannot be trusted, so everything may have changed.
			b.log.Info("binlog feed: a table's columns changed; reading them again",
				"table", string(e.Table.Table))
			if err := b.m.load(ctx, b.db); err != nil {
				return b.redact(err)
			}
			t.change.All, t.change.Kind = true, catalog.KindTable
		}
		return nil
	}
	return nil
}

// commit ends the transaction: its change is reported when it has one,
// and the position moves past it.
func (b *Binlog) commit(h *replication.EventHeader, pos *binlogPosition, t *binlogTxn, changes catalog.ChangeHandler) error {
	if h.LogPos > 0 {
		pos.file.Pos = h.LogPos
	}
	if pos.gtid != nil && t.gtid != "" {
		if err := pos.gtid.Update(t.gtid); err != nil {
			return fmt.Errorf("wpdb: binlog GTID %s: %w", t.gtid, err)
		}
	}
	b.setPos(*pos)
	c := t.change
	if c.All || len(c.Posts) > 0 || len(c.Products) > 0 {
		c.Committed = t.commit
		if c.Committed.IsZero() {
			c.Committed = time.Unix(int64(h.Timestamp), 0)
		}
		if c.Kind == "" {
			c.Kind = catalog.KindProduct
		}
		c.Posts = sortedUnique(c.Posts)
		c.Products = sortedUnique(c.Products)
		c.Confirm = b.o.Confirm
		changes.OnChange(c)
	}
	t.reset()
	return nil
}

func (b *Binlog) setPos(p binlogPosition) {
	b.mu.Lock()
	b.pos = p.clone()
	b.mu.Unlock()
}

// redact takes the DSN's password out of an error's text.
func (b *Binlog) redact(err error) error {
	return redact.Error(err, func(s string) string { return wpdb.RedactText(s, b.password) })
}

// errText is an error's text for a log line: redacted, and as a string,
// since a log handler formats an error value with %+v, which makes
// go-mysql's errors print their stacks.
func (b *Binlog) errText(err error) string {
	if err == nil {
		return ""
	}
	return b.redact(err).Error()
}

// isPositionLost reports whether the server refused the position: error
// 1236, the log purged or a GTID it never had.
func isPositionLost(err error) bool {
	var me *gomysql.MyError
	if errors.As(err, &me) {
		return me.Code == gomysql.ER_MASTER_FATAL_ERROR_READING_BINLOG
	}
	return err != nil && strings.Contains(err.Error(), "ERROR 1236 ")
}

// debugHandler passes go-mysql's log lines at debug level: a reconnection
// is the feed's to report, once, in its own words.
type debugHandler struct{ h slog.Handler }

func (d debugHandler) Enabled(ctx context.Context, _ slog.Level) bool {
	return d.h.Enabled(ctx, slog.LevelDebug)
}

func (d debugHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = slog.LevelDebug
	return d.h.Handle(ctx, r)
}

func (d debugHandler) WithAttrs(as []slog.Attr) slog.Handler { return debugHandler{d.h.WithAttrs(as)} }
func (d debugHandler) WithGroup(n string) slog.Handler       { return debugHandler{d.h.WithGroup(n)} }
