package main

import (
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

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
