package main

import (
	"context"
	"errors"
	"testing"
	"time"
)

// /readyz's database check runs at most once within its period, whatever
// the number of probes, and a probe whose client went away leaves no
// answer behind.
func TestRecentCheck(t *testing.T) {
	down := errors.New("database down")
	tests := []struct {
		name      string
		within    time.Duration
		cancelled bool // the first probe's context ends during its check
		wantCalls int  // of three probes
		wantErr   error
	}{
		{"within the period, one check", time.Hour, false, 1, down},
		{"no period, every probe checks", 0, false, 3, down},
		{"a cancelled probe is not kept", time.Hour, true, 2, down},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			c := &recentCheck{within: tt.within, check: func(ctx context.Context) error {
				calls++
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return down
			}}
			for i := range 3 {
				ctx, cancel := context.WithCancel(context.Background())
				if i == 0 && tt.cancelled {
					cancel()
				}
				err := c.run(ctx)
				cancel()
				if i > 0 && !errors.Is(err, tt.wantErr) {
					t.Errorf("probe %d: %v, want %v", i, err, tt.wantErr)
				}
			}
			if calls != tt.wantCalls {
				t.Errorf("%d checks for 3 probes, want %d", calls, tt.wantCalls)
			}
		})
	}
}
