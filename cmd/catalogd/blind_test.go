package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"catalogd/follow"
	"catalogd/internal/testdb"
)

// readyzSays waits until /readyz answers 200 and names the source.
func (r *running) readyzSays(t *testing.T, within time.Duration, want ...string) string {
	t.Helper()
	var body string
	r.poll(t, within, fmt.Sprintf("/readyz does not say %q", want), func() bool {
		status, b, err := r.Readyz()
		body = b
		if err != nil || status != http.StatusOK {
			return false
		}
		for _, w := range want {
			if !strings.Contains(b, w) {
				return false
			}
		}
		return true
	})
	return body
}

// TestBinlogBlindFallsBackToPolling: when the server starts logging the
// shop's changes as statements (binlog_format MIXED or STATEMENT) or as
// partial rows (binlog_row_image MINIMAL) while catalogd follows its
// binary log, a WooCommerce save made in a transaction still shows:
// catalogd polls, says so in /readyz, the log and a metric, and follows
// the binary log again once the setting is back.
func TestBinlogBlindFallsBackToPolling(t *testing.T) {
	private := testdb.BinlogServer(t)
	admin := testdb.Open(t, private)
	tests := []struct{ name, variable, value string }{
		{"MIXED format", "binlog_format", "MIXED"},
		{"STATEMENT format", "binlog_format", "STATEMENT"},
		{"MINIMAL row images", "binlog_row_image", "MINIMAL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dsn, raw := testdb.LoadOn(t, private, jobsShop())
			r := startFaulty(t, dsn, "CATALOG_CHANGES=auto", "CATALOG_POLL_INTERVAL=100ms")
			r.waitReadyz(t, http.StatusOK, 10*time.Second)
			r.waitBaseline(t)
			r.readyzSays(t, 5*time.Second, "changes: binlog (")

			testdb.SetGlobal(t, admin, tt.variable, tt.value)
			testdb.SavePrice(t, dsn, "police-radar", "41")
			r.waitPrice(t, "police-radar", "41.00", 15*time.Second)
			body := r.readyzSays(t, 5*time.Second, "changes: poll (", "stopped showing every change")
			t.Logf("/readyz while blind: %s", body)
			if m := r.metricsOf(t); m["catalogd_change_feed_blind_total"] < 1 || m["catalogd_change_source"] != 1 {
				t.Errorf("catalogd_change_feed_blind_total = %v, catalogd_change_source sums to %v; want ≥ 1 and 1",
					m["catalogd_change_feed_blind_total"], m["catalogd_change_source"])
			}
			if n := strings.Count(r.Stderr.String(), "the binary log cannot show every change"); n != 1 {
				t.Errorf("the log warns %d times of the blind binary log, want once:\n%s", n, r.Stderr.String())
			}

			// The setting back: the binary log is followed again.
			if _, err := admin.Exec(fmt.Sprintf("SET GLOBAL %s = '%s'", tt.variable, map[string]string{
				"binlog_format": "ROW", "binlog_row_image": "FULL"}[tt.variable])); err != nil {
				t.Fatal(err)
			}
			r.readyzSays(t, 3*follow.BinlogRecheck, "changes: binlog (")
			editPrice(t, raw, "police-radar", "42")
			r.waitPrice(t, "police-radar", "42.00", 5*time.Second)
		})
	}
}

// TestBinlogLostOnRestart: the shop's server restarts without its binary
// log while catalogd follows it. catalogd polls (an edit shows, /readyz
// and the metric say why), and follows the log again once the server is
// restarted with it.
func TestBinlogLostOnRestart(t *testing.T) {
	srv := testdb.NewServer(t)
	dsn, raw := testdb.LoadOn(t, srv.DSN(), jobsShop())
	r := startFaulty(t, dsn, "CATALOG_CHANGES=auto", "CATALOG_POLL_INTERVAL=100ms")
	r.waitReadyz(t, http.StatusOK, 10*time.Second)
	r.waitBaseline(t)
	r.readyzSays(t, 5*time.Second, "changes: binlog (")

	srv.Restart(t, false)
	editPrice(t, raw, "police-radar", "51")
	r.waitPrice(t, "police-radar", "51.00", 30*time.Second)
	body := r.readyzSays(t, 5*time.Second, "changes: poll (", "log_bin is OFF")
	t.Logf("/readyz without the binary log: %s", body)
	if m := r.metricsOf(t); m["catalogd_change_feed_blind_total"] != 1 {
		t.Errorf("catalogd_change_feed_blind_total = %v, want 1", m["catalogd_change_feed_blind_total"])
	}
	if log := r.Stderr.String(); !strings.Contains(log, "the binary log cannot show every change") ||
		!strings.Contains(log, "log_bin is OFF") {
		t.Errorf("the log does not say the binary log is gone:\n%s", log)
	}

	srv.Restart(t, true)
	r.readyzSays(t, 3*follow.BinlogRecheck, "changes: binlog (")
	editPrice(t, raw, "police-radar", "52")
	r.waitPrice(t, "police-radar", "52.00", 5*time.Second)
}
