package deploy

// Every command the README and the deployment files show is run here
// exactly as printed, or is named in notRunHere with the reason this
// machine cannot run it. A command that is neither fails the test, so a new
// one cannot slip into the documentation untested.
//
// What counts as shown: in README.md and docs/*.md, each command of a
// fenced sh/bash/shell/console block, each "$ " line of a transcript (with
// the output printed under it, up to its "(exit N)" line) and each inline
// code span that starts with a command; in deploy/ and docker-compose.yml,
// each comment, or backquoted span in one, that starts with a command.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/catalog"
	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
)

// notRunHere names the commands this machine cannot run, and why.
var notRunHere = []struct{ prefix, why string }{
	{"make test", "the whole suite, this test included: CI runs it (.ci/run)"},
	{"make test-busy", "the timing-sensitive packages' tests beside CPU hogs, this one's neighbours: CI runs it (.ci/run)"},
	{"make bench", "seeds 10 000- and 100 000-product databases and measures for minutes; docs/benchmarks.md is its output"},
	{"docker ", "no Docker engine runs here; TestCompose and TestSystemdAndDockerfile check the files it reads"},
	{"kubectl ", "no cluster runs here; TestKubernetes checks what it applies"},
	{"make lint-openapi", ".ci/run runs it after make test (it installs the linters from npm)"},
	{"make bench-1m", "seeds a million-product shop (7 GB, about 20 minutes) and measures for many more: run by hand, once"},
	{"go test -bench", "a benchmark: a figure to read, not a test to pass; make bench runs it"},
	{"go test -run '^$' -bench", "a benchmark: a figure to read, not a test to pass; make bench runs it"},
	{"make soak", "loads catalogd for minutes with database faults; CI runs its one-minute run, make soak-ci"},
	{"make monitoring", "deploy/checks' TestGeneratedFilesAreCurrent builds what it writes and compares it with the checked-in files"},
}

// runners run the commands that start with one of their prefixes.
var runners = []struct {
	name     string
	prefixes []string
	run      func(t *testing.T, cmds []shown)
}{
	// Before the read-only user's: the same start, a command of its own.
	{"index for polling", []string{postModifiedIndexCmd}, runPostModifiedIndex},
	{"read-only database user", []string{"mysql -u root -p -e "}, runReadOnlyUser},
	{"the demo and catalogctl against it", []string{"make build", "make demo", "catalogctl "}, runDemo},
	{"generators", []string{"make seed", "go generate ./httpapi"}, runGenerators},
	{"make help", []string{"make help"}, runHelp},
	{"install", []string{"make install"}, runInstall},
}

// runInstall runs make install as printed, in a copy of the repository,
// with GOBIN a temporary directory: catalogd and catalogctl land there and
// answer --version with the version make stamped.
func runInstall(t *testing.T, cmds []shown) {
	dir, gobin := copyRepo(t), t.TempDir()
	env := proctest.Environ("GOBIN=" + gobin)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, c := range cmds {
		if out, err := shell(ctx, dir, c.text, env).CombinedOutput(); err != nil {
			t.Fatalf("%s: `%s`: %v\n%s", c.where, c.text, err, out)
		}
		for _, name := range []string{"catalogd", "catalogctl"} {
			out, err := exec.CommandContext(ctx, filepath.Join(gobin, name), "--version").Output()
			if err != nil || !strings.HasPrefix(string(out), name+" ") {
				t.Errorf("%s: after `%s`, %s --version: %v %q", c.where, c.text, name, err, out)
			}
		}
	}
}

// commandWords start a command in prose or a comment.
var commandWords = []string{"make", "go", "docker", "kubectl", "mysql", "mariadb", "curl", "systemctl",
	"catalogctl", "sudo", "apt-get"}

// shown is one command as the documentation prints it.
type shown struct {
	where string // file:line
	text  string // exactly as printed, continuation lines included
	block string // the fenced block it is in
	// A transcript's command also shows what it prints and its exit code.
	transcript bool
	output     string
	exit       int
}

func TestEveryShownCommandRuns(t *testing.T) {
	claimed, unlisted, unused := classify(t, shownCommands(t))
	for _, c := range unlisted {
		t.Errorf("%s: `%s` is shown but neither run by this test nor listed in notRunHere", c.where, c.text)
	}
	for _, p := range unused {
		t.Errorf("notRunHere lists %q, which no document shows any more", p)
	}
	for _, r := range runners {
		if len(claimed[r.name]) == 0 {
			t.Errorf("runner %q runs nothing: no document shows %v", r.name, r.prefixes)
			continue
		}
		t.Run(r.name, func(t *testing.T) { r.run(t, claimed[r.name]) })
	}
}

