package config

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --dsn-file (CATALOG_DSN_FILE) gives the DSN in a file, trimmed, instead
// of --dsn; never both. A file that cannot be read or holds no valid DSN
// stops start-up, naming the setting and never quoting the file.
func TestDSNFile(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := file("good", "  "+goodDSN+"\n")
	for _, how := range []struct {
		name string
		args []string
		env  func(string) string
	}{
		{"by flag", []string{"--dsn-file", good}, env()},
		{"by variable", nil, env("CATALOG_DSN_FILE", good)},
	} {
		c, err := Load(how.args, how.env, io.Discard)
		if err != nil || c.DSN != goodDSN || c.DSNFile != good {
			t.Errorf("%s: DSN %q, file %q, %v; want the file's DSN, trimmed", how.name, c.DSN, c.DSNFile, err)
		}
	}

	tests := []struct {
		name string
		args []string
		env  func(string) string
		want []string // each in the one line of the error
	}{
		{"with --dsn", []string{"--dsn-file", good, "--dsn", goodDSN}, env(),
			[]string{"--dsn (CATALOG_DSN) and --dsn-file (CATALOG_DSN_FILE) are both set"}},
		{"with CATALOG_DSN", nil, env("CATALOG_DSN_FILE", good, "CATALOG_DSN", goodDSN),
			[]string{"--dsn (CATALOG_DSN) and --dsn-file (CATALOG_DSN_FILE) are both set"}},
		{"missing", []string{"--dsn-file", filepath.Join(dir, "missing")}, env(),
			[]string{"--dsn-file (CATALOG_DSN_FILE): open ", "no such file"}},
		{"empty", []string{"--dsn-file", file("empty", "\n")}, env(), []string{"--dsn-file (CATALOG_DSN_FILE): ", "is empty"}},
		{"no valid DSN", []string{"--dsn-file", file("bad", "catalog:s3cret(127.0.0.1:3306)/wordpress")}, env(),
			[]string{"--dsn-file (CATALOG_DSN_FILE): the DSN in ", "is the @tcp missing?"}},
	}
	for _, tt := range tests {
		_, err := Load(tt.args, tt.env, io.Discard)
		var u *UsageError
		if !errors.As(err, &u) || len(u.Problems) != 1 {
			t.Errorf("%s: %v, want one problem", tt.name, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(u.Problems[0], w) {
				t.Errorf("%s: %q lacks %q", tt.name, u.Problems[0], w)
			}
		}
		if strings.Contains(u.Problems[0], "s3cret") {
			t.Errorf("%s: the error quotes the DSN: %q", tt.name, u.Problems[0])
		}
	}
}
