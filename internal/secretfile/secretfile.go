// Package secretfile reads a secret kept in a file that is rotated in
// place — Kubernetes swaps the symlink behind a mounted secret, systemd
// and Vault agents rewrite a credential file — and says when it changed,
// so that its readers take a rotated secret without a restart: a look is
// one stat, and the file is read again when it is another file, or its
// size or modification time moved.
package secretfile

import (
	"fmt"
	"os"
	"strings"
)

// Read is the file's content without the spaces and line ends around it;
// an empty file is an error. Its errors never quote the content.
func Read(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(string(b))
	if v == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return v, nil
}

// Look stats the file at path and says whether it is still the one read,
// whose stat was read (nil: none read yet). When it is not, now is its
// stat, or the error of taking it, for the read that follows: taken
// before the read, so that a file changed in between is read again at the
// next look.
func Look(path string, read os.FileInfo) (now os.FileInfo, same bool, err error) {
	now, err = os.Stat(path)
	same = err == nil && read != nil && os.SameFile(now, read) && now.Size() == read.Size() &&
		now.ModTime().Equal(read.ModTime())
	return now, same, err
}
