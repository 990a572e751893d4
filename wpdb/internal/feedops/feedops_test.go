package feedops_test

import (
	"context"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/wpdb"
	"catalogd/wpdb/internal/feedops"
)

// tickFeed is a test-only feed: "everything changed" every 50 ms. It
// proves the harness and the checks until the real feeds are plugged in.
type tickFeed struct{}

func (tickFeed) Name() string                    { return "tick" }
func (tickFeed) Start(ctx context.Context) error { return nil }
func (tickFeed) Run(ctx context.Context, h catalog.ChangeHandler) error {
	tk := time.NewTicker(50 * time.Millisecond)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tk.C:
			h.OnChange(catalog.Change{All: true, Kind: catalog.KindOption})
		}
	}
}

func TestFeedOpsTick(t *testing.T) {
	feedops.Run(t, func(*testing.T, *wpdb.DB, string) catalog.Feed { return tickFeed{} },
		func(feedops.Op) time.Duration { return 2 * time.Second })
}
