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

	"catalogd/api"
)

// version is catalogctl's own version, sent in the User-Agent. Release
// builds may set it with -ldflags "-X main.version=…".
var version = "1.0.0"

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
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is catalogctl with its process environment passed in, so that tests
// can run it in-process. No command reads stdin; it is here so that the
// signature covers everything a process is given.
func run(ctx context.Context, args []string, getenv func(string) string,
	stdin io.Reader, stdout, stderr io.Writer) int {
	_ = stdin
	c := &cli{getenv: getenv, stdout: stdout, stderr: stderr, sleep: sleepCtx}
	if isTerminal(stderr) {
		// Progress is for a person watching; every other write to stderr
		// goes through the status line, which clears it first.
		c.status = &statusLine{w: stderr}
		c.stderr = c.status
	}
	return c.main(ctx, args)
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

// main runs the command line and turns its outcome into an exit code and,
// on failure, a message on stderr.
func (c *cli) main(ctx context.Context, args []string) int {
	err := c.dispatch(ctx, args)
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
		return usagef("", "%v", err)
	}
	if *showVersion {
		fmt.Fprintf(c.stdout, "catalogctl %s\n", version)
		return nil
	}
	if envURL != "" && !isSet(fs, "base-url") {
		g.baseURLSource = "CATALOG_BASE_URL"
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return usagef("", "no command given; use one of catalog, products, product")
	}
	name, rest := rest[0], rest[1:]
	switch name {
	case "catalog":
		return c.catalogCmd(ctx, g, rest)
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
			return usagef("", "unknown command %q; use one of catalog, products, product", rest[0])
		}
		return c.dispatch(ctx, []string{rest[0], "--help"})
	}
	return usagef("", "unknown command %q; use one of catalog, products, product", name)
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
	return newClient(base, g.timeout, ua, c.sleep, c.stderr), nil
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

func (c *cli) catalogCmd(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet("catalog")
	asJSON := fs.Bool("json", false, "print the API's JSON instead of text")
	pos, err := c.parseCommand(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("catalog", "catalog takes no arguments, got %q", pos)
	}
	cl, err := c.client(g)
	if err != nil {
		return err
	}
	idx, resp, err := cl.index(ctx)
	if err != nil {
		return err
	}
	return c.output(func(w io.Writer) error {
		if *asJSON {
			return writeJSON(w, resp.body)
		}
		return renderIndex(w, idx)
	})
}

func (c *cli) productsCmd(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet("products")
	framework := fs.String("framework", "", "only products for framework `F`, one of "+strings.Join(api.Frameworks, ", "))
	category := fs.String("category", "", "only products in category `C` (a slug) or its subcategories")
	perPage := fs.String("per-page", "", fmt.Sprintf("`N` products per page, 1 to %d (the API's default is %d)", api.MaxPerPage, api.DefaultPerPage))
	page := fs.String("page", "", "show page `N`, from 1")
	all := fs.Bool("all", false, fmt.Sprintf("every product: follows the list's next links, %d a page, minding the rate limit", api.MaxPerPage))
	asJSON := fs.Bool("json", false, "print the API's JSON; with --all one object with all products and the total")
	pos, err := c.parseCommand(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("products", "products takes no arguments, got %q (filters are options: --category, --framework)", pos)
	}
	if *all && (isSet(fs, "page") || isSet(fs, "per-page")) {
		return usagef("products", "--all reads every page %d at a time; leave out --page and --per-page", api.MaxPerPage)
	}
	// The API's own parser checks the values, so that catalogctl rejects
	// exactly what the server would, before sending anything.
	// Only the options given are sent: the server's defaults stay the
	// server's.
	q := url.Values{}
	flagOf := map[string]string{}
	for _, o := range []struct {
		param, flag string
		value       *string
	}{{"page", "page", page}, {"per_page", "per-page", perPage}, {"category", "category", category}, {"framework", "framework", framework}} {
		if isSet(fs, o.flag) {
			q.Set(o.param, *o.value)
			flagOf[o.param] = "--" + o.flag
		}
	}
	if _, problems := api.ParseListQuery(q); len(problems) > 0 {
		return usagef("products", "%s", describeParams(problems, flagOf))
	}
	cl, err := c.client(g)
	if err != nil {
		return err
	}
	if *all {
		var progress func(page, pages int)
		if c.status != nil {
			progress = func(page, pages int) { c.status.show(fmt.Sprintf("catalogctl: page %d/%d…", page, pages)) }
		}
		res, err := cl.allProducts(ctx, q, progress)
		if c.status != nil {
			c.status.clear() // before the table, on the same terminal
		}
		if err != nil {
			return err
		}
		if len(res.products) != res.total {
			fmt.Fprintf(c.stderr, "catalogctl: warning: the catalog changed while paging: %d products read, total now %d\n",
				len(res.products), res.total)
		}
		return c.output(func(w io.Writer) error {
			if *asJSON {
				return writeAllJSON(w, res)
			}
			if err := renderTable(w, res.products); err != nil {
				return err
			}
			_, err := fmt.Fprintln(w, countLine(res.total))
			return err
		})
	}
	pg, err := cl.products(ctx, q)
	if err != nil {
		return err
	}
	return c.output(func(w io.Writer) error {
		if *asJSON {
			return writeJSON(w, pg.body)
		}
		if err := renderTable(w, pg.list.Products); err != nil {
			return err
		}
		_, err := fmt.Fprintln(w, pagingLine(&pg.list))
		return err
	})
}

// describeParams words the API's parameter problems in terms of the flags.
func describeParams(problems api.Problems, flagOf map[string]string) string {
	var msgs []string
	for _, p := range []string{"page", "per_page", "category", "framework"} {
		msg, ok := problems[p]
		if !ok {
			continue
		}
		name := flagOf[p]
		if name == "" {
			name = p
		}
		if rest, ok := strings.CutPrefix(msg, p+" "); ok {
			msg = name + " " + rest
		} else {
			msg = name + ": " + msg
		}
		msgs = append(msgs, strings.TrimSuffix(msg, "."))
	}
	return strings.Join(msgs, "; ")
}

func (c *cli) productCmd(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet("product")
	asJSON := fs.Bool("json", false, "print the API's JSON instead of text")
	pos, err := c.parseCommand(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return usagef("product", "product needs a slug, e.g. catalogctl product dispatch-system")
	case len(pos) > 1:
		return usagef("product", "product takes one slug, got %d arguments: %q", len(pos), pos)
	}
	// The server's own rule: the slug as the list shows it (other
	// characters percent-encoded) or decoded to UTF-8; one spelling is sent.
	slug, ok := api.CanonicalSlug(pos[0])
	if !ok {
		return usagef("product", "%q is not a product slug: use the slug as the product list shows it, lowercase letters, digits, underscores, hyphens and percent-encoded characters (at most %d), or decoded to UTF-8",
			pos[0], api.MaxSlugLength)
	}
	cl, err := c.client(g)
	if err != nil {
		return err
	}
	p, resp, err := cl.product(ctx, slug)
	if err != nil {
		return err
	}
	return c.output(func(w io.Writer) error {
		if *asJSON {
			return writeJSON(w, resp.body)
		}
		return renderProduct(w, p)
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
			return nil, usagef(fs.Name(), "%v", err)
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
