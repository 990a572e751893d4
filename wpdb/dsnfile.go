package wpdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/secretfile"
)

// A DSN may be kept in a file (catalogd's --dsn-file) rather than in a
// flag, whose value every user of the machine sees in ps. Such a file is
// rotated in place with the database's password (internal/secretfile), so
// it is looked at before each new connection and read again when it
// changed: its user and password are used for the next connections; the
// pool's open ones stay as they are, authenticated already.

// ReadDSNFile reads a DSN from a file: its content without the spaces and
// line ends around it, checked by ParseDSN. Its errors quote nothing of
// the content.
func ReadDSNFile(path string) (string, error) {
	dsn, err := secretfile.Read(path)
	if err != nil {
		return "", err
	}
	if _, err := ParseDSN(dsn); err != nil {
		return "", fmt.Errorf("the DSN in %s: %w", path, err)
	}
	return dsn, nil
}

// dsnFile is the DSN of a file, as new connections take it.
type dsnFile struct {
	path    string
	secrets *passwords // each password the file brings is added

	mu      sync.Mutex
	dsn     string        // the DSN in use
	cfg     *mysql.Config // dsn, parsed
	read    os.FileInfo   // the file as it was when dsn was read; nil: not yet looked at
	problem string        // the last reason the file's DSN was not taken, said once
}

// current is the DSN to connect with now: the file's, read again when it
// changed. One that cannot be read or taken leaves the one before in use,
// and the log says why, once.
func (f *dsnFile) current() (string, *mysql.Config) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fi, same, err := secretfile.Look(f.path, f.read)
	if same {
		return f.dsn, f.cfg
	}
	var dsn string
	var cfg *mysql.Config
	if err == nil {
		dsn, err = ReadDSNFile(f.path)
	}
	if err == nil {
		cfg, err = ParseDSN(dsn)
	}
	if err == nil && !sameButCredentials(cfg, f.cfg) {
		err = errors.New("it names another server, database or parameters than catalogd started with: " +
			"only the user and password follow the file; restart catalogd for the rest")
	}
	if err != nil {
		if msg := err.Error(); msg != f.problem {
			f.problem = msg
			slog.Warn("the DSN file cannot be taken; new database connections use the DSN read before", "file", f.path, "err", err)
		}
		return f.dsn, f.cfg
	}
	f.problem = ""
	if dsn != f.dsn {
		f.secrets.add(cfg.Passwd)
		slog.Info("the DSN file changed; new database connections use its user and password", "file", f.path)
	}
	f.dsn, f.cfg, f.read = dsn, cfg, fi
	return f.dsn, f.cfg
}

// beforeConnect gives a new connection the file's user and password.
func (f *dsnFile) beforeConnect(_ context.Context, c *mysql.Config) error {
	_, cur := f.current()
	c.User, c.Passwd = cur.User, cur.Passwd
	return nil
}

// sameButCredentials says whether two DSNs name the same server, database
// and parameters, whatever their users and passwords.
func sameButCredentials(a, b *mysql.Config) bool {
	a, b = a.Clone(), b.Clone()
	a.User, a.Passwd, b.User, b.Passwd = "", "", "", ""
	return a.FormatDSN() == b.FormatDSN()
}
