package main

import (
	"bytes"
	"errors"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
)

// runSub runs catalogd with args and the settings kv, and returns its exit
// code, standard output and standard error.
func runSub(t *testing.T, kv []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = proctest.Environ(kv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

// catalogd healthcheck asks the admin listener of the settings given,
// once: 0 and "ready" when ready, else 1 and the reason in one line.
func TestHealthcheck(t *testing.T) {
	dsn, _ := testdb.Load(t, jobsShop())
	_, port, _ := net.SplitHostPort(proctest.FreeAddr(t))
	serving := launch(t, dsn, "CATALOG_ADMIN_LISTEN=:"+port) // every interface: asked on loopback
	serving.Admin = "127.0.0.1:" + port
	serving.AdminURL = "http://" + serving.Admin
	loading := launch(t, "root@tcp("+proctest.FreeAddr(t)+")/nothing")
	if status, text := serving.waitReadyz(t, 200, 30*time.Second); status != 200 {
		t.Fatalf("catalogd never got ready: %d %s", status, text)
	}
	if status, text := loading.waitReadyz(t, 503, 30*time.Second); status != 503 {
		t.Fatalf("catalogd without a database answers /readyz %d %s", status, text)
	}
	nothing := proctest.FreeAddr(t)

	tests := []struct {
		name, admin string
		code        int
		stdout      string // what stdout is
		stderr      string // what stderr starts with, on one line
	}{
		{"ready, listening on every interface", ":" + port, 0, "ready\n", ""},
		{"not ready", loading.Admin, 1, "", "catalogd: not ready: "},
		{"nothing listens", nothing, 1, "", "catalogd: no answer from http://" + nothing + "/readyz"},
	}
	// A container's health check gets the image's variables, not the
	// entrypoint's flags: no DSN is needed to find the admin listener.
	if code, stdout, stderr := runSub(t, []string{"CATALOG_ADMIN_LISTEN=:" + port}, "healthcheck"); code != 0 || stdout != "ready\n" {
		t.Errorf("healthcheck without a DSN = %d, %q, %q; want 0, ready", code, stdout, stderr)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runSub(t, []string{"CATALOG_DSN=" + dsn, "CATALOG_ADMIN_LISTEN=" + tt.admin}, "healthcheck")
			if code != tt.code || stdout != tt.stdout || !strings.HasPrefix(stderr, tt.stderr) {
				t.Errorf("healthcheck = %d, stdout %q, stderr %q; want %d, %q, %q…", code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
			}
			if strings.Count(stderr, "\n") > 1 {
				t.Errorf("healthcheck's reason is more than one line: %q", stderr)
			}
		})
	}
}

// catalogd check says whether catalogd could start and serve: valid
// settings, both addresses free, and a database that lets its user in and
// holds the tables; a taken address is named by its setting both ways, and
// a database not ready is exit 3 with the reason, whose password no line
// shows.
func TestCheck(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	dsn, _ := testdb.Load(t, jobsShop())
	reader := testdb.NewReader(t, dsn)
	wrong, err := mysql.ParseDSN(reader.DSN)
	if err != nil {
		t.Fatal(err)
	}
	wrong.Passwd = "Wr0ng-Pa55-7c1d"
	_, port, _ := net.SplitHostPort(proctest.FreeAddr(t))
	free := func() []string {
		return []string{"CATALOG_LISTEN=" + proctest.FreeAddr(t), "CATALOG_ADMIN_LISTEN=" + proctest.FreeAddr(t)}
	}
	tests := []struct {
		name           string
		env            []string
		code           int
		output, reason string
	}{
		{"all right, a SELECT-only user", append(free(), "CATALOG_DSN="+reader.DSN), 0,
			`the settings are valid; 127.0.0.1:`, ""},
		{"a user that can write", append(free(), "CATALOG_DSN="+dsn), 0, "the database answers",
			"the database user can write"},
		{"admin port taken", []string{"CATALOG_DSN=" + reader.DSN, "CATALOG_LISTEN=" + proctest.FreeAddr(t),
			"CATALOG_ADMIN_LISTEN=" + held.Addr().String()}, 1, "",
			"--admin-listen (CATALOG_ADMIN_LISTEN): listen tcp " + held.Addr().String() + ": bind: address already in use: another process holds it"},
		{"public port taken", []string{"CATALOG_DSN=" + reader.DSN, "CATALOG_LISTEN=" + held.Addr().String(),
			"CATALOG_ADMIN_LISTEN=" + proctest.FreeAddr(t)}, 1, "", "--listen (CATALOG_LISTEN)"},
		{"not an address", []string{"CATALOG_DSN=" + reader.DSN, "CATALOG_LISTEN=nowhere"}, 2, "", "--listen (CATALOG_LISTEN): want host:port"},
		// make demo DEMO_LISTEN=:9090 beside the default admin listener.
		{"one port for both", []string{"CATALOG_DSN=" + reader.DSN, "CATALOG_LISTEN=:" + port, "CATALOG_ADMIN_LISTEN=127.0.0.1:" + port}, 2, "",
			"--admin-listen (CATALOG_ADMIN_LISTEN): 127.0.0.1:" + port + " shares its port with --listen :" + port},
		{"no database answers", append(free(), "CATALOG_DSN=catalog@tcp("+proctest.FreeAddr(t)+")/wordpress"), 3, "",
			"the database of --dsn (CATALOG_DSN) is not ready: "},
		{"the password refused", append(free(), "CATALOG_DSN="+wrong.FormatDSN()), 3, "",
			"access denied: check the user and password in the DSN"},
		{"another prefix", append(free(), "CATALOG_DSN="+reader.DSN, "CATALOG_TABLE_PREFIX=shop_"), 3, "",
			"shop_posts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runSub(t, tt.env, "check")
			if code != tt.code || !strings.Contains(stdout, tt.output) || !strings.Contains(stderr, tt.reason) {
				t.Errorf("check = %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout, stderr, tt.code, tt.output, tt.reason)
			}
			if tt.code == 3 && !strings.Contains(stderr, "catalogd would start, and answer 503") {
				t.Errorf("check's reason does not say catalogd would start: %q", stderr)
			}
			noSecret(t, "check's output", stdout+stderr, reader.Password, reader.Hash, wrong.Passwd)
		})
	}
}
