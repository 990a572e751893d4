package binlog

import (
	"os"
	"testing"

	"catalogd/internal/testdb"
)

// TestMain stops the private MariaDB the binary log tests start.
func TestMain(m *testing.M) {
	code := testdb.Run(m)
	testdb.StopServers()
	os.Exit(code)
}
