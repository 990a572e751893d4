package httpapi

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
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
