package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
)

// A stamped build says what was stamped.
func TestStamped(t *testing.T) {
	t.Cleanup(func() { version, commit = "", "" })
	version, commit = "v1.2.0-3-gabc1234-dirty", "abc1234def"
	if got, want := String("catalogd"), "catalogd v1.2.0-3-gabc1234-dirty (commit abc1234def, "+runtime.Version()+", build "+Hash()+")"; got != want {
		t.Errorf("stamped: %q, want %q", got, want)
	}
}

// An unstamped build says what the go command recorded: the module
// version of go install module@version, the checkout's revision (-dirty
// with changes), else devel and unknown.
func TestRecorded(t *testing.T) {
	t.Parallel()
	info := func(v string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "catalogd", Version: v}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	tests := []struct {
		name                 string
		bi                   *debug.BuildInfo
		ok                   bool
		wantVersion, wantRev string
	}{
		{"go install module@version", info("v1.3.0"), true, "v1.3.0", "unknown"},
		{"go build in a clean checkout", info("(devel)", "vcs.revision", "1a2b3c", "vcs.modified", "false"), true, "devel", "1a2b3c"},
		{"go build with changes", info("(devel)", "vcs.modified", "true", "vcs.revision", "1a2b3c"), true, "devel", "1a2b3c-dirty"},
		{"go test, go run, -buildvcs=false", info(""), true, "devel", "unknown"},
		{"no build information", nil, false, "devel", "unknown"},
	}
	for _, tt := range tests {
		if got := recordedVersion(tt.bi, tt.ok); got != tt.wantVersion {
			t.Errorf("%s: version %q, want %q", tt.name, got, tt.wantVersion)
		}
		if got := recordedCommit(tt.bi, tt.ok); got != tt.wantRev {
			t.Errorf("%s: commit %q, want %q", tt.name, got, tt.wantRev)
		}
	}
}

// Hash is the SHA-256 of the running executable's bytes (its first 12
// bytes in hex), the same at every call.
func TestHash(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if got, want := Hash(), hex.EncodeToString(sum[:12]); got != want || Hash() != got {
		t.Errorf("Hash() = %q, want %q, the test binary's", got, want)
	}
	if _, err := hashFile(filepath.Join(t.TempDir(), "gone")); err == nil {
		t.Error("hashFile of a missing file: no error")
	}
}