// A command nobody runs or lists is caught, wherever it is shown, and a
// shell block is split into its commands as the shell reads them.
func TestAnUnlistedCommandFails(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "doc.md")
	text := "Restart it with `systemctl restart catalogd`.\n\n```sh\n# a comment\nmake build   # builds\n" +
		"mysql -u root -p -e \"SET @a='it''s';\nSOURCE x.sql\"\ncurl -s \\\n  http://x/ # done\n```\n\n```\n$ catalogctl catalog\nShop\n(exit 0)\n```\n"
	if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds := markdownCommands(t, doc)
	var texts []string
	for _, c := range cmds {
		texts = append(texts, c.text)
	}
	want := []string{"systemctl restart catalogd", "make build   # builds", "mysql -u root -p -e \"SET @a='it''s';\nSOURCE x.sql\"",
		"curl -s \\\n  http://x/ # done", "catalogctl catalog"}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Fatalf("commands %q\nwant %q", texts, want)
	}
	if cmds[4].output != "Shop\n" || cmds[4].exit != 0 {
		t.Errorf("transcript output %q, exit %d", cmds[4].output, cmds[4].exit)
	}
	_, unlisted, _ := classify(t, cmds)
	var got []string
	for _, c := range unlisted {
		got = append(got, c.text)
	}
	// make build, mysql -u root -p -e and catalogctl have runners.
	if want := []string{"systemctl restart catalogd", "curl -s \\\n  http://x/ # done"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("unlisted %q, want %q", got, want)
	}
}

// classify sorts shown commands into those a runner runs, those neither
// run nor listed, and notRunHere entries no command needs.
func classify(t *testing.T, cmds []shown) (claimed map[string][]shown, unlisted []shown, unused []string) {
	t.Helper()
	claimed = map[string][]shown{}
	used := map[string]bool{}
	for _, c := range cmds {
		if name := runnerOf(c.text); name != "" {
			claimed[name] = append(claimed[name], c)
			continue
		}
		if why := notRunHereReason(c.text); why != "" {
			used[why] = true
			t.Logf("not run here: %s `%s`: %s", c.where, c.text, why)
			continue
		}
		unlisted = append(unlisted, c)
	}
	for _, n := range notRunHere {
		if !used[n.why] {
			unused = append(unused, n.prefix)
		}
	}
	return claimed, unlisted, unused
}

// hasCommandPrefix reports whether text is the command prefix or starts
// with it: a prefix ending in a space takes any argument, one that does not
// is a whole word ("make demo" is not "make demos").
func hasCommandPrefix(text, prefix string) bool {
	if strings.HasSuffix(prefix, " ") {
		return strings.HasPrefix(text, prefix)
	}
	return text == prefix || strings.HasPrefix(text, prefix+" ") || strings.HasPrefix(text, prefix+"\t")
}

func runnerOf(text string) string {
	for _, r := range runners {
		for _, p := range r.prefixes {
			if hasCommandPrefix(text, p) {
				return r.name
			}
		}
	}
	return ""
}

func notRunHereReason(text string) string {
	for _, n := range notRunHere {
		if hasCommandPrefix(text, n.prefix) {
			return n.why
		}
	}
	return ""
}

// commandOnly is a one-line command without its trailing comment, to know
// the same command shown twice.
func commandOnly(text string) string {
	if strings.Contains(text, "\n") {
		return text
	}
	return strings.TrimSpace(trailingCommentRE.ReplaceAllString(text, ""))
}

var trailingCommentRE = regexp.MustCompile(`\s+#[^'"]*$`)

// startsWithCommand reports whether prose or a comment starts a command.
func startsWithCommand(s string, words []string) bool {
	for _, w := range words {
		if s == w || strings.HasPrefix(s, w+" ") {
			return true
		}
	}
	return false
}

var (
	fenceRE      = regexp.MustCompile("^```\\s*(\\S*)")
	inlineCodeRE = regexp.MustCompile("`([^`]+)`")
	exitRE       = regexp.MustCompile(`^\(exit (\d+)\)$`)
)

// shownCommands collects every command the documentation shows.
func shownCommands(t *testing.T) []shown {
	t.Helper()
	docs, _ := filepath.Glob("../docs/*.md")
	var cmds []shown
	for _, f := range append([]string{"../README.md"}, docs...) {
		cmds = append(cmds, markdownCommands(t, f)...)
	}
	for _, f := range shippedFiles(t) {
		cmds = append(cmds, commentCommands(t, f)...)
	}
	if len(cmds) == 0 {
		t.Fatal("no command found in the documentation: the parser is broken")
	}
	return cmds
}

