package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime"
	"sync"
)

// Hash names the build by its bytes: the first 12 bytes, in hex, of the
// SHA-256 of the running executable. Version and Commit say nothing of an
// image built without the repository (deploy/Dockerfile's context leaves
// .git out, and nothing is stamped): every such build is "devel, commit
// unknown", and two releases would look alike to the start-up purge,
// which compares identities (docs/edge-purge.md). Any change to the code,
// a constant or a link flag changes the bytes. "unknown" when the
// executable cannot be read.
func Hash() string { return exeHash() }

// exeHash reads the executable once, at the first call: catalogd asks at
// start (its build_info metric), before an upgrade could replace the file.
var exeHash = sync.OnceValue(func() string {
	h, err := hashFile(executable())
	if err != nil {
		return "unknown"
	}
	return h
})

// executable is the running program's file. On Linux /proc/self/exe is
// the file this process runs even after a package upgrade replaced the
// path it was started from, which os.Executable would name instead.
func executable() string {
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/proc/self/exe"); err == nil {
			return "/proc/self/exe"
		}
	}
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	return p
}

// hashFile is Hash of the file at path.
func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)[:12]), nil
}
