package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"catalogd/internal/proctest"
)

// The command line as a user meets it: --help and --version succeed on
// stdout; a mistake in a flag or its variable is one line on stderr naming
// the setting, the value and what it expects, and exits 2, with no usage
// dump around it.
func TestCommandLine(t *testing.T) {
	tests := []struct {
		name       string
		args, env  []string
		code       int
		stdout     []string // each must show
		stderrLine string   // the one line on stderr, exactly
	}{
		{name: "--help", args: []string{"--help"}, code: 0,
			stdout: []string{"Usage: catalogd [check | healthcheck] [flags]", "-dsn", "[CATALOG_DSN]", "-version"}},
		{name: "-h", args: []string{"-h"}, code: 0, stdout: []string{"Usage: catalogd [check | healthcheck] [flags]"}},
		{name: "--version", args: []string{"--version"}, code: 0, stdout: []string{"catalogd ", "(commit ", ", build "}},
		{name: "bad flag value", args: []string{"--query-timeout", "fast"}, env: []string{"CATALOG_DSN=catalog:pw@tcp(127.0.0.1:1)/wp"}, code: 2,
			stderrLine: `catalogd: --query-timeout (CATALOG_QUERY_TIMEOUT): "fast" is not a valid value: want a duration like 5s or 500ms (see catalogd --help)`},
		{name: "bad variable value", env: []string{"CATALOG_DSN=catalog:pw@tcp(127.0.0.1:1)/wp", "CATALOG_DB_MAX_OPEN=many"}, code: 2,
			stderrLine: `catalogd: --db-max-open (CATALOG_DB_MAX_OPEN): "many" is not a valid value: want a whole number (see catalogd --help)`},
		{name: "unknown flag", args: []string{"--nope"}, code: 2,
			stderrLine: `catalogd: unknown flag --nope: catalogd has no such setting (see catalogd --help)`},
		{name: "out of range", args: []string{"--namespace", "Bad!"}, env: []string{"CATALOG_DSN=catalog:pw@tcp(127.0.0.1:1)/wp"}, code: 2,
			stderrLine: `catalogd: --namespace (CATALOG_NAMESPACE): want 1 to 32 lowercase letters, digits or hyphens (like shop), got "Bad!" (see catalogd --help)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binary, tt.args...)
			cmd.Env = proctest.Environ(tt.env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			for _, w := range tt.stdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			if got := strings.TrimSuffix(stderr.String(), "\n"); got != tt.stderrLine {
				t.Errorf("stderr:\n%s\nwant the one line:\n%s", got, tt.stderrLine)
			}
		})
	}
}
