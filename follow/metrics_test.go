package follow

import (
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"catalogd/catalog"
	"catalogd/wpdb/poll"
)

// The poll metrics count each kind of read under its own round label: a
// gate read alone is not a cheap round.
func TestPollMetricsByRound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		stats        poll.Stats
		round, outcm string
	}{
		{"cheap round", poll.Stats{DBTime: time.Millisecond}, "cheap", "ok"},
		{"gate read", poll.Stats{Gate: true, DBTime: time.Millisecond}, "gate", "ok"},
		{"failed gate read", poll.Stats{Gate: true, Err: errors.New("down")}, "gate", "error"},
		{"scan", poll.Stats{Scan: true, DBTime: time.Millisecond, Period: time.Minute}, "scan", "ok"},
		{"delta", poll.Stats{Scan: true, Delta: true, DBTime: time.Millisecond}, "delta", "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newChangeMetrics(prometheus.NewRegistry())
			m.onPoll(tt.stats)
			var got dto.Metric
			if err := m.polls.WithLabelValues(tt.round, tt.outcm).Write(&got); err != nil {
				t.Fatal(err)
			}
			if v := got.GetCounter().GetValue(); v != 1 {
				t.Errorf("catalogd_change_polls_total{round=%q,outcome=%q} = %v, want 1", tt.round, tt.outcm, v)
			}
		})
	}
}

// sightedFeed is resyncFeed saying it sees every change, as the binary log
// does.
type sightedFeed struct{ resyncFeed }

func (sightedFeed) SeesEverything() bool { return true }

// TestCountedKeepsSight: the counting wrapper passes on whether the feed
// sees every change, which decides how often the whole shop is read
// (every hour under the binary log, every ten minutes polling); an
// embedded interface alone would hide it and read every ten minutes.
func TestCountedKeepsSight(t *testing.T) {
	for _, tt := range []struct {
		feed catalog.Feed
		want bool
	}{{resyncFeed{}, false}, {sightedFeed{}, true}} {
		var f catalog.Feed = counted{Feed: tt.feed}
		s, ok := f.(catalog.Sighted)
		if got := ok && s.SeesEverything(); got != tt.want {
			t.Errorf("counted{%T} sees everything: %v, want %v", tt.feed, got, tt.want)
		}
	}
}
