package purge

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"

	"catalogd/internal/secretfile"
)

// Token is a CDN's API token as a target sends it: a fixed value (from the
// environment), or a file's content. Secrets are rotated in place —
// Kubernetes swaps the symlink behind a mounted secret, systemd and
// Vault agents rewrite a credential file — so a file is looked at (one
// stat) before each request, and read again when it is another file, or
// its size or modification time moved: a rotated token is sent without a
// restart. A 401 or 403 reads it again whatever the stat says.
type Token struct {
	path string // "": a fixed value
	log  *slog.Logger

	mu      sync.Mutex
	value   string
	read    os.FileInfo // the file as it was when last read
	problem string      // the last failure to read it again, said once
}

// FixedToken is a token that never changes.
func FixedToken(value string) *Token { return &Token{value: value} }

// TokenFile is the token in the file at path, read now; log says when it
// changes or cannot be read again.
func TokenFile(path string, log *slog.Logger) (*Token, error) {
	if log == nil {
		log = slog.Default()
	}
	t := &Token{path: path, log: log}
	fi, err := os.Stat(path)
	if err == nil {
		t.value, err = ReadTokenFile(path)
	}
	if err != nil {
		return nil, err
	}
	t.read = fi
	return t, nil
}

// ReadTokenFile reads a token from a file: its content without the spaces
// and line ends around it, checked by CheckToken. Its errors never quote
// the content.
func ReadTokenFile(path string) (string, error) {
	v, err := secretfile.Read(path)
	if err != nil {
		return "", err
	}
	if err := CheckToken(v); err != nil {
		return "", fmt.Errorf("the token in %s %w", path, err)
	}
	return v, nil
}

// errTokenChars is CheckToken's refusal.
var errTokenChars = errors.New("holds a space or control character; it would break the request's header")

// CheckToken says whether a token can be sent in a header: no space or
// control character. The error names the rule, never the token.
func CheckToken(v string) error {
	if strings.IndexFunc(v, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return errTokenChars
	}
	return nil
}

// Value is the token to send now: the file's, read again when it changed
// since it was last read. When it cannot be read (a rotation half done,
// the file gone), the token read before stays, and the log says why once.
func (t *Token) Value() string {
	if t.path == "" {
		return t.value
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if fi, same, err := secretfile.Look(t.path, t.read); !same {
		t.reload(fi, err)
	}
	return t.value
}

// Reread reads the file again whatever its stat says — the API refused
// the token, which a rotation the stat cannot see explains — and says
// whether the token changed. A fixed token never does.
func (t *Token) Reread() (string, bool) {
	if t.path == "" {
		return t.value, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.value
	fi, err := os.Stat(t.path)
	t.reload(fi, err)
	return t.value, t.value != old
}

// reload reads the file whose stat (or its error) was just taken; t.mu is
// held. The stat is taken before the read: a file changed in between is
// read again at the next look.
func (t *Token) reload(fi os.FileInfo, err error) {
	var v string
	if err == nil {
		v, err = ReadTokenFile(t.path)
	}
	if err != nil {
		if msg := err.Error(); msg != t.problem {
			t.problem = msg
			t.log.Warn("edge purge: the token file cannot be read again; the token read before is sent meanwhile",
				"file", t.path, "err", err)
		}
		return
	}
	t.problem = ""
	if v != t.value {
		t.log.Info("edge purge: the token file changed; the new token is sent from now on", "file", t.path)
	}
	t.value, t.read = v, fi
}
