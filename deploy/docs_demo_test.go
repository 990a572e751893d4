package deploy

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
)

// runDemo runs `make build` and `make demo` as printed, in a copy of the
// repository, with the demo on a throwaway database and free ports (the
// settings the README names: DEMO_*, CATALOG_*), then each catalogctl
// command of the transcript against it, comparing what it prints and its
// exit code with the transcript.
func runDemo(t *testing.T, cmds []shown) {
	dsn := testdb.New(t)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Passwd != "" {
		testdb.Lacking(t, "make demo logs in without a password; CATALOG_TEST_DSN has one")
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	dir := copyRepo(t)
	listen, admin := proctest.FreeAddr(t), proctest.FreeAddr(t)
	env := proctest.Environ("DEMO_HOST="+host, "DEMO_PORT="+port, "DEMO_USER="+cfg.User, "DEMO_DB="+cfg.DBName,
		"CATALOG_LISTEN="+listen, "CATALOG_ADMIN_LISTEN="+admin, "CATALOG_POLL_INTERVAL=1h",
		"EMBEDDED_ADDR="+proctest.FreeAddr(t), // used only where no mysql client answers
		"PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	var demo, catalogctl []shown
	ran := map[string]bool{} // a command shown again in prose runs once
	for _, c := range cmds {
		if ran[commandOnly(c.text)] && !c.transcript {
			continue
		}
		ran[commandOnly(c.text)] = true
		switch {
		case hasCommandPrefix(c.text, "make build"):
			if out, err := shell(ctx, dir, c.text, env).CombinedOutput(); err != nil {
				t.Fatalf("%s: `%s`: %v\n%s", c.where, c.text, err, out)
			}
		case hasCommandPrefix(c.text, "make demo"):
			demo = append(demo, c)
		default:
			catalogctl = append(catalogctl, c)
		}
	}
	for _, c := range demo {
		// A port the reader chooses (DEMO_LISTEN=:8510) becomes a free one;
		// the demo must serve there, with its links on that port.
		listen, text := listen, c.text
		if m := demoListenRE.FindStringSubmatch(text); m != nil {
			listen = proctest.FreeAddr(t)
			text = strings.Replace(text, m[0], "DEMO_LISTEN="+listen, 1)
		}
		stop, _ := serveDemo(t, ctx, dir, env, c, text, listen, catalogctl)
		stop()
	}
	// The README's first command on a machine where no database answers
	// (DEMO_PORT: a port nothing listens on): the embedded server holds
	// the demo shop, and the same transcripts hold.
	if len(demo) > 0 {
		t.Run("no database answering", func(t *testing.T) {
			runDemoEmbedded(t, dir, demo[0], catalogctl)
		})
	}
	if len(demo) == 0 && len(catalogctl) > 0 {
		t.Errorf("catalogctl's transcript runs against the demo, but no document shows `make demo`")
	}
}

// serveDemo starts the make demo command text (c as shown) in dir and
// waits until it serves on listen, checks what it prints and links, and
// runs catalogctl's transcripts against it; stop ends it (make, catalogd
// and anything between).
func serveDemo(t *testing.T, ctx context.Context, dir string, env []string, c shown, text, listen string,
	catalogctl []shown) (stop func(), log *proctest.SyncBuffer) {
	t.Helper()
	log = &proctest.SyncBuffer{}
	cmd := shell(ctx, dir, text, env)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop = func() {
		// make, catalogd and anything between: the session bash leads.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		cmd.Wait()
	}
	base := "http://" + listen + "/wp-json/shop/v1"
	if !waitFor(ctx, base+"/catalog") {
		stop()
		t.Fatalf("%s: `%s` did not serve the demo within the time limit:\n%s", c.where, c.text, log.String())
	}
	// It says what it does from its first line, ends with the URLs to
	// try, and links its own port: what it prints and what it serves.
	_, port, _ := net.SplitHostPort(listen)
	site := "http://localhost:" + port
	if !pollFor(ctx, func() bool { return strings.Contains(log.String(), "Ctrl-C stops it.") }) {
		t.Errorf("%s: `%s` never printed the URLs to try:\n%s", c.where, c.text, log.String())
	}
	out := log.String()
	if !strings.HasPrefix(out, "make demo: building") {
		t.Errorf("%s: `%s` does not start by saying what it builds:\n%.300s", c.where, c.text, out)
	}
	if !strings.Contains(out, "curl "+site+"/wp-json/shop/v1/catalog\n") {
		t.Errorf("%s: `%s` does not print the catalog's URL on its port %s:\n%s", c.where, c.text, port, out)
	}
	if idx := getBody(ctx, base+"/catalog"); !strings.Contains(idx, `"catalog":"`+site+`/wp-json/shop/v1/catalog"`) ||
		strings.Contains(idx, `"sitemap"`) {
		t.Errorf("%s: `%s`: the index does not link the demo's own port %s, or links a sitemap nothing serves: %s",
			c.where, c.text, port, idx)
	}
	for _, cc := range catalogctl {
		if !cc.transcript {
			continue // named in prose: the transcript runs it
		}
		runTranscript(t, ctx, dir, env, base, cc)
		t.Logf("ran %s `%s`", cc.where, cc.text)
	}
	return stop, log
}

// runTranscript runs one "$ catalogctl …" line against the demo at base and
// compares its output and exit code with the transcript's. The transcript
// shows catalogctl's default base URL and the site URL of the demo on its
// default port, 8080.
func runTranscript(t *testing.T, ctx context.Context, dir string, env []string, base string, c shown) {
	t.Helper()
	cmd := shell(ctx, dir, c.text, append(env, "CATALOG_BASE_URL="+base))
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s: `%s`: %v", c.where, c.text, err)
		}
		code = ee.ExitCode()
	}
	// make demo's site URL follows its port: http://localhost:{port}.
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(strings.TrimSuffix(base, "/wp-json/shop/v1"), "http://"))
	got := strings.NewReplacer(base, "http://127.0.0.1:8080/wp-json/shop/v1",
		"http://localhost:"+port, "http://localhost:8080").Replace(string(out))
	if got != c.output || code != c.exit {
		t.Errorf("%s: `%s` printed (exit %d):\n%s\nthe README shows (exit %d):\n%s", c.where, c.text, code, got, c.exit, c.output)
	}
}

var demoListenRE = regexp.MustCompile(`DEMO_LISTEN=(\S+)`)

// pollFor polls cond until it holds or ctx ends.
func pollFor(ctx context.Context, cond func() bool) bool {
	for ctx.Err() == nil {
		if cond() {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// getBody is url's body, or "" when it does not answer.
func getBody(ctx context.Context, url string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return ""
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// waitFor polls url until it answers 200 or ctx ends.
func waitFor(ctx context.Context, url string) bool {
	return pollFor(ctx, func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}
