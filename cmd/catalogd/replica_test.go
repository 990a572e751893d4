package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"catalogd/internal/testdb"
)

// TestReadingAReplica: a fleet spares the shop's primary by reading a
// replica of it. Whatever the replica logs, a price saved on the primary
// shows through catalogd reading the replica: by its binary log where
// the log holds what the replica applies (log_slave_updates on), by
// polling where it does not (log_slave_updates off, MariaDB's default, or
// the shop's schema filtered out of the log), which /readyz, the log and
// the blind metric then say, once.
func TestReadingAReplica(t *testing.T) {
	primary := testdb.NewServer(t)
	dsn, _ := testdb.LoadOn(t, primary.DSN(), jobsShop())
	tests := []struct {
		name   string
		extra  []string
		source string // what /readyz says
		why    string // and why, "" for the binary log
	}{
		{"log_slave_updates off", nil, "changes: poll (", "log_slave_updates is OFF"},
		{"log_slave_updates on", []string{"--log-slave-updates"}, "changes: binlog (", ""},
		{"the shop filtered out of the log", []string{"--log-slave-updates", "--binlog-do-db=unrelated"},
			"changes: poll (", "leaves the shop's schema"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replica := testdb.NewReplica(t, primary, 2+i, tt.extra...)
			replica.CaughtUp(t, primary)
			r := startFaulty(t, replica.On(t, dsn), "CATALOG_CHANGES=auto")
			r.waitReadyz(t, http.StatusOK, 20*time.Second)
			r.waitBaseline(t)
			body := r.readyzSays(t, 5*time.Second, tt.source, tt.why)
			t.Logf("/readyz: %s", body)

			price := []string{"61", "62", "63"}[i]
			saved := time.Now()
			testdb.SavePrice(t, dsn, "police-radar", price) // on the primary
			r.waitPrice(t, "police-radar", price+".00", 20*time.Second)
			t.Logf("the price saved on the primary showed through the replica in %v", time.Since(saved).Round(time.Millisecond))

			blind := r.metricsOf(t)["catalogd_change_feed_blind_total"]
			warned := strings.Count(r.Stderr.String(), tt.why)
			switch {
			case tt.why == "" && blind != 0:
				t.Errorf("catalogd_change_feed_blind_total = %v following the replica's log, want 0", blind)
			case tt.why != "" && (blind != 1 || warned == 0):
				t.Errorf("catalogd_change_feed_blind_total = %v and the log says %q %d times; want 1 and at least once:\n%s",
					blind, tt.why, warned, r.Stderr.String())
			}
		})
	}
}
