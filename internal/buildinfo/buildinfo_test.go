package buildinfo

import (
	"runtime"
	"strings"
	"testing"
)

// A stamped build says what was stamped; an unstamped one still names a
// version and a commit, never an empty string.
func TestString(t *testing.T) {
	t.Cleanup(func() { version, commit = "", "" })
	version, commit = "v1.2.0-3-gabc1234-dirty", "abc1234def"
	if got, want := String("catalogd"), "catalogd v1.2.0-3-gabc1234-dirty (commit abc1234def, "+runtime.Version()+")"; got != want {
		t.Errorf("stamped: %q, want %q", got, want)
	}
	version, commit = "", ""
	if v, c := Version(), Commit(); v == "" || c == "" || strings.Contains(String("x"), "()") {
		t.Errorf("unstamped: version %q, commit %q", v, c)
	}
}
