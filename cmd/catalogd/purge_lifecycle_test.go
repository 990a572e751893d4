package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
)

// productTag is the purge tag of the product with the slug.
func productTag(t *testing.T, raw *sql.DB, slug string) string {
	t.Helper()
	var id int64
	if err := raw.QueryRow(`SELECT ID FROM wp_posts WHERE post_name = ?`, slug).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("shop-product-%d", id)
}

// A replica stopped for good (SIGTERM) sends the purges still waiting
// before it exits, instead of taking them with it: here Cloudflare's
// interval (10 minutes) keeps the start's kinds and an edit's tag waiting
// when catalogd is told to stop.
func TestPendingPurgesSentAtStop(t *testing.T) {
	dsn, raw := testdb.Load(t, jobsShop())
	token := newToken(t, 40)
	api := newCDNStandIn(t, "cloudflare", token)
	r := startFaulty(t, dsn, append(api.env(), "CATALOG_CHANGES=poll", "CATALOG_POLL_INTERVAL=100ms",
		"CATALOG_PURGE_CLOUDFLARE_TOKEN="+token, "CATALOG_PURGE_CLOUDFLARE_INTERVAL=10m")...)
	r.waitBaseline(t)
	pending := func() float64 { return r.metricsOf(t)["catalogd_edge_purge_pending_tags"] }
	r.poll(t, 5*time.Second, "the start's kinds not waiting", func() bool { return pending() > 0 })
	kinds := pending()
	tag := productTag(t, raw, "police-radar")
	editPrice(t, raw, "police-radar", "33")
	r.poll(t, 5*time.Second, "the edit's tags not waiting", func() bool { return pending() > kinds })
	if n := len(api.requests()); n != 0 {
		t.Fatalf("%d purges sent within the 10-minute interval", n)
	}

	stopped := time.Now()
	r.Stop(30 * time.Second)
	if code := r.exitCode(t, time.Second); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	if !api.purgedWith(token, append(kindTags, tag)...) {
		t.Errorf("purged before the exit: %+v; want the kinds %v and %s", api.requests(), kindTags, tag)
	}
	if bad := api.malformed(); len(bad) > 0 {
		t.Errorf("requests Cloudflare's API would refuse: %q", bad)
	}
	if !strings.Contains(r.Stderr.String(), "sending the tags waiting before exit") {
		t.Errorf("the log does not say the waiting tags were sent:\n%s", r.Stderr.String())
	}
	t.Logf("stopped %v after SIGTERM", time.Since(stopped).Round(time.Millisecond))
}

// A token file rotated in place is sent from the next purge on, without a
// restart: first as a Kubernetes secret volume swaps its symlink, then as
// systemd or an agent rewrites the file itself. The API (a stand-in for
// Fastly's) takes only the newest token, as a rotation revokes the old.
func TestTokenFileRotatedWithoutRestart(t *testing.T) {
	dsn, raw := testdb.Load(t, jobsShop())
	tokens := []string{newToken(t, 32), newToken(t, 32), newToken(t, 36)}
	volume, err := proctest.NewSecretVolume(t.TempDir(), "fastly-token", tokens[0]+"\n")
	if err != nil {
		t.Fatal(err)
	}
	api := newCDNStandIn(t, "fastly", tokens[0])
	r := startFaulty(t, dsn, append(api.env(), "CATALOG_CHANGES=poll", "CATALOG_POLL_INTERVAL=100ms",
		"CATALOG_PURGE_FASTLY_TOKEN_FILE="+volume.Path())...)
	r.waitBaseline(t)
	r.poll(t, 5*time.Second, "no purge by kind at start", func() bool { return api.purgedWith(tokens[0], kindTags...) })

	rotations := []struct {
		how    string
		rotate func(token string) error
	}{
		{"the secret volume's symlink swapped", func(token string) error { return volume.Update(token + "\n") }},
		{"the file rewritten in place", func(token string) error {
			// Through the link: the file the volume's current version holds.
			target, err := filepath.EvalSymlinks(volume.Path())
			if err != nil {
				return err
			}
			return os.WriteFile(target, []byte(token+"\n"), 0o600)
		}},
	}
	tag := productTag(t, raw, "police-radar")
	for i, rot := range rotations {
		token := tokens[i+1]
		if err := rot.rotate(token); err != nil {
			t.Fatal(err)
		}
		api.take(token)
		editPrice(t, raw, "police-radar", fmt.Sprint(40+i))
		r.poll(t, 5*time.Second, rot.how+": the edit not purged with the new token", func() bool {
			return api.purgedWith(token, tag)
		})
	}
	if _, body := r.waitReadyz(t, 200, 5*time.Second); !strings.Contains(body, "purge fastly: ok") {
		t.Errorf("/readyz does not say the Fastly target is ok:\n%s", body)
	}
	if n := strings.Count(r.Stderr.String(), "the token file changed"); n != len(rotations) {
		t.Errorf("%d lines say the token file changed, want %d:\n%s", n, len(rotations), r.Stderr.String())
	}
	for _, token := range tokens {
		if leaks := proctest.Leaks(r.Stderr.String(), token); len(leaks) > 0 {
			t.Errorf("the log holds part of a token: %q", leaks[0])
		}
	}
}