func markdownCommands(t *testing.T, path string) []shown {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(path, "../")
	lines := strings.Split(string(b), "\n")
	var cmds []shown
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			for _, s := range inlineCodeRE.FindAllStringSubmatch(lines[i], -1) {
				if startsWithCommand(s[1], commandWords) {
					cmds = append(cmds, shown{where: fmt.Sprintf("%s:%d", name, i+1), text: s[1]})
				}
			}
			continue
		}
		start := i + 1
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
		}
		body := lines[start:i]
		block := strings.Join(body, "\n")
		switch m[1] {
		case "sh", "bash", "shell", "console":
			for _, c := range shellCommands(body) {
				cmds = append(cmds, shown{where: fmt.Sprintf("%s:%d", name, start+1+c.line), text: c.text, block: block})
			}
			continue
		}
		for j := 0; j < len(body); j++ {
			text, ok := strings.CutPrefix(body[j], "$ ")
			if !ok {
				continue
			}
			c := shown{where: fmt.Sprintf("%s:%d", name, start+1+j), text: text, block: block, transcript: true, exit: -1}
			var out []string
			for j++; j < len(body); j++ {
				if e := exitRE.FindStringSubmatch(body[j]); e != nil {
					c.exit, _ = strconv.Atoi(e[1])
					break
				}
				out = append(out, body[j])
			}
			if c.exit < 0 {
				t.Errorf("%s: the transcript of `%s` does not end in its (exit N) line", c.where, text)
			}
			if len(out) > 0 {
				c.output = strings.Join(out, "\n") + "\n"
			}
			cmds = append(cmds, c)
		}
	}
	return cmds
}

type shellCommand struct {
	line int // index of its first line in the block
	text string
}

// shellCommands splits a shell block into its commands: a command ends at a
// line end that is outside quotes and not escaped. Comment lines are not
// commands; a comment after a command is part of it, as the shell reads it.
func shellCommands(lines []string) []shellCommand {
	var cmds []shellCommand
	var cur []string
	first := 0
	single, double := false, false
	for i, l := range lines {
		if len(cur) == 0 {
			if s := strings.TrimSpace(l); s == "" || strings.HasPrefix(s, "#") {
				continue
			}
			first = i
		}
		cur = append(cur, l)
		escaped := false
	scan:
		for k, c := range l {
			switch {
			case escaped:
				escaped = false
			case c == '\\' && !single:
				escaped = true
			case c == '\'' && !double:
				single = !single
			case c == '"' && !single:
				double = !double
			case c == '#' && !single && !double && (k == 0 || l[k-1] == ' ' || l[k-1] == '\t'):
				break scan
			}
		}
		if single || double || escaped {
			continue
		}
		cmds = append(cmds, shellCommand{first, strings.Join(cur, "\n")})
		cur = nil
	}
	if cur != nil {
		cmds = append(cmds, shellCommand{first, strings.Join(cur, "\n")})
	}
	return cmds
}

// commentCommands finds the commands a deployment file's comments show.
// "catalogd" and "nginx" start sentences there, so they do not count.
func commentCommands(t *testing.T, path string) []shown {
	t.Helper()
	var cmds []shown
	for _, c := range commentLines(t, path) {
		if startsWithCommand(c.text, commandWords) {
			cmds = append(cmds, shown{where: c.where, text: c.text})
		}
		for _, s := range inlineCodeRE.FindAllStringSubmatch(c.text, -1) {
			if startsWithCommand(s[1], commandWords) {
				cmds = append(cmds, shown{where: c.where, text: s[1]})
			}
		}
	}
	return cmds
}

// repoRoot is the repository's root directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// shell runs a command exactly as printed, with bash, in dir.
func shell(ctx context.Context, dir, text string, env []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "bash", "-c", text)
	cmd.Dir = dir
	cmd.Env = env
	// No terminal: a password prompt (mysql -p) reads standard input.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd
}

