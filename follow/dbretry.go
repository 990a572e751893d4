package follow

import (
	"context"
	"log/slog"
	"time"

	"catalogd/wpdb"
)

// dbRetry paces the follower's attempts to reach the database and start
// its change source while they fail, and says why once per cause.
//
// A database that is away (connection refused, a timeout, a restart) is
// tried again every retryStart: it comes back by itself, and the catalog
// should follow within a second. A database that refuses catalogd (a wrong
// password, a database the user may not use or that does not exist) waits
// for the operator: it is still tried again, since a rotated secret or a
// grant may be put right in the database without restarting catalogd, but
// after a pause that doubles up to refusedRetryMax, so that a wrong
// password is not a failed login a second in the server's log.
type dbRetry struct {
	log   *slog.Logger
	cause string        // the cause last logged; "" after a success
	pause time.Duration // the last pause after a refusal
}

// refusedRetryMax is the longest pause between two attempts the database
// refused.
const refusedRetryMax = 30 * time.Second

// failed logs an attempt that failed (what: what could not be done) and
// returns how long to wait before the next. The first failure of a cause
// is logged at WARN, or at ERROR for a refusal, which no wait mends; its
// repeats at DEBUG. A refusal of another cause than the last (the
// password put right, the grant still missing) starts its pauses over.
func (r *dbRetry) failed(what string, err error) time.Duration {
	cause, level, wait := what, slog.LevelWarn, retryStart
	msg := what + "; trying again every " + retryStart.String()
	if words := wpdb.Refusal(err); words != "" {
		cause, level = words, slog.LevelError
		msg = "the database refuses catalogd: " + words + " (--dsn, CATALOG_DSN); answering 503 and trying again, " +
			"less often, up to every " + refusedRetryMax.String()
		if cause != r.cause {
			r.pause = 0
		}
		r.pause = min(max(2*r.pause, retryStart), refusedRetryMax)
		wait = r.pause
	}
	if cause == r.cause {
		level = slog.LevelDebug
	}
	r.cause = cause
	r.log.Log(context.Background(), level, msg, "err", err, "retry_in", wait)
	return wait
}

// succeeded ends the failures: the next one is logged again, and a
// refusal's pauses start over.
func (r *dbRetry) succeeded() { r.cause, r.pause = "", 0 }
