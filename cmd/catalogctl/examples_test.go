package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
)

// shownShop is the base URL the help's examples use for "your shop"; the
// test points it at the demo.
const shownShop = "https://shop.example/wp-json/shop/v1"

// Every example the help shows, catalogctl's own and each command's, runs
// as printed against a catalogd serving the demo shop (make demo's data):
// exit 0, nothing on stderr, and output on stdout or in the file it is
// redirected to. A shell runs each, so pipes and redirections are part of
// what is tried; catalogctl is on its PATH, as make install puts it.
func TestHelpExamplesRun(t *testing.T) {
	for _, tool := range []string{"bash", "jq"} { // .ci/run installs jq: an example pipes into it
		if _, err := exec.LookPath(tool); err != nil {
			testdb.Lacking(t, "%s, to run the help's examples: %v", tool, err)
		}
	}
	base := startDemo(t)
	env := proctest.Environ("CATALOG_BASE_URL="+base,
		"PATH="+filepath.Dir(ctlBinary)+string(os.PathListSeparator)+os.Getenv("PATH"))

	helps := [][]string{{"--help"}}
	for _, c := range commands {
		if c.name != "help" {
			helps = append(helps, []string{c.name, "--help"})
		}
	}
	var examples []string
	seen := map[string]bool{}
	for _, h := range helps {
		r := ctl(t, env, h...)
		r.expect(t, 0, []string{"Examples:"}, nil)
		_, after, _ := strings.Cut(r.stdout, "\nExamples:\n")
		for _, l := range strings.Split(after, "\n") {
			if strings.TrimSpace(l) == "" {
				break
			}
			if ex := strings.TrimSpace(l); !seen[ex] {
				seen[ex] = true
				examples = append(examples, ex)
			}
		}
	}
	if len(examples) < 8 {
		t.Fatalf("found %d examples in the help: %q", len(examples), examples)
	}
	for _, ex := range examples {
		t.Run(ex, func(t *testing.T) {
			line := strings.ReplaceAll(ex, shownShop, base)
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", line)
			cmd.Dir, cmd.Env = dir, env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", line, err, stdout.String(), stderr.String())
			}
			if stderr.Len() > 0 {
				t.Errorf("stderr:\n%s", stderr.String())
			}
			written := 0
			files, _ := os.ReadDir(dir)
			for _, f := range files {
				if info, err := f.Info(); err == nil {
					written += int(info.Size())
				}
			}
			if stdout.Len() == 0 && written == 0 {
				t.Errorf("%s printed nothing and wrote nothing", line)
			}
		})
	}
}
