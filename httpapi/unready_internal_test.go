package httpapi

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"catalogd/catalog"
)

// The 503s of an unready catalog warn once per cause: a second 503 of the
// same cause is DEBUG, another cause warns, and the same cause warns again
// only once its warning is unreadyRepeat old (on an injected clock).
func TestUnreadyWarnsOncePerCause(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	u := &unreadyLog{now: func() time.Time { return now }}
	down, loading := errors.New("dial tcp 127.0.0.1:3306: connection refused"), errors.New("first load running")
	steps := []struct {
		advance time.Duration
		err     error
		want    string // the level logged
	}{
		{0, down, "WARN"},
		{time.Second, down, "DEBUG"},
		{time.Second, down, "DEBUG"},
		{time.Second, loading, "WARN"},
		{time.Second, loading, "DEBUG"},
		{unreadyRepeat - 2*time.Second, loading, "DEBUG"},
		{2 * time.Second, loading, "WARN"},
		{time.Second, down, "WARN"},
	}
	for i, st := range steps {
		now = now.Add(st.advance)
		buf.Reset()
		u.log(context.Background(), log, "/wp-json/shop/v1/catalog", st.err)
		if got := buf.String(); !strings.Contains(got, "level="+st.want+" ") || strings.Count(got, "\n") != 1 {
			t.Errorf("503 %d (%v): logged %q, want one line at %s", i+1, st.err, got, st.want)
		}
	}
}

// The 503s before the first snapshot is in (a proxy's probe meets them at
// every start) are said once at INFO as not ready yet, however many and
// however long; a catalog that became unavailable afterwards still warns.
func TestNotLoadedSaidOnceAtInfo(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	u := &unreadyLog{now: func() time.Time { return now }}
	loading := &catalog.Error{Kind: catalog.EUNAVAILABLE, Reason: "unavailable", Message: "Loading.", Err: ErrNotLoaded}
	for i := 0; i < 100; i++ {
		u.log(context.Background(), log, "/wp-json/shop/v1/catalog", loading)
		now = now.Add(time.Second) // a probe a second, past unreadyRepeat
	}
	if got := buf.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, `level=INFO msg="not ready yet: `) {
		t.Errorf("100 503s before the first snapshot logged:\n%s\nwant one INFO line saying not ready yet", got)
	}
	buf.Reset()
	u.log(context.Background(), log, "/wp-json/shop/v1/catalog", &catalog.Error{Kind: catalog.EUNAVAILABLE,
		Reason: "unavailable", Message: "The catalog database is not reachable right now.", Err: errors.New("connection refused")})
	if got := buf.String(); !strings.Contains(got, "level=WARN ") || !strings.Contains(got, "catalog unavailable") {
		t.Errorf("a catalog unavailable after the start logged %q, want its warning", got)
	}
}
