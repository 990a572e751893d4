// Command catalogctl is the official command-line client of catalogd, the
// read-only JSON API over a WooCommerce shop's catalog. It shows the catalog
// index, pages of products and single products as readable text, or passes
// the API's JSON through for scripts.
//
// Exit codes: 0 ok; 1 usage error, and then no request was sent; 2 the
// request failed; 3 the resource does not exist (404).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"catalogd/internal/buildinfo"
	"catalogd/internal/flagerr"
)

// version is catalogctl's own version, sent in the User-Agent: the one make
// build and make install stamp (internal/buildinfo).
var version = buildinfo.Version()

// defaultBaseURL is where `make demo` serves the API.
const defaultBaseURL = "http://127.0.0.1:8080/wp-json/shop/v1"

// Exit codes, as the contract names them.
const (
	exitOK       = 0
	exitUsage    = 1 // no request was sent
	exitFailed   = 2
	exitNotFound = 3
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is catalogctl with its process environment passed in, so that tests
// can run it in-process. No command reads stdin: a slug or a filter is an
// argument, never a stream.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	c := &cli{getenv: getenv, stdout: stdout, stderr: stderr, sleep: sleepCtx, now: time.Now}
	if isTerminal(stderr) {
		// Progress is for a person watching; every other write to stderr
		// goes through the status line, which clears it first.
		c.status = &statusLine{w: stderr}
		c.stderr = c.status
	}
	return c.report(c.dispatch(ctx, args))
}

// isTerminal reports whether w is a terminal (a character device), where
// progress may be shown. A pipe or a file, what scripts and logs read,
// is not. (/dev/null is a character device too; what goes there is lost
// anyway.)
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// statusLine shows one transient line of progress on a terminal ("page
// 3/12…"), rewritten in place; any other write clears it first, so that
// notices and errors start on a clean line.
type statusLine struct {
	w     io.Writer
	shown bool
}

func (s *statusLine) Write(p []byte) (int, error) {
	s.clear()
	return s.w.Write(p)
}

// show replaces the line with msg.
func (s *statusLine) show(msg string) {
	fmt.Fprintf(s.w, "\r\033[K%s", msg)
	s.shown = true
}

// clear removes the line, if shown.
func (s *statusLine) clear() {
	if s.shown {
		_, _ = io.WriteString(s.w, "\r\033[K")
		s.shown = false
	}
}

// cli is one invocation of catalogctl.
type cli struct {
	getenv         func(string) string
	stdout, stderr io.Writer
	// sleep waits between retries and rate-limit windows; tests replace
	// it to observe the waits without spending them.
	sleep func(ctx context.Context, d time.Duration) error
	// now is the clock (time.Now); tests fix it, with sleep.
	now func() time.Time
	// status shows progress when stderr is a terminal; nil otherwise.
	status *statusLine
}

// usageError is a mistake in the command line, found before any request.
type usageError struct {
	cmd string // the command whose help explains it; empty for the tool's
	msg string
}

func (e *usageError) Error() string { return e.msg }

func usagef(cmd, format string, a ...any) error {
	return &usageError{cmd: cmd, msg: fmt.Sprintf(format, a...)}
}

// errHelpShown says help was asked for and printed: exit 0.
var errHelpShown = errors.New("help shown")

// report tells how the command line's run ended: on failure a message on
// stderr, and in every case the exit code.
func (c *cli) report(err error) int {
	if err == nil || errors.Is(err, errHelpShown) {
		return exitOK
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(c.stderr, "catalogctl: %s\n", ue.msg)
		cmd := "catalogctl"
		if ue.cmd != "" {
			cmd += " " + ue.cmd
		}
		fmt.Fprintf(c.stderr, "Run '%s --help' for usage.\n", cmd)
		return exitUsage
	}
	fmt.Fprintf(c.stderr, "catalogctl: %v\n", err)
	var unreachable *unreachableError
	if errors.As(err, &unreachable) {
		fmt.Fprintf(c.stderr, "hint: %s\n", unreachable.hint())
		return exitFailed
	}
	var ae *APIError
	if errors.As(err, &ae) {
		// The error's message names the first offending parameter only; a
		// 400 lists every one of them.
		if len(ae.Params) > 1 {
			names := make([]string, 0, len(ae.Params))
			for k := range ae.Params {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				fmt.Fprintf(c.stderr, "  %s: %s\n", k, ae.Params[k])
			}
		}
		if ae.Hint != "" {
			fmt.Fprintf(c.stderr, "hint: %s\n", ae.Hint)
		}
		if ae.Status == 404 {
			return exitNotFound
		}
	}
	return exitFailed
}

// globals are the options that come before the command.
type globals struct {
	baseURL       string
	baseURLSource string // the flag or the variable, for the error message
	timeout       time.Duration
	userAgent     string
}

// commands in the order the help lists them.
var commands = []struct {
	name, synopsis, summary string
}{
	{"catalog", "catalog [--json]", "show the catalog: shop, currency, counts, endpoints"},
	{"categories", "categories [--json]", "list the categories: slug, name, products, parent"},
	{"products", "products [options]", "list products as a table, one page or --all"},
	{"product", "product <slug> [--json]", "show one product"},
	{"help", "help [command]", "show help for catalogctl or a command"},
}

