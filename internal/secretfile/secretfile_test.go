package secretfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Read trims the content and refuses an empty file; Look says a file is
// the one read until it is rewritten, replaced or gone.
func TestReadAndLook(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "secret")
	write := func(p, content string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	write(path, "  s3cret\n", at)
	if v, err := Read(path); err != nil || v != "s3cret" {
		t.Fatalf("Read = %q, %v; want s3cret", v, err)
	}
	read, same, err := Look(path, nil)
	if err != nil || same {
		t.Fatalf("Look before any read = %v, %v; want a file to read", same, err)
	}
	other := filepath.Join(dir, "other")
	write(other, "  s3cret\n", at)
	tests := []struct {
		name   string
		change func()
		same   bool
	}{
		{"untouched", func() {}, true},
		{"rewritten, another size", func() { write(path, "s3cret-22\n", at) }, false},
		{"rewritten, the same size, a later time", func() { write(path, "s3cret-33\n", at.Add(time.Second)) }, false},
		{"another file renamed over it", func() { os.Rename(other, path) }, false},
		{"gone", func() { os.Remove(path) }, false},
	}
	for _, tt := range tests {
		tt.change()
		now, same, err := Look(path, read)
		if same != tt.same {
			t.Errorf("%s: Look says same %v, want %v (%v)", tt.name, same, tt.same, err)
		}
		if err == nil {
			read = now
		}
	}
	write(path, " \n", at)
	if _, err := Read(path); err == nil {
		t.Error("Read of a file of spaces: no error")
	}
}
