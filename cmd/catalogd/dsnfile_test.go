package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
)

// A DSN file rotated with the database's password lets catalogd in again
// without a restart: the password changes in the database (its sessions
// ended, as a rotation revokes the old), then in the file, first as a
// Kubernetes secret volume swaps its symlink, then as an agent rewrites
// the file itself; each time the shop's next edit shows, which takes new
// connections, and no password is in the log.
func TestDSNFileRotatedWithoutRestart(t *testing.T) {
	dsn, raw := testdb.Load(t, jobsShop())
	u := testdb.NewReader(t, dsn)
	volume, err := proctest.NewSecretVolume(t.TempDir(), "dsn", u.DSN+"\n")
	if err != nil {
		t.Fatal(err)
	}
	r := startFaulty(t, "", "CATALOG_DSN_FILE="+volume.Path(), "CATALOG_CHANGES=poll", "CATALOG_POLL_INTERVAL=100ms")
	r.waitReadyz(t, http.StatusOK, 20*time.Second)
	r.waitBaseline(t)

	// The secret volume's symlink swapped, then the file rewritten in place.
	rotations := []func(content string) error{volume.Update, volume.Rewrite}
	secrets := []string{u.Password, u.Hash}
	for i, rotate := range rotations {
		now := u.ChangePassword(t)
		secrets = append(secrets, now.Password, now.Hash)
		if err := rotate(now.DSN + "\n"); err != nil {
			t.Fatal(err)
		}
		price := fmt.Sprint(50 + i)
		editPrice(t, raw, "police-radar", price)
		r.waitPrice(t, "police-radar", price+".00", 30*time.Second)
		r.waitReadyz(t, http.StatusOK, 10*time.Second)
	}
	if n := strings.Count(r.Stderr.String(), "the DSN file changed"); n != len(rotations) {
		t.Errorf("%d lines say the DSN file changed, want %d:\n%s", n, len(rotations), r.Stderr.String())
	}
	noSecret(t, "stderr", r.Stderr.String(), secrets...)
	noSecret(t, "stdout", r.Stdout.String(), secrets...)
}
