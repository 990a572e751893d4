package deploy

import (
	"regexp"
	"testing"
	"time"

	"catalogd/config"
)

// checkStopTimeout: systemd kills catalogd TimeoutStopSec after SIGTERM,
// later than the drain (the unit's, or the default) and the stop's grace
// together.
func checkStopTimeout(t *testing.T, unit string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^TimeoutStopSec=(\S+)$`).FindStringSubmatch(unit)
	if m == nil {
		t.Fatal("catalogd.service sets no TimeoutStopSec: systemd's default is 90s, or whatever the host says")
	}
	kill, err := time.ParseDuration(m[1])
	if err != nil {
		t.Fatalf("TimeoutStopSec=%s: %v", m[1], err)
	}
	drain := config.DefaultShutdownDrain
	if d := regexp.MustCompile(`(?m)^Environment=CATALOG_SHUTDOWN_DRAIN=(\S+)$`).FindStringSubmatch(unit); d != nil {
		if drain, err = time.ParseDuration(d[1]); err != nil {
			t.Fatalf("CATALOG_SHUTDOWN_DRAIN=%s: %v", d[1], err)
		}
	}
	if kill <= drain+config.ShutdownGrace {
		t.Errorf("catalogd.service: TimeoutStopSec=%s, not past the drain %v and the stop's grace %v", m[1], drain, config.ShutdownGrace)
	}
}
