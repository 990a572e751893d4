// Package buildinfo says which build of catalogd and catalogctl is
// running: the version and commit make build and make install stamp with
// -ldflags -X, or else what the go command recorded in the binary.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Stamped at link time by the Makefile:
//
//	-X catalogd/internal/buildinfo.version=$(git describe --always --dirty)
//	-X catalogd/internal/buildinfo.commit=$(git rev-parse HEAD)
var version, commit string

// Version is the stamped version; without one, the module version the go
// command recorded (go install module@version), or "devel".
func Version() string {
	if version != "" {
		return version
	}
	return recordedVersion(debug.ReadBuildInfo())
}

// Commit is the stamped commit; without one, the revision the go command
// recorded from the checkout it built in (vcs.revision, with -dirty when
// the tree had changes), or "unknown" (go run, go test, -buildvcs=false).
func Commit() string {
	if commit != "" {
		return commit
	}
	return recordedCommit(debug.ReadBuildInfo())
}

// recordedVersion is Version from what the go command recorded (ok:
// anything).
func recordedVersion(bi *debug.BuildInfo, ok bool) string {
	if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// recordedCommit is Commit from what the go command recorded.
func recordedCommit(bi *debug.BuildInfo, ok bool) string {
	if !ok {
		return "unknown"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev == "" {
		return "unknown"
	}
	return rev + dirty
}

// String is the line --version prints: "catalogd v1.2.0 (commit 1a2b3c…,
// go1.26.8, build 9f86d0…)"; build is Hash, which tells two images apart
// that were built without a version.
func String(program string) string {
	return program + " " + Version() + " (commit " + Commit() + ", " + runtime.Version() + ", build " + Hash() + ")"
}
