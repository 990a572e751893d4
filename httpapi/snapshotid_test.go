package httpapi_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Two builds that answer otherwise send other identities, and their
// --version lines differ, even built as deploy/Dockerfile builds catalogd:
// its context leaves .git out and nothing is stamped, so every image says
// "devel (commit unknown)", and a new release starting beside the old one
// must not take the edge's old answers for its own. The two builds of
// testdata/buildvariant differ in one variable set at link time.
func TestIdentityNamesTheBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program twice")
	}
	dir := t.TempDir()
	run := func(variant string) []string {
		t.Helper()
		bin := filepath.Join(dir, variant)
		// As deploy/Dockerfile: no cgo, -trimpath, -s -w, and no
		// repository to stamp from (.dockerignore leaves .git out).
		build := exec.Command("go", "build", "-trimpath", "-buildvcs=false",
			"-ldflags=-s -w -X main.variant="+variant, "-o", bin, "./testdata/buildvariant")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 3 || lines[0] != "variant "+variant {
			t.Fatalf("%s printed %q, want its variant, its version line and an identity", variant, out)
		}
		return lines[1:]
	}
	a, b := run("a"), run("b")
	if !strings.Contains(a[0], "devel (commit unknown, ") {
		t.Fatalf("the build was stamped after all: %q", a[0])
	}
	if a[0] == b[0] {
		t.Errorf("two builds that answer otherwise say the same version line: %q", a[0])
	}
	if a[1] == b[1] {
		t.Errorf("two builds that answer otherwise send the same identity %s from the same digest and shape", a[1])
	}
	again := run("a")
	if again[1] != a[1] {
		t.Errorf("the same build sends identity %s, then %s", a[1], again[1])
	}
}
