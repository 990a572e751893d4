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

// A wrong password at start is said once, at ERROR, as the login refused
// with what to fix — never as a database not reachable — while catalogd
// answers 503 and tries again after growing pauses (each repeat at DEBUG);
// when the database's password is put right to the one catalogd has (a
// secret rotated in the database last), catalogd gets in by itself. The
// password is in no line.
func TestWrongPasswordIsSaidOnce(t *testing.T) {
	dsn, raw := testdb.Load(t, jobsShop())
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u := testdb.NewUser(t, dsn, "SELECT ON `"+cfg.DBName+"`.*")
	ucfg, err := mysql.ParseDSN(u.DSN)
	if err != nil {
		t.Fatal(err)
	}
	const wrong = "Wr0ng-Pa55-9f3e"
	ucfg.Passwd = wrong
	r := start(t, ucfg.FormatDSN(), "CATALOG_LOG_LEVEL=debug", "CATALOG_ACCESS_LOG=false")
	const said = "the database refuses catalogd: access denied: check the user and password in the DSN"
	// Three attempts: at once, after 1 s, after 2 s more.
	r.poll(t, 30*time.Second, "three attempts not logged", func() bool {
		return strings.Count(r.Stderr.String(), said) >= 3
	})
	if a := r.fetch(r.API + "/catalog"); a.err != nil || a.status != http.StatusServiceUnavailable {
		t.Errorf("GET /catalog with the login refused: %d %v, want 503", a.status, a.err)
	}
	if status, body, err := r.Readyz(); err != nil || status != http.StatusServiceUnavailable ||
		!strings.Contains(body, "access denied: check the user and password in the DSN") {
		t.Errorf("/readyz with the login refused: %d %v %q, want 503 saying what to fix", status, err, body)
	}
	log := r.Stderr.String()
	lines := strings.Split(log, "\n")
	var loud, repeats []string
	for _, l := range lines {
		switch {
		case loudLine.MatchString(l):
			loud = append(loud, l)
		case strings.Contains(l, said):
			repeats = append(repeats, l)
		}
	}
	if len(loud) != 1 || !strings.Contains(loud[0], "level=ERROR") || !strings.Contains(loud[0], said) {
		t.Errorf("WARN and ERROR lines:\n%s\nwant the one ERROR %q", strings.Join(loud, "\n"), said)
	}
	if len(repeats) < 2 || !strings.Contains(repeats[0], "level=DEBUG") || !strings.Contains(repeats[0], "retry_in=2s") ||
		!strings.Contains(repeats[1], "retry_in=4s") {
		t.Errorf("the repeats:\n%s\nwant DEBUG lines, the pause doubling: retry_in=2s, then 4s", strings.Join(repeats, "\n"))
	}
	if strings.Contains(log, "not reachable") || strings.Contains(log, "does not answer") {
		t.Errorf("a refused login said as a database away:\n%s", log)
	}
	if _, err := raw.Exec("ALTER USER '" + ucfg.User + "'@'%' IDENTIFIED BY '" + wrong + "'"); err != nil {
		t.Fatal(err)
	}
	r.waitReadyz(t, http.StatusOK, 40*time.Second)
	noSecret(t, "stderr", r.Stderr.String(), wrong, u.Password, u.Hash)
	noSecret(t, "stdout", r.Stdout.String(), wrong, u.Password, u.Hash)
}
