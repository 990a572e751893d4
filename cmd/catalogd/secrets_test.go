package main

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/testdb"
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
			p := launch(t, tt.dsn)
			if code := p.exitCode(t, 10*time.Second); code == 0 {
				t.Errorf("exit code 0, want non-zero")
			}
			out := p.Stderr.String()
			if !strings.Contains(out, "CATALOG_DSN") || !strings.Contains(out, "@tcp") {
				t.Errorf("stderr does not name CATALOG_DSN and the missing @tcp:\n%s", out)
			}
			noSecret(t, "stderr", out, secret)
			noSecret(t, "stdout", p.Stdout.String(), secret)
		})
	}
}

// A user that can write is warned about at start-up, then its password
// changes under a running catalogd: requests keep answering from the
// snapshot in memory, /readyz says the login is refused, the poller's
// refused reads are logged, and none of it — log lines, /readyz, /metrics,
// bodies — shows the password or its hash.
func TestPasswordAndHashNeverShow(t *testing.T) {
	dsn, _ := testdb.Load(t, jobsShop())
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
		var a answer
		r.poll(t, 10*time.Second, fmt.Sprintf("GET %s not %d", url, want), func() bool {
			a = r.fetch(url)
			return a.err == nil && a.status == want
		})
		seen = append(seen, url+":\n"+string(a.body))
		return a
	}
	get(r.AdminURL+"/readyz", http.StatusOK)
	r.waitBaseline(t)
	before := r.answers(t, servedPaths)
	if !strings.Contains(r.Stderr.String(), "the database user can write") {
		t.Errorf("no warning about the write grants; stderr:\n%s", r.Stderr.String())
	}

	u.ChangePassword(t)
	if a := get(r.AdminURL+"/readyz", http.StatusServiceUnavailable); !strings.Contains(string(a.body), "Access denied") {
		t.Errorf("/readyz does not say the login is refused: %s", a.body)
	}
	// The poller meets the refused login at its next tick.
	r.poll(t, 5*time.Second, "the refused login is not logged after the password changed", func() bool {
		return strings.Contains(r.Stderr.String(), "Access denied")
	})
	for _, p := range servedPaths {
		a := r.fetch(r.API + p)
		if a.err != nil || a.status != before[p].status || !bytes.Equal(a.body, before[p].body) {
			t.Errorf("%s with the login refused: %d %v %.300s, want the answer of before (%d)", p, a.status, a.err,
				a.body, before[p].status)
		}
		seen = append(seen, p+":\n"+string(a.body))
	}
	get(r.AdminURL+"/metrics", http.StatusOK)
	noSecret(t, "stderr", r.Stderr.String(), u.Password, u.Hash)
	noSecret(t, "stdout", r.Stdout.String(), u.Password, u.Hash)
	noSecret(t, "the responses", strings.Join(seen, "\n"), u.Password, u.Hash)
}
