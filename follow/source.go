package follow

import (
	"context"
	"errors"
	"sync"
	"time"

	"catalogd/catalog"
	"catalogd/wpdb/binlog"
	"catalogd/wpdb/poll"
)

// changeSource is the change source in use, for /readyz.
type changeSource struct {
	mu         sync.Mutex
	name, why  string
	configured string
}

func (s *changeSource) set(name, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.name, s.why = name, why
}

// String is /readyz's line: "changes: binlog (why)".
func (s *changeSource) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.name == "" {
		return "changes: not started (--changes=" + s.configured + ")"
	}
	return "changes: " + s.name + " (" + s.why + ")"
}

// BinlogRecheck is how often, at first, a follower that polls where it
// could follow the binary log checks whether the log can show every change
// again: three reads of variables and grants.
const BinlogRecheck = 10 * time.Second

// maxBinlogRecheck bounds the wait nextRecheck doubles.
const maxBinlogRecheck = 10 * time.Minute

// nextRecheck is the wait before the binary log is checked again after it
// went blind, the last wait having been last and the log followed for
// followed since. A session that keeps logging statements (a maintenance
// job, a plugin's own binlog_format) would turn the feed back and forth at
// every check, each turn costing a whole read of the shop: blindness soon
// after a return doubles the wait; a log followed for longer than the
// longest wait starts it afresh.
func nextRecheck(last, followed time.Duration) time.Duration {
	if last == 0 || followed >= maxBinlogRecheck {
		return BinlogRecheck
	}
	return min(2*last, maxBinlogRecheck)
}

// errBinlogUsable ends polling: the binary log can show every change again.
var errBinlogUsable = errors.New("the binary log can show every change again")

// untilBinlog is the poll source while the binary log cannot be followed:
// it polls until the log can, then ends with errBinlogUsable, so that the
// follower chooses again.
type untilBinlog struct {
	catalog.Feed
	every  time.Duration
	usable func(context.Context) bool
}

func (u untilBinlog) Run(ctx context.Context, h catalog.ChangeHandler) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ended := make(chan error, 1)
	go func() { ended <- u.Feed.Run(ctx, h) }()
	t := time.NewTicker(u.every)
	defer t.Stop()
	for {
		select {
		case err := <-ended:
			return err
		case <-t.C:
			if u.usable(ctx) {
				cancel()
				<-ended
				return errBinlogUsable
			}
		}
	}
}

// pick chooses the source: binlog when asked for, or under auto when the
// server and the user's grants allow it; poll otherwise. It says why.
// blind, when set, is why the binary log just stopped showing every
// change: poll, whatever the settings say now (a session of its own may
// log statements while the server's setting is ROW), until the next check.
func (f *Follower) pick(ctx context.Context, blind *binlog.BlindError) (catalog.Feed, string) {
	polling := func(why string) (catalog.Feed, string) {
		p := poll.New(f.db, catalog.ShopReads, poll.Options{Interval: f.o.PollInterval,
			Budget: f.o.PollBudget, OnPoll: f.m.onPoll})
		if f.o.Changes == "poll" {
			return p, why
		}
		// Where the binary log was wanted, go back to it once it can
		// show every change: it shows them sooner, for less.
		every := max(f.recheck, BinlogRecheck)
		return untilBinlog{Feed: p, every: every, usable: func(ctx context.Context) bool {
			ok, _ := binlog.Status(ctx, f.db, f.db.DSN())
			return ok
		}}, why + "; the binary log is checked again every " + every.String()
	}
	if f.o.Changes == "poll" {
		return polling("--changes=poll")
	}
	if blind != nil {
		return polling("--changes=" + f.o.Changes + ": the binary log stopped showing every change: " + blind.Detail)
	}
	ok, why, now := binlog.Check(ctx, f.db, f.db.DSN())
	// A log that is on but cannot show every change (its format, a
	// replica that does not log what it applies, a filter) is counted as
	// the feed going blind, as when it goes blind while followed; a
	// server without a log, most shops' host, is not.
	if now != nil && now.Reason != binlog.BlindNoLog {
		f.m.blind.WithLabelValues(now.Reason).Inc()
	}
	switch {
	case ok:
		feed, err := binlog.New(f.db, f.db.DSN(), catalog.ShopReads, binlog.Options{Logger: f.log})
		if err == nil {
			return feed, "--changes=" + f.o.Changes + ": " + why
		}
		why = err.Error()
	case f.o.Changes == "binlog":
		// Asked for and not possible: say so loudly, and still see
		// changes rather than none.
		f.log.Error("--changes=binlog, but the binary log cannot be followed; polling instead", "why", why)
	}
	return polling("--changes=" + f.o.Changes + ": " + why)
}

// follow follows the shop until ctx ends. It returns only a *LanguageError
// (the configured language is not the shop's: nothing to serve).
func (f *Follower) follow(ctx context.Context) error {
	waitFor := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	wait := func() bool { return waitFor(retryStart) }
	retry := &dbRetry{log: f.log}
	var blind *binlog.BlindError
	for ctx.Err() == nil {
		// The database must answer before the source is chosen: auto
		// would otherwise settle for polling a server that is only away.
		if err := f.db.Ping(ctx); err != nil {
			if !waitFor(retry.failed("the database does not answer; no change source chosen yet", err)) {
				return nil
			}
			continue
		}
		feed, why := f.pick(ctx, blind)
		blind = nil
		f.source.set(feed.Name(), why)
		for _, s := range []string{"binlog", "poll"} {
			v := 0.0
			if s == feed.Name() {
				v = 1
			}
			f.m.source.WithLabelValues(s).Set(v)
		}
		f.log.Info("following the shop's changes", "source", feed.Name(), "why", why)
		// Start marks the feed's place before the first whole read; while
		// the database is away, try again.
		for {
			err := feed.Start(ctx)
			if err == nil {
				break
			}
			if !waitFor(retry.failed("the change source "+feed.Name()+" cannot start yet", err)) {
				return nil
			}
		}
		retry.succeeded()
		followed := time.Now()
		err := f.cat.Follow(ctx, counted{Feed: feed, seen: f.m.seen}, f)
		f.restarted = false
		var badLanguage *catalog.LanguageError
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.As(err, &badLanguage):
			return err
		case errors.As(err, &blind):
			// The binary log misses changes (a setting changed, the
			// server restarted without it): poll from now on. The next
			// Follow begins with a whole read, made after the wait, when
			// whatever the log could not show is committed and visible.
			f.m.blind.WithLabelValues(blind.Reason).Inc()
			f.recheck = nextRecheck(f.recheck, time.Since(followed))
			f.log.Warn("the binary log cannot show every change; polling until it can", "why", blind.Detail,
				"recheck", f.recheck)
			if !wait() {
				return nil
			}
			continue
		case errors.Is(err, errBinlogUsable):
			f.log.Info("the binary log can show every change again; following it")
			continue
		}
		// The feed gave up (the binary log went away): choose again; the
		// next Follow begins with a whole read, so nothing is missed.
		f.restarted = true
		f.log.Warn("the change source stopped; choosing again", "source", feed.Name(), "err", err)
		if !wait() {
			return nil
		}
	}
	return nil
}

// retryStart is how often the follower tries again to reach the database
// or start its source: one cheap attempt a second while it is away, and
// at most a second between its return and the first snapshot.
const retryStart = time.Second
