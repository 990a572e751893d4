package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/config"
)

// The lines catalogd writes outside its log — the listening line on
// stdout, the error that stops it, a subcommand's answer — are plain text,
// or, when the log is JSON (--log-format json), JSON records as the log's
// are: a log shipper reading catalogd's output parses every line. --help
// and --version, asked for by a person, stay text.

// say writes text as one line, or in JSON a record of level whose msg is
// text, with attrs.
func say(w io.Writer, json bool, level slog.Level, text string, attrs ...any) error {
	if !json {
		_, err := fmt.Fprintln(w, text)
		return err
	}
	r := slog.NewRecord(time.Now(), level, text, 0)
	r.Add(attrs...)
	return slog.NewJSONHandler(w, nil).Handle(context.Background(), r)
}

// useLog makes log the log of the libraries too. The catalog, its change
// poller and the DSN file log through slog's default logger: without this
// their lines (a failed reload, a shop change, debug detail) would ignore
// --log-format and --log-level. The driver's own complaints (a connection
// cut mid-read) go to it as well.
func useLog(log *slog.Logger) {
	slog.SetDefault(log)
	_ = mysql.SetLogger(slog.NewLogLogger(log.Handler(), slog.LevelWarn))
}

// jsonLog says whether cfg's log is JSON.
func jsonLog(cfg *config.Config) bool { return cfg.LogFormat == "json" }

// inJSON is an error that stopped a catalogd whose log is JSON: main
// writes it as a record.
type inJSON struct{ error }

func (e inJSON) Unwrap() error { return e.error }

// report writes the error run returned to stderr as the log would, and
// returns the exit code: 2 for a setting catalogd cannot read (one line per
// mistake, as the flag package exits), 3 for check's database not ready,
// 1 for anything else.
func report(stderr io.Writer, err error) int {
	var usage *config.UsageError
	if errors.As(err, &usage) {
		for _, p := range usage.Problems {
			_ = say(stderr, usage.JSON, slog.LevelError, "catalogd: "+p)
		}
		return 2
	}
	var j inJSON
	_ = say(stderr, errors.As(err, &j), slog.LevelError, "catalogd: "+err.Error())
	if errors.As(err, new(dbNotReady)) {
		return 3
	}
	return 1
}
