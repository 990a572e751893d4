package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"catalogd/internal/testdb"
)

// TestChangeSourceChosen: --changes picks the change source, /readyz and
// the metrics name it, and an edit shows through it: with auto, the binary
// log where the server writes one and the user may follow it (a private
// MariaDB with a binary log), polling where the server writes none (the
// shared one); asked for binlog where there is none, catalogd says why
// and polls rather than see no change.
func TestChangeSourceChosen(t *testing.T) {
	private := testdb.BinlogServer(t)
	tests := []struct {
		name    string
		server  string // "" for the shared server
		changes string
		source  string // the source /readyz names
		why     string // in /readyz's line
		log     string // in the log, when set
		within  time.Duration
	}{
		{"auto with a binary log", private, "auto", "binlog", "--changes=auto", "", time.Second},
		{"auto without", "", "auto", "poll", "writes no binary log", "", 5 * time.Second},
		{"binlog asked for, none there", "", "binlog", "poll", "writes no binary log",
			"--changes=binlog, but the binary log cannot be followed; polling instead", 5 * time.Second},
		{"poll asked for", private, "poll", "poll", "--changes=poll", "", 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dsn string
			if tt.server == "" {
				dsn, _ = testdb.Load(t, jobsShop())
			} else {
				dsn, _ = testdb.LoadOn(t, tt.server, jobsShop())
			}
			raw := testdb.Open(t, dsn)
			r := startFaulty(t, dsn, "CATALOG_CHANGES="+tt.changes, "CATALOG_POLL_INTERVAL=100ms")
			r.waitReadyz(t, http.StatusOK, 10*time.Second)
			r.waitBaseline(t)
			status, body, err := r.Readyz()
			if err != nil {
				t.Fatal(err)
			}
			if want := "changes: " + tt.source + " ("; status != http.StatusOK || !strings.Contains(body, want) ||
				!strings.Contains(body, tt.why) {
				t.Errorf("/readyz = %d %q, want it to name %q and say %q", status, body, want, tt.why)
			}
			if m := r.metricsOf(t); m[`catalogd_change_source`] != 1 {
				t.Errorf("catalogd_change_source sums to %v, want 1: one source in use", m["catalogd_change_source"])
			}
			if tt.log != "" && !strings.Contains(r.Stderr.String(), tt.log) {
				t.Errorf("the log does not say %q:\n%s", tt.log, r.Stderr.String())
			}
			start := time.Now()
			editPrice(t, raw, "police-radar", "31")
			r.waitPrice(t, "police-radar", "31.00", tt.within)
			t.Logf("%s: the edit showed after %v", tt.name, time.Since(start).Round(time.Millisecond))
			m := r.metricsOf(t)
			if m["catalogd_changes_total"] < 1 {
				t.Errorf("catalogd_changes_total = %v after an edit", m["catalogd_changes_total"])
			}
			if tt.source == "binlog" && m["catalogd_change_lag_seconds_count"] < 1 {
				t.Errorf("catalogd_change_lag_seconds_count = %v after an edit through the binary log",
					m["catalogd_change_lag_seconds_count"])
			}
			if tt.source == "poll" && m["catalogd_change_polls_total"] < 1 {
				t.Errorf("catalogd_change_polls_total = %v while polling", m["catalogd_change_polls_total"])
			}
		})
	}
}
