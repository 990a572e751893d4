package purge

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"catalogd/internal/proctest"
)

// rotatingFastly is a stand-in for Fastly's API (see cdn_test.go) whose
// valid token changes, as a rotation at Fastly revokes the old one: it
// answers 401 with Fastly's message to any other.
type rotatingFastly struct {
	*standIn
	mu    sync.Mutex
	valid string
}

func newRotatingFastly(t *testing.T, valid string) *rotatingFastly {
	t.Helper()
	f := &rotatingFastly{valid: valid}
	f.standIn = newStandIn(t, func(_ int, r recorded, w http.ResponseWriter) {
		f.mu.Lock()
		ok := r.Header.Get("Fastly-Key") == f.valid
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"msg":"Provided credentials are missing or invalid","detail":""}`)
			return
		}
		fmt.Fprint(w, `{"shop-product-1":"108-1391560174-0"}`)
	})
	return f
}

func (f *rotatingFastly) rotate(valid string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.valid = valid
}

// keys are the Fastly-Key of every request received, in order.
func (f *rotatingFastly) keys() []string {
	var out []string
	for _, r := range f.requests() {
		out = append(out, r.Header.Get("Fastly-Key"))
	}
	return out
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A token file rotated in place — rewritten (systemd, an agent), or its
// symlink swapped (a Kubernetes secret volume) — is sent from the next
// purge on, without a restart; when the rotation leaves the file's stat as
// it was, the API's 401 reads it again, and the purge goes through.
func TestTokenFileRotated(t *testing.T) {
	const old = "fastly-old-0123456789abcdef"
	var volume *proctest.SecretVolume
	tests := []struct {
		name    string
		rotated string
		layout  func(t *testing.T, dir string) string   // writes old, returns the path to configure
		rotate  func(t *testing.T, dir, rotated string) // puts rotated in its place
		keys    int                                     // requests after the rotation: 1, or 2 when the 401 reads the file
	}{
		{"rewritten in place", "fastly-new-0123456789abcdef-longer", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "token")
			writeFile(t, path, old+"\n")
			return path
		}, func(t *testing.T, dir, rotated string) {
			writeFile(t, filepath.Join(dir, "token"), rotated+"\n")
		}, 1},
		{"a Kubernetes secret volume's symlink swapped", "fastly-new-fedcba9876543210", func(t *testing.T, dir string) string {
			v, err := proctest.NewSecretVolume(dir, "token", old)
			if err != nil {
				t.Fatal(err)
			}
			volume = v
			return v.Path()
		}, func(t *testing.T, _, rotated string) {
			if err := volume.Update(rotated); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"rewritten with its size and time kept: the 401 reads it", "fastly-new-fedcba9876543210", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "token")
			writeFile(t, path, old)
			return path
		}, func(t *testing.T, dir, rotated string) {
			path := filepath.Join(dir, "token")
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, path, rotated)
			if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tt.layout(t, dir)
			api := newRotatingFastly(t, old)
			clock := newFakeClock()
			token, logs := tokenFile(t, path)
			p, _ := run(t, clock, Options{}, NewFastly(api.URL, fastlyService, token, false, nil))
			p.Add([]string{"shop-product-1"}, clock.Now())
			step(t, clock, FastlyInterval)
			eventually(t, "the first purge acknowledged", func() bool { return !p.Status()[0].LastOK.IsZero() })

			tt.rotate(t, dir, tt.rotated)
			api.rotate(tt.rotated)
			p.Add([]string{"shop-product-2"}, clock.Now())
			step(t, clock, FastlyInterval)
			eventually(t, "a purge after the rotation", func() bool {
				s := p.Status()[0]
				return s.LastOK.Equal(clock.Now()) || s.LastErr != ""
			})
			if s := p.Status()[0]; s.LastErr != "" {
				t.Fatalf("after the rotation: %s; keys sent %q", s.LastErr, api.keys())
			}
			want := []string{old, tt.rotated}
			if tt.keys == 2 {
				want = []string{old, old, tt.rotated}
			}
			if keys := api.keys(); !slices.Equal(keys, want) {
				t.Errorf("keys sent %q, want %q", keys, want)
			}
			if !strings.Contains(logs.String(), "the token file changed") {
				t.Errorf("the log does not say the token changed:\n%s", logs.String())
			}
			if strings.Contains(logs.String(), old) || strings.Contains(logs.String(), tt.rotated) {
				t.Errorf("a token in the log:\n%s", logs.String())
			}
		})
	}
}

// tokenFile is TokenFile logging to the buffer it returns.
func tokenFile(t *testing.T, path string) (*Token, *proctest.SyncBuffer) {
	t.Helper()
	logs := &proctest.SyncBuffer{}
	token, err := TokenFile(path, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return token, logs
}

// A token file that cannot be read again (gone for a moment, emptied
// half-way through a rewrite) leaves the token read before in use, and the
// log says so once; the file back, its token is sent.
func TestTokenFileUnreadableKeepsTheLastToken(t *testing.T) {
	const first, second = "fastly-first-0123456789", "fastly-second-987654321"
	path := filepath.Join(t.TempDir(), "token")
	writeFile(t, path, first)
	token, logs := tokenFile(t, path)
	api := newRotatingFastly(t, first)
	clock := newFakeClock()
	p, _ := run(t, clock, Options{}, NewFastly(api.URL, fastlyService, token, false, nil))
	purge := func(tag string) {
		t.Helper()
		n := api.count()
		p.Add([]string{tag}, clock.Now())
		step(t, clock, FastlyInterval)
		eventually(t, "the purge sent", func() bool { return api.count() > n && p.Status()[0].LastOK.Equal(clock.Now()) })
	}
	for _, broken := range []func(){
		func() { os.Remove(path) },
		func() { writeFile(t, path, "") },
		func() { writeFile(t, path, "half written\x00") },
	} {
		broken()
		purge("shop-product-1")
		purge("shop-product-2")
	}
	if keys := api.keys(); strings.Join(keys, " ") != strings.TrimSpace(strings.Repeat(first+" ", 6)) {
		t.Errorf("keys sent %q, want the first token each time", keys)
	}
	if n := strings.Count(logs.String(), "cannot be read again"); n != 3 {
		t.Errorf("%d lines say the file cannot be read, want one per problem:\n%s", n, logs.String())
	}
	writeFile(t, path, second)
	api.rotate(second)
	purge("shop-product-3")
	if keys := api.keys(); keys[len(keys)-1] != second {
		t.Errorf("keys sent %q, want the file's new token last", keys)
	}
	if strings.Contains(logs.String(), first) || strings.Contains(logs.String(), second) {
		t.Errorf("a token in the log:\n%s", logs.String())
	}
}
