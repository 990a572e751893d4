package deploy

import (
	"context"
	"database/sql"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
)

// makeDemo runs make with args in the repository, its binaries in bin, and
// returns what it printed and whether it succeeded.
func makeDemo(t *testing.T, ctx context.Context, bin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "make", append([]string{"--no-print-directory", "BIN=" + bin}, args...)...)
	cmd.Dir = repoRoot(t)
	cmd.Env = proctest.Environ()
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("make %s did not end in time:\n%s", strings.Join(args, " "), out)
	}
	return string(out), err
}

// The demo's wait for catalogd ends: with a database that never answers,
// make gives up after DEMO_WAIT seconds, saying why catalogd is not ready,
// where it once waited an hour (each try a catalogctl that retried a 503).
func TestDemoWaitEnds(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := t.TempDir()
	if out, err := makeDemo(t, ctx, bin, "demo-build"); err != nil {
		t.Fatalf("make demo-build: %v\n%s", err, out)
	}
	nothing := proctest.FreeAddr(t) // no database listens there
	start := time.Now()
	out, err := makeDemo(t, ctx, bin, "demo-serve", "DEMO_SERVE_DSN=root@tcp("+nothing+")/wp_demo", "DEMO_WAIT=2",
		"DEMO_LISTEN="+proctest.FreeAddr(t), "DEMO_ADMIN_LISTEN="+proctest.FreeAddr(t))
	if err == nil {
		t.Fatalf("make demo-serve succeeded with no database:\n%s", out)
	}
	if !strings.Contains(out, "make demo: catalogd is not ready after 2 s (DEMO_WAIT): not ready:") ||
		!strings.Contains(out, "connection refused") {
		t.Errorf("make demo-serve gave up without saying why:\n%s", out)
	}
	t.Logf("gave up after %s", time.Since(start).Round(time.Millisecond))
}

// A demo whose admin port is taken fails before it touches the database,
// and names the make variable that moves the port as well as catalogd's
// setting.
func TestDemoPortTaken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dsn := testdb.New(t)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// What a reader's wp_demo holds before: it must still be there after.
	if _, err := db.ExecContext(ctx, "CREATE TABLE kept (n int)"); err != nil {
		t.Fatal(err)
	}
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()

	bin := t.TempDir()
	out, err := makeDemo(t, ctx, bin, "demo", "DEMO_HOST="+host, "DEMO_PORT="+port, "DEMO_USER="+cfg.User,
		"DEMO_DB="+cfg.DBName, "DEMO_LISTEN="+proctest.FreeAddr(t), "DEMO_ADMIN_LISTEN="+held.Addr().String())
	if err == nil {
		t.Fatalf("make demo succeeded with its admin port taken:\n%s", out)
	}
	for _, want := range []string{"nothing was loaded", "--admin-listen (CATALOG_ADMIN_LISTEN)", "address already in use",
		"DEMO_ADMIN_LISTEN=" + held.Addr().String()} {
		if !strings.Contains(out, want) {
			t.Errorf("make demo's message does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "loading deploy/seed/demo.sql") {
		t.Errorf("make demo loaded the shop before it found the port taken:\n%s", out)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'kept'").Scan(&n); err != nil || n != 1 {
		t.Errorf("the demo's database was dropped (%d tables named kept, %v)", n, err)
	}
}
