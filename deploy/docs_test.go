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
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
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
