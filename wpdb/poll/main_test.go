package poll

import (
	"os"
	"testing"

	"catalogd/internal/testdb"
)

// TestMain ends the output with a loud line when tests skipped for lack of
// a database (testdb.Run).
func TestMain(m *testing.M) {
	os.Exit(testdb.Run(m))
}