func randomSuffix() string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// runReadOnlyUser runs the command that creates catalogd's database user,
// as an administrator would, then connects with the DSN printed beside it.
// The server is shared by parallel tests, so the three names the reader
// chooses (database, user, password) become names of the test's own; not
// another byte of the command changes.
func runReadOnlyUser(t *testing.T, cmds []shown) {
	for _, c := range cmds {
		t.Run(c.where, func(t *testing.T) {
			dsn, cfg := rootShop(t)
			suffix := randomSuffix()
			user, password := "catalogd_doc_"+suffix, "pw-"+suffix
			admin := testdb.Open(t, dsn)
			t.Cleanup(func() { admin.Exec("DROP USER IF EXISTS '" + user + "'@'%'") })
			fill := func(s string, pairs ...string) string {
				t.Helper()
				for i := 0; i < len(pairs); i += 2 {
					if n := strings.Count(s, pairs[i]); n != 1 {
						t.Fatalf("%s: expected %q once in the shown text, found it %d times:\n%s", c.where, pairs[i], n, s)
					}
				}
				return strings.NewReplacer(pairs...).Replace(s)
			}
			text := fill(c.text, "@db='wordpress'", "@db='"+cfg.DBName+"'",
				"@user='catalogd'", "@user='"+user+"'", "@password='change-me'", "@password='"+password+"'")

			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			runMySQLCommand(t, ctx, c, text, cfg)

			// The DSN printed beside it, with the same three names.
			m := regexp.MustCompile(`# DSN: (\S+)`).FindStringSubmatch(c.block)
			if m == nil {
				t.Fatalf("%s: no `# DSN:` line beside the command", c.where)
			}
			roDSN := fill(m[1], "catalogd:change-me@", user+":"+password+"@", "db-host:3306", cfg.Addr, "/wordpress", "/"+cfg.DBName)
			db, err := wpdb.Open(roDSN, wpdb.Options{Prefix: "wp_"})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Ready(ctx); err != nil {
				t.Fatalf("the printed DSN does not connect: %v", err)
			}
			if idx, err := catalog.New(db, catalog.Config{}).Index(ctx); err != nil || idx.ProductCount != 1 {
				t.Errorf("the new user cannot read the catalog: %+v, %v", idx, err)
			}
			if w, err := db.WritePrivileges(ctx); err != nil || len(w) != 0 {
				t.Errorf("the new user can write: %v (%v)", w, err)
			}
		})
	}
}

// rootShop loads a throwaway shop of one product for a command that logs
// in to the test server as root with the mysql client, or says what is
// lacking: its DSN, parsed too.
func rootShop(t *testing.T) (string, *mysql.Config) {
	t.Helper()
	s := wpfixture.New("wp_", "https://shop.example")
	s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5"})
	dsn, _ := testdb.Load(t, s)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("mysql"); err != nil {
		testdb.Lacking(t, "the mysql client is not installed (.ci/run installs MariaDB)")
	}
	if cfg.User != "root" {
		testdb.Lacking(t, "the command logs in as root; CATALOG_TEST_DSN names %s", cfg.User)
	}
	return dsn, cfg
}

// runMySQLCommand runs text, the shown command c with the reader's names
// made throwaway ones, from the repository's root, the mysql client
// pointed at the test server (cfg) and given its password where -p asks.
func runMySQLCommand(t *testing.T, ctx context.Context, c shown, text string, cfg *mysql.Config) {
	t.Helper()
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	cmd := shell(ctx, repoRoot(t), text, proctest.Environ("MYSQL_HOST="+host, "MYSQL_TCP_PORT="+port))
	cmd.Stdin = strings.NewReader(cfg.Passwd + "\n") // what -p asks for
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: `%s`: %v\n%s", c.where, c.text, err, out)
	}
}

// copyRepo copies the repository (without .git, bin/ and the linters'
// node_modules) into a temporary directory, where commands that build or
// write files run without touching the work tree.
func copyRepo(t *testing.T) string {
	t.Helper()
	root, dst := repoRoot(t), t.TempDir()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == ".git" || rel == "bin" || rel == "bench" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

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

// runHelp runs make help as printed: it lists the targets the documents name.
func runHelp(t *testing.T, cmds []shown) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := shell(ctx, repoRoot(t), cmds[0].text, proctest.Environ()).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: `%s`: %v\n%s", cmds[0].where, cmds[0].text, err, out)
	}
	for _, target := range []string{"make demo", "make test", "make build", "make lint-openapi"} {
		if !strings.Contains(string(out), target+" ") {
			t.Errorf("`%s` does not list %s:\n%s", cmds[0].text, target, out)
		}
	}
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

// runGenerators runs each generator as printed in a copy of the repository
// and compares what it writes with the checked-in file.
func runGenerators(t *testing.T, cmds []shown) {
	writes := map[string]string{"make seed": "deploy/seed/demo.sql", "go generate ./httpapi": "httpapi/openapi.json"}
	done := map[string]bool{}
	for _, c := range cmds {
		if done[commandOnly(c.text)] {
			continue
		}
		done[commandOnly(c.text)] = true
		var file string
		for p, f := range writes {
			if hasCommandPrefix(c.text, p) {
				file = f
			}
		}
		t.Run(c.text, func(t *testing.T) {
			dir := copyRepo(t)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			if out, err := shell(ctx, dir, c.text, proctest.Environ()).CombinedOutput(); err != nil {
				t.Fatalf("%s: `%s`: %v\n%s", c.where, c.text, err, out)
			}
			want, err := os.ReadFile(filepath.Join(repoRoot(t), file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s: `%s` writes a %s that differs from the checked-in one", c.where, c.text, file)
			}
		})
	}
}
