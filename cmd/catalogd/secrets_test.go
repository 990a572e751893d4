package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/testdb"
	"catalogd/internal/testnet"
)

// The database password, and the hash of it MariaDB prints in SHOW GRANTS,
// never reach a log line, a metric or a response.

// noSecret fails the test when text holds one of the secrets, in any case.
func noSecret(t *testing.T, what, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(strings.ToLower(text), strings.ToLower(s)) {
			t.Errorf("secret %q found in %s:\n%s", s, what, text)
		}
	}
}

func TestDSNTheDriverWouldMisreadStopsStartUp(t *testing.T) {
	const secret = "s3cr3t-Pa55"
	for _, tt := range []struct{ name, dsn string }{
		// Without @tcp the driver takes "catalog:secret" for a network
		// name and prints it in every dial error: in the start-up warning,
		// each 503's log line and /readyz.
		{"no @tcp", "catalog:" + secret + "(127.0.0.1:1)/wordpress"},
		// The driver's own parse error quotes "catalog:secret".
		{"no @", "catalog:" + secret + "/wordpress"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := start(t, testnet.Environ("CATALOG_DSN="+tt.dsn, "CATALOG_LISTEN="+testnet.FreeAddr(t),
				"CATALOG_ADMIN_LISTEN="+testnet.FreeAddr(t)))
			if code := p.wait(t, 10*time.Second); code == 0 {
				t.Errorf("exit code 0, want non-zero")
			}
			out := p.stderr.String()
			if !strings.Contains(out, "CATALOG_DSN") || !strings.Contains(out, "@tcp") {
				t.Errorf("stderr does not name CATALOG_DSN and the missing @tcp:\n%s", out)
			}
			noSecret(t, "stderr", out, secret)
			noSecret(t, "stdout", p.stdout.String(), secret)
		})
	}
}

// A user that can write is warned about at start-up, then its password
// changes under a running catalogd: requests keep answering from the
// snapshot in memory, /readyz says the login is refused, the poller's
// refused reads are logged, and none of it — log lines, /readyz, /metrics,
// bodies — shows the password or its hash.
func TestPasswordAndHashNeverShow(t *testing.T) {
	dsn, _ := testdb.Load(t, newShop())
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u := testdb.NewUser(t, dsn, "INSERT ON *.*", "SELECT ON `"+cfg.DBName+"`.*")
	// At debug level the log says the most it can: every read the poller
	// fails. No origin cache: every answer is computed again.
	r := startFaulty(t, u.DSN, "CATALOG_CACHE_TTL=0", "CATALOG_POLL_INTERVAL=100ms", "CATALOG_LOG_LEVEL=debug")
	var seen []string // every body a client or operator was given
	get := func(url string, want int) answer {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			a := r.fetch(url)
			if a.err == nil && a.status == want {
				seen = append(seen, url+":\n"+string(a.body))
				return a
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %s: %d %v, want %d; stderr:\n%s", url, a.status, a.err, want, r.stderr.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	get(r.admin+"/readyz", http.StatusOK)
	r.waitBaseline(t)
	before := r.answers(t, servedPaths)
	if !strings.Contains(r.stderr.String(), "the database user can write") {
		t.Errorf("no warning about the write grants; stderr:\n%s", r.stderr.String())
	}

	u.ChangePassword(t)
	if a := get(r.admin+"/readyz", http.StatusServiceUnavailable); !strings.Contains(string(a.body), "Access denied") {
		t.Errorf("/readyz does not say the login is refused: %s", a.body)
	}
	// The poller meets the refused login at its next tick.
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(r.stderr.String(), "Access denied") {
		if time.Now().After(deadline) {
			t.Fatalf("the refused login is not logged 5s after the password changed; stderr:\n%s", r.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, p := range servedPaths {
		a := r.fetch(r.api + p)
		if a.err != nil || a.status != before[p].status || !bytes.Equal(a.body, before[p].body) {
			t.Errorf("%s with the login refused: %d %v %.300s, want the answer of before (%d)", p, a.status, a.err,
				a.body, before[p].status)
		}
		seen = append(seen, p+":\n"+string(a.body))
	}
	get(r.admin+"/metrics", http.StatusOK)
	noSecret(t, "stderr", r.stderr.String(), u.Password, u.Hash)
	noSecret(t, "stdout", r.stdout.String(), u.Password, u.Hash)
	noSecret(t, "the responses", strings.Join(seen, "\n"), u.Password, u.Hash)
}
