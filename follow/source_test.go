package follow

import (
	"testing"
	"time"
)

// TestRecheckBacksOffWhileTheLogKeepsGoingBlind: a session that logs a
// statement soon after each return to the binary log doubles the wait
// before the next return (each costs a whole read), up to a bound; a log
// followed calmly for longer starts the wait afresh.
func TestRecheckBacksOffWhileTheLogKeepsGoingBlind(t *testing.T) {
	tests := []struct {
		name           string
		last, followed time.Duration
		want           time.Duration
	}{
		{"the first blindness", 0, time.Hour, BinlogRecheck},
		{"the first blindness, at once", 0, 0, BinlogRecheck},
		{"blind again soon after the return", BinlogRecheck, 5 * time.Second, 2 * BinlogRecheck},
		{"blind again a minute on", 40 * time.Second, time.Minute, 80 * time.Second},
		{"the bound", 8 * time.Minute, time.Second, maxBinlogRecheck},
		{"at the bound", maxBinlogRecheck, time.Second, maxBinlogRecheck},
		{"followed calmly for the longest wait", maxBinlogRecheck, maxBinlogRecheck, BinlogRecheck},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nextRecheck(tt.last, tt.followed); got != tt.want {
				t.Errorf("nextRecheck(%v, %v) = %v, want %v", tt.last, tt.followed, got, tt.want)
			}
		})
	}
}
