package follow

import (
	"bytes"
	"errors"
	"log/slog"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The follower's pauses and lines while the database fails: a server away
// is tried every second and warned about once; a refusal is an ERROR once
// per cause, in the words of what to fix, tried again after pauses that
// double up to refusedRetryMax; another refusal starts the pauses over, and
// a success makes the next failure speak again. (The errors are the
// driver's values; TestWrongPasswordIsSaidOnce meets the real server's.)
func TestDBRetryPacesAndSaysOncePerCause(t *testing.T) {
	away := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	denied := &mysql.MySQLError{Number: 1045, SQLState: [5]byte{'2', '8', '0', '0', '0'}, Message: "Access denied for user 'u'@'h' (using password: YES)"}
	unknownDB := &mysql.MySQLError{Number: 1049, Message: "Unknown database 'shop'"}
	const ping = "the database does not answer; no change source chosen yet"
	steps := []struct {
		err   error // nil: the attempt succeeded
		wait  time.Duration
		level string
		words string // in the line
	}{
		{away, time.Second, "WARN", ping},
		{away, time.Second, "DEBUG", ping},
		{denied, time.Second, "ERROR", "access denied: check the user and password"},
		{denied, 2 * time.Second, "DEBUG", "access denied"},
		{denied, 4 * time.Second, "DEBUG", "access denied"},
		{denied, 8 * time.Second, "DEBUG", "access denied"},
		{denied, 16 * time.Second, "DEBUG", "access denied"},
		{denied, refusedRetryMax, "DEBUG", "access denied"},
		{denied, refusedRetryMax, "DEBUG", "access denied"},
		{unknownDB, time.Second, "ERROR", "unknown database: check the database name"},
		{unknownDB, 2 * time.Second, "DEBUG", "unknown database"},
		{away, time.Second, "WARN", ping},
		{nil, 0, "", ""},
		{denied, time.Second, "ERROR", "access denied"},
	}
	var buf bytes.Buffer
	r := &dbRetry{log: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	for i, st := range steps {
		buf.Reset()
		if st.err == nil {
			r.succeeded()
			continue
		}
		wait := r.failed(ping, st.err)
		line := buf.String()
		if wait != st.wait {
			t.Errorf("failure %d (%v): wait %v, want %v", i+1, st.err, wait, st.wait)
		}
		if strings.Count(line, "\n") != 1 || !strings.Contains(line, "level="+st.level+" ") || !strings.Contains(line, st.words) {
			t.Errorf("failure %d (%v): logged %q, want one %s line saying %q", i+1, st.err, line, st.level, st.words)
		}
		if errors.Is(st.err, syscall.ECONNREFUSED) == strings.Contains(line, "refuses catalogd") {
			t.Errorf("failure %d (%v): %q", i+1, st.err, line)
		}
	}
}
