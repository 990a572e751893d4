package wpdb

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/redact"
)

// The database password, and the hash of it that SHOW GRANTS prints, must
// never reach a log line, a metric or a response. Two things make sure:
// ParseDSN accepts only a DSN whose password the driver cannot mistake for
// an address and never quotes the DSN back, and every error and grant text
// leaving this package passes through redact.

// ParseDSN parses a go-sql-driver DSN as Open does, for the configuration to
// reject a bad one at start-up. Its errors name the problem but quote
// nothing of the DSN: the driver's own messages echo parts of it, and in a
// mistyped DSN those parts are the password.
func ParseDSN(dsn string) (*mysql.Config, error) {
	const want = "want user:password@tcp(host:port)/database"
	if !strings.Contains(dsn, "/") {
		return nil, errors.New(want + "; the DSN has no /database part")
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("%s; %s", want, dsnProblem(dsn, err))
	}
	switch cfg.Net {
	case "tcp", "tcp4", "tcp6", "unix":
	default:
		// Without "@tcp", whatever stands before "(host:port)" is taken for
		// the network: `user:secret(db:3306)/shop` dials network
		// "user:secret", and every dial error would print it.
		return nil, errors.New(want + "; the DSN names no network tcp or unix before (host:port): is the @tcp missing?")
	}
	return cfg, nil
}

// dsnProblem says what is wrong with a DSN the driver rejected, in words
// that quote nothing of it.
func dsnProblem(dsn string, err error) string {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "default addr for network "):
		// The driver quotes the "network", which is the user and password
		// when the @ is missing (`user:secret/shop`).
		return "the part before /database is not user:password@tcp(host:port): is the @tcp(host:port) missing?"
	case strings.HasPrefix(msg, "invalid dbname "):
		return "the database name is not a valid URL path segment (escape % as %25)"
	case strings.HasPrefix(msg, "invalid DSN: ") && !strings.ContainsAny(msg, `"'`):
		// The driver's fixed messages (a missing ")", an unescaped
		// parameter) quote nothing.
		return strings.TrimPrefix(msg, "invalid DSN: ")
	}
	// Parameter values may be anything; name the parameter only.
	_, query, _ := strings.Cut(dsn[strings.LastIndex(dsn, "/"):], "?")
	for _, kv := range strings.Split(query, "&") {
		if _, err := mysql.ParseDSN("/?" + kv); err != nil {
			key, _, _ := strings.Cut(kv, "=")
			return fmt.Sprintf("the driver rejects the value of parameter %.40q", key)
		}
	}
	return "the driver cannot parse it"
}

// Redact returns err with the password and any password hash taken out of
// its text, or err itself when its text holds neither (see redact.Error:
// the original stays reachable for errors.Is and errors.As, which
// IsUnavailable classifies by, never formatted). Every error the DB's
// methods return passes through here: the one place they are redacted.
func (db *DB) Redact(err error) error {
	return redact.Error(err, db.passwords.redact)
}

// passwords are the database passwords this process has connected with:
// the DSN's, and each one a rotated DSN file brought since (an error of a
// connection opened before may still carry the one it was opened with).
// Every text that leaves the package has them all taken out.
type passwords struct {
	mu   sync.Mutex
	list []string
}

func newPasswords(pw string) *passwords { return &passwords{list: []string{pw}} }

func (p *passwords) add(pw string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.list, pw) {
		p.list = append(p.list, pw)
	}
}

// redact is RedactText with every password.
func (p *passwords) redact(s string) string {
	p.mu.Lock()
	list := slices.Clone(p.list)
	p.mu.Unlock()
	return RedactText(s, list...)
}

// redactLogger passes the driver's own log lines (a connection cut
// mid-read, a failed keep-alive setting) through the same redaction.
type redactLogger struct {
	next    mysql.Logger
	secrets *passwords
}

func (l redactLogger) Print(v ...any) { l.next.Print(l.secrets.redact(fmt.Sprint(v...))) }

var (
	// quotedRE is one SQL string literal.
	quotedRE = regexp.MustCompile(`'(?:[^'\\]|\\.|'')*'`)
	// identifiedRE finds the authentication clause of a grant: MariaDB's
	// IDENTIFIED BY PASSWORD '*hash' and IDENTIFIED VIA plugin USING 'hash',
	// MySQL's IDENTIFIED WITH plugin AS 'hash'.
	identifiedRE = regexp.MustCompile(`(?i)\bIDENTIFIED\b`)
	// nativeHashRE is a mysql_native_password hash wherever it stands.
	nativeHashRE = regexp.MustCompile(`\*[0-9A-Fa-f]{40}\b`)
)

// RedactText takes the passwords and every password hash out of s.
func RedactText(s string, passwords ...string) string {
	for _, pw := range passwords {
		s = redact.String(s, pw)
	}
	if loc := identifiedRE.FindStringIndex(s); loc != nil {
		// Every literal of the clause is a hash or a plugin's secret.
		s = s[:loc[1]] + quotedRE.ReplaceAllString(s[loc[1]:], "'"+redact.Mark+"'")
	}
	return nativeHashRE.ReplaceAllString(s, redact.Mark)
}
