// Package monitoring holds the alert rules (catalogd.rules.yml, and the
// same as a PrometheusRule), their promtool unit tests, the Grafana
// dashboard, and the list of the series a running catalogd exports. Its
// tests run Debian's promtool on the rules, and Debian's Prometheus against
// a real catalogd, on a private MariaDB with a binary log, with the rules
// loaded.
package monitoring_test

import (
	"os"
	"testing"

	"catalogd/internal/testdb"
)

// catalogdBin is the catalogd built for these tests, by TestMain.
var catalogdBin string

func TestMain(m *testing.M) {
	os.Exit(testdb.RunBuilt(m, map[string]string{"catalogd": "catalogd/cmd/catalogd"},
		func(bins map[string]string) { catalogdBin = bins["catalogd"] }))
}