func (c *cli) dispatch(ctx context.Context, args []string) error {
	fs := newFlagSet("catalogctl")
	envURL := c.getenv("CATALOG_BASE_URL")
	g := &globals{baseURLSource: "--base-url"}
	def := defaultBaseURL
	if envURL != "" {
		def = envURL
	}
	fs.StringVar(&g.baseURL, "base-url", def, "the API's base `URL`, ending in /wp-json/shop/v1 (env CATALOG_BASE_URL)")
	fs.DurationVar(&g.timeout, "timeout", 10*time.Second, "time limit of each HTTP request, reading the body included (a `DURATION` such as 3s)")
	fs.StringVar(&g.userAgent, "user-agent", "", "your script's `NAME/VERSION`, sent after catalogctl's own User-Agent")
	showVersion := fs.Bool("version", false, "print catalogctl's version and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.toolHelp(fs)
			return errHelpShown
		}
		return usagef("", "%s", flagProblem(fs, err))
	}
	if *showVersion {
		fmt.Fprintln(c.stdout, buildinfo.String("catalogctl"))
		return nil
	}
	if envURL != "" && !isSet(fs, "base-url") {
		g.baseURLSource = "CATALOG_BASE_URL"
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return usagef("", "no command given; use one of catalog, categories, products, product")
	}
	name, rest := rest[0], rest[1:]
	switch name {
	case "catalog":
		return c.catalogCmd(ctx, g, rest)
	case "categories":
		return c.categoriesCmd(ctx, g, rest)
	case "products":
		return c.productsCmd(ctx, g, rest)
	case "product":
		return c.productCmd(ctx, g, rest)
	case "help":
		switch {
		case len(rest) == 0:
			c.toolHelp(fs)
			return errHelpShown
		case len(rest) > 1:
			return usagef("", "help takes at most one command, got %q", rest)
		case rest[0] == "help":
			c.toolHelp(fs)
			return errHelpShown
		}
		if !knownCommand(rest[0]) {
			return usagef("", "unknown command %q; use one of catalog, categories, products, product", rest[0])
		}
		return c.dispatch(ctx, []string{rest[0], "--help"})
	}
	return usagef("", "unknown command %q; use one of catalog, categories, products, product", name)
}

func knownCommand(name string) bool {
	for _, cmd := range commands {
		if cmd.name == name {
			return true
		}
	}
	return false
}

// client checks the global options and returns the API client they
// describe. Commands call it only after their own arguments passed, so a
// usage error never costs a request.
func (c *cli) client(g *globals) (*client, error) {
	base, err := parseBaseURL(g.baseURL)
	if err != nil {
		return nil, usagef("", "%s %q: %v", g.baseURLSource, g.baseURL, err)
	}
	if g.timeout <= 0 {
		return nil, usagef("", "--timeout must be positive, got %v", g.timeout)
	}
	for _, r := range g.userAgent {
		if r < 0x20 || r == 0x7f {
			return nil, usagef("", "--user-agent must not contain control characters")
		}
	}
	ua := "catalogctl/" + version
	if s := strings.TrimSpace(g.userAgent); s != "" {
		ua += " " + s
	}
	return newClient(base, g.timeout, ua, c.sleep, c.now, c.stderr), nil
}

// parseBaseURL accepts an absolute http(s) URL without query or fragment,
// as the API's paths are appended to it.
func parseBaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", fmt.Errorf("not a URL: %w", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("want an http:// or https:// URL such as %s", defaultBaseURL)
	case u.Host == "" || u.Opaque != "":
		return "", errors.New("the URL has no host")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return "", errors.New("the URL must not have a query or fragment")
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// print prints what a command fetched: with --json the API's JSON as it
// came, else the text render writes.
func (c *cli) print(asJSON bool, resp *response, render func(w io.Writer) error) error {
	return c.output(func(w io.Writer) error {
		if asJSON {
			return writeJSON(w, resp.body)
		}
		return render(w)
	})
}

// output buffers what a command prints, so that a failure while rendering
// leaves no half-written page, and reports a failed write (a closed pipe).
func (c *cli) output(render func(w io.Writer) error) error {
	bw := bufio.NewWriter(c.stdout)
	if err := render(bw); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// newFlagSet returns a flag set that reports nothing itself: catalogctl
// words its errors and prints its help.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// flagProblem rewords the flag package's error as one line naming the
// option, the value and what it expects. fs is catalogctl's own flag set
// or a command's.
func flagProblem(fs *flag.FlagSet, err error) string {
	p := flagerr.Read(fs, err)
	switch p.Kind {
	case flagerr.BadValue:
		return fmt.Sprintf("--%s %q: want %s", p.Name, p.Value, flagerr.Expects(p.Flag))
	case flagerr.Unknown:
		if fs.Name() == "catalogctl" {
			return fmt.Sprintf("unknown option --%s", p.Name)
		}
		if globalOption(p.Name) {
			return fmt.Sprintf("--%s is a global option: put it before the command (catalogctl --%s … %s)", p.Name, p.Name, fs.Name())
		}
		return fmt.Sprintf("unknown option --%s for %s", p.Name, fs.Name())
	case flagerr.MissingValue:
		// A string option checks its value itself, and says what it wants.
		if p.Flag != nil && flagerr.Expects(p.Flag) != "" {
			return fmt.Sprintf("--%s needs a value: %s", p.Name, flagerr.Expects(p.Flag))
		}
		return fmt.Sprintf("--%s needs a value", p.Name)
	default:
		return p.Msg
	}
}

// globalOption reports whether name is one of the options that come
// before the command.
func globalOption(name string) bool {
	switch name {
	case "base-url", "timeout", "user-agent", "version":
		return true
	}
	return false
}

// parseCommand parses a command's options and returns its arguments.
// Options may stand after the arguments too ("product dispatch-system
// --json"), which the flag package alone does not allow: it stops at the
// first argument. Everything after "--" is an argument.
func (c *cli) parseCommand(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.commandHelp(fs)
				return nil, errHelpShown
			}
			return nil, usagef(fs.Name(), "%s", flagProblem(fs, err))
		}
		rest := fs.Args()
		if used := args[:len(args)-len(rest)]; len(used) > 0 && used[len(used)-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// sleepCtx waits d, or less when ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
