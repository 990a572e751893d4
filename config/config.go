// Package config reads catalogd's settings: command-line flags, each with a
// CATALOG_* environment variable twin. A flag wins over its variable, and a
// bad value stops start-up with one line per mistake naming the setting,
// the value and what it expects, flag and variable alike.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"catalogd/internal/flagerr"
	"catalogd/purge"
	"catalogd/wpdb"
)

// Config is catalogd's configuration.
type Config struct {
	DSN           string        // go-sql-driver DSN of the shop's database
	DSNFile       string        // the file DSN was read from, read again when it changes; "": --dsn's
	TablePrefix   string        // WordPress table prefix
	Listen        string        // public listener
	AdminListen   string        // health, readiness and metrics; never public
	SiteURL       string        // origin of every URL; empty: the home option
	Namespace     string        // API namespace word
	UploadsURL    string        // uploads base URL override
	DevelopersURL string        // developer page the index links
	QueryTimeout  time.Duration // deadline of one request's database reads
	DBLoadTimeout time.Duration // deadline of a whole read of the shop
	DBMaxOpen     int           // open database connections at most
	DBLoadStreams int           // connections a whole read of the shop reads on at once
	MaxConns      int           // public connections open at once, at most
	IdleTimeout   time.Duration // how long an idle keep-alive connection is kept
	ShutdownDrain time.Duration // how long the stop keeps answering, /readyz failing, before it stops listening
	RateLimit     int           // advisory requests per minute per client IP
	LogFormat     string        // text or json
	LogLevel      string        // debug, info, warn, error
	AccessLog     bool          // log every request

	CacheTTL        time.Duration // origin cache freshness; 0 turns it off
	CacheStale      time.Duration // how long a copy may stand in for a failed database
	CacheMaxEntries int           // responses kept at most
	CacheMaxMB      int           // megabytes the cached responses hold at most
	CacheMaxEntryMB int           // the largest response cached, in megabytes; 0: a quarter of CacheMaxMB
	PollInterval    time.Duration // how often the poll source's cheap reads run
	// Changes is the change source: binlog (follow the binary log), poll,
	// or auto (binlog when the server and grants allow it, else poll).
	Changes string
	// PollBudget is the share of one database core the poll source's
	// full product scan may use; its period adapts to its cost.
	PollBudget float64
	// What a 200's Cache-Control lets downstream caches do, each capped by
	// the next sale start or end among the products shown.
	MaxAge               time.Duration // browsers
	SMaxAge              time.Duration // shared caches: a CDN, Varnish, nginx
	StaleWhileRevalidate time.Duration
	StaleIfError         time.Duration
	TrustedProxies       []netip.Prefix // peers whose X-Forwarded-For is believed
	EnforceRate          bool           // answer 429 past the rate limit
	Language             string         // language served on a WPML/Polylang shop; empty: the plugin's default
	SitemapURL           string         // sitemap the index links; empty: detected, "none": no link
	// TagHeader is the purge tag header responses carry: auto,
	// surrogate-key, cache-tag or both. TagHeaders resolves auto.
	TagHeader string

	// The edge caches catalogd purges when the shop changes (package
	// purge); none set, none purged.
	PurgeVarnish             []string      // Varnish base URLs, http://host:port
	PurgeVarnishSecret       Secret        // the shared secret the shipped VCL asks of a purge
	PurgeVarnishSecretFile   string        // as PurgeFastlyTokenFile
	PurgeFastlyService       string        // Fastly service ID
	PurgeFastlyToken         Secret        // Fastly API token (purge_select)
	PurgeFastlyTokenFile     string        // the file it was read from, read again when it changes; "": the environment's
	PurgeFastlyAPI           string        // Fastly's API, or a stand-in's
	PurgeFastlySoft          bool          // soft purge: mark stale rather than evict
	PurgeCloudflareZone      string        // Cloudflare zone ID
	PurgeCloudflareToken     Secret        // Cloudflare API token (Zone / Cache Purge)
	PurgeCloudflareTokenFile string        // as PurgeFastlyTokenFile
	PurgeCloudflareAPI       string        // Cloudflare's API, or a stand-in's
	PurgeCloudflareBatch     int           // tags per purge request
	PurgeCloudflareInterval  time.Duration // least time between two purge rounds
	// AllowWritableUser says a database user that can write is meant (the
	// demo's throwaway database): no warning at start, an INFO line.
	AllowWritableUser bool
}

// ErrVersion is Load's answer to --version: the caller prints the version
// and exits 0, as it does for flag.ErrHelp after Load printed the help.
var ErrVersion = errors.New("config: --version")

// UsageError is a command line or environment catalogd cannot start with:
// each of Problems is one line naming the setting, the value and what it
// expects.
type UsageError struct {
	Problems []string
	// JSON says the log is JSON (--log-format json), as far as the settings
	// were read: the problems are written as its records.
	JSON bool
}

func (e *UsageError) Error() string { return strings.Join(e.Problems, "\n") }

// helpPointer ends each usage line: where every setting is explained.
const helpPointer = " (see catalogd --help)"

func usageErr(problems ...string) *UsageError {
	for i := range problems {
		problems[i] += helpPointer
	}
	return &UsageError{Problems: problems}
}

// TagHeaders is the purge tag header(s) to send: "surrogate-key",
// "cache-tag" or "both". auto is Cache-Tag when Cloudflare is the only
// purge target configured (Cloudflare purges by Cache-Tag and ignores
// Surrogate-Key), else Surrogate-Key (Fastly, Varnish xkey, and the
// default for a shop that purges its own way).
func (c *Config) TagHeaders() string {
	if c.TagHeader != "auto" && c.TagHeader != "" {
		return c.TagHeader
	}
	if c.cloudflareOnly() {
		return "cache-tag"
	}
	return "surrogate-key"
}

// cloudflareOnly reports whether Cloudflare is the only purge target.
func (c *Config) cloudflareOnly() bool {
	return c.PurgeCloudflareZone != "" && len(c.PurgeVarnish) == 0 && c.PurgeFastlyService == ""
}

// Load reads the configuration from args (without the program name) and
// the environment. --help writes the help to help and returns
// flag.ErrHelp; --version returns ErrVersion; a mistake returns a
// *UsageError. Nothing else is written: the caller prints the error.
func Load(args []string, getenv func(string) string, help io.Writer) (*Config, error) {
	return load(args, getenv, help, false)
}

// load is Load; listenersOnly checks the listen addresses alone
// (LoadListeners).
func load(args []string, getenv func(string) string, help io.Writer, listenersOnly bool) (_ *Config, err error) {
	c := &Config{}
	fs := flag.NewFlagSet("catalogd", flag.ContinueOnError)
	defer markJSON(fs, getenv, &err)
	// The flag package would print each error, then the whole usage, to
	// its output: the caller prints the one line instead.
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.DSN, "dsn", "", "go-sql-driver DSN of the shop's database, e.g. catalog:pw@tcp(127.0.0.1:3306)/wordpress (required, or --dsn-file)")
	fs.StringVar(&c.DSNFile, "dsn-file", "", "file holding the DSN, instead of --dsn (whose value shows in ps); read again when it changes: new connections take its user and password, without a restart")
	fs.StringVar(&c.TablePrefix, "table-prefix", "wp_", "WordPress table prefix")
	fs.StringVar(&c.Listen, "listen", "127.0.0.1:8080", "public listen address, host:port; loopback by default, behind a proxy on the same host (:8080 for every interface, as in a container)")
	fs.StringVar(&c.AdminListen, "admin-listen", "127.0.0.1:9090", "admin listen address for /healthz and /readyz, host:port; keep it private")
	fs.StringVar(&c.SiteURL, "site-url", "", "site origin for every URL, e.g. https://shop.example (default: the home option)")
	fs.StringVar(&c.Namespace, "namespace", "shop", "API namespace word: the API lives at /wp-json/{namespace}/v1")
	fs.StringVar(&c.UploadsURL, "uploads-url", "", "uploads base URL, for sites that move uploads with PHP constants (default: from the options)")
	fs.StringVar(&c.DevelopersURL, "developers-url", "", "developer page the index links (default: none)")
	fs.StringVar(&c.SitemapURL, "sitemap-url", "", "sitemap index the catalog index and llms.txt link, or none to link no sitemap (default: the one the shop serves: Yoast SEO's or Rank Math's /sitemap_index.xml, else WordPress's /wp-sitemap.xml while search engines are welcome)")
	fs.StringVar(&c.Language, "language", "", "language served on a multilingual shop, as WPML or Polylang names it (default: the plugin's default language)")
	fs.StringVar(&c.LogFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&c.LogLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.DurationVar(&c.QueryTimeout, "query-timeout", 5*time.Second, "deadline of one request's database reads")
	fs.IntVar(&c.DBMaxOpen, "db-max-open", 10, "open database connections at most")
	// 2 minutes: a large shop's whole read takes seconds, and the largest
	// may near it (docs/performance.md#how-memory-and-start-up-grow-with-the-shop):
	// such a shop raises it.
	fs.DurationVar(&c.DBLoadTimeout, "db-load-timeout", 2*time.Minute, "deadline of a whole read of the shop (start-up, the safety re-read) and of each of its statements; raise it for a shop whose read nears it (a million products: 5m)")
	fs.IntVar(&c.DBLoadStreams, "db-load-streams", 4, "connections a whole read of the shop reads on at once, their transactions one snapshot; 1 reads it in one transaction (at most --db-max-open minus 2)")
	// 1024 connections bound what idle ones hold (a goroutine and its
	// buffers each: docs/performance.md#other-figures-behind-the-codes-choices)
	// and still dwarf what the proxy in front keeps open (nginx's upstream
	// keepalive 16 per worker plus the requests in flight).
	fs.IntVar(&c.MaxConns, "max-conns", 1024, "public connections open at once, at most; more wait until one closes")
	// 30s outlives a proxy's or browser's pause between requests yet frees
	// an abandoned connection soon; nginx retries a GET whose cached
	// upstream connection was closed meanwhile.
	fs.DurationVar(&c.IdleTimeout, "idle-timeout", 30*time.Second, "how long an idle keep-alive connection is kept open")
	fs.DurationVar(&c.ShutdownDrain, "shutdown-drain", DefaultShutdownDrain, fmt.Sprintf("how long catalogd keeps answering after SIGTERM or Ctrl-C, /readyz failing, so that proxies and load balancers move off it before it stops listening; then the requests in flight and the edge purges waiting get %s more. 0 stops at once, as does a second SIGTERM or Ctrl-C", ShutdownGrace))
	fs.IntVar(&c.RateLimit, "rate-limit", 60, "advisory requests per minute per client IP, shown in the RateLimit headers")

	fs.BoolVar(&c.AccessLog, "access-log", true, "log every request; a health probe (HEAD of the catalog index) only when its status changes")
	fs.DurationVar(&c.CacheTTL, "cache-ttl", 10*time.Minute, "how long a response is served from memory; 0 turns the origin cache off")
	fs.DurationVar(&c.CacheStale, "cache-stale", 24*time.Hour, "how old a cached copy served while the database fails may be")
	fs.IntVar(&c.CacheMaxEntries, "cache-max-entries", 10000, "responses the origin cache keeps at most")
	fs.IntVar(&c.CacheMaxMB, "cache-max-mb", 64, "megabytes the origin cache's responses hold at most")
	fs.IntVar(&c.CacheMaxEntryMB, "cache-max-entry-mb", 0, "the largest response cached (and gzipped), in megabytes; 0 is a quarter of --cache-max-mb")
	fs.DurationVar(&c.MaxAge, "max-age", 10*time.Minute, "how long a browser may keep a response (Cache-Control max-age)")
	fs.DurationVar(&c.SMaxAge, "s-maxage", 10*time.Minute, "how long a CDN or proxy cache may keep a response (s-maxage)")
	fs.DurationVar(&c.StaleWhileRevalidate, "stale-while-revalidate", time.Minute, "how long past its lifetime a cache may serve a response while it fetches a new one")
	fs.DurationVar(&c.StaleIfError, "stale-if-error", 24*time.Hour, "how long past its lifetime a cache may serve a response while catalogd fails")
	fs.DurationVar(&c.PollInterval, "poll-interval", 2*time.Second, "how often the poll source reads the shop's options, terms and scheduled products")
	fs.StringVar(&c.Changes, "changes", "auto", "where changes in the shop are seen: binlog (the binary log, needs REPLICATION SLAVE and REPLICATION CLIENT), poll, or auto (binlog when the server and grants allow it, else poll)")
	fs.Float64Var(&c.PollBudget, "poll-budget", 0.01, "the share of one database core the poll source's product scan may use; its period adapts to its cost")
	fs.StringVar(&c.TagHeader, "tag-header", "auto", "the purge tag header responses carry: surrogate-key (Fastly, Varnish xkey), cache-tag (Cloudflare), both, or auto (cache-tag when Cloudflare is the only purge target configured, else surrogate-key)")
	fs.BoolVar(&c.EnforceRate, "rate-limit-enforce", false, "answer 429 past the rate limit (the edge usually enforces)")
	var varnish string
	fs.StringVar(&varnish, "purge-varnish", "", "comma-separated base URLs of Varnish servers (with xkey) to purge when the shop changes: their purge listeners, e.g. http://127.0.0.1:6091 with deploy/varnish")
	fs.StringVar(&c.PurgeVarnishSecretFile, "purge-varnish-secret-file", "", "file holding the shared secret Varnish asks of every purge (the shipped VCL reads /etc/catalogd/varnish-purge-secret), read again when it changes; or set CATALOG_PURGE_VARNISH_SECRET")
	fs.StringVar(&c.PurgeFastlyService, "purge-fastly-service", "", "Fastly service ID to purge by surrogate key when the shop changes; the token comes from CATALOG_PURGE_FASTLY_TOKEN or --purge-fastly-token-file")
	fs.StringVar(&c.PurgeFastlyTokenFile, "purge-fastly-token-file", "", "file holding the Fastly API token (purge_select scope), read again when it changes; or set CATALOG_PURGE_FASTLY_TOKEN")
	fs.StringVar(&c.PurgeFastlyAPI, "purge-fastly-api", purge.FastlyAPI, "Fastly's API base URL (a stand-in's in tests)")
	fs.BoolVar(&c.PurgeFastlySoft, "purge-fastly-soft", false, "soft-purge on Fastly (Fastly-Soft-Purge: 1): mark responses stale instead of evicting them, so stale-while-revalidate and stale-if-error still serve them")
	fs.StringVar(&c.PurgeCloudflareZone, "purge-cloudflare-zone", "", "Cloudflare zone ID to purge by Cache-Tag when the shop changes; the token comes from CATALOG_PURGE_CLOUDFLARE_TOKEN or --purge-cloudflare-token-file")
	fs.StringVar(&c.PurgeCloudflareTokenFile, "purge-cloudflare-token-file", "", "file holding the Cloudflare API token (Zone / Cache Purge permission), read again when it changes; or set CATALOG_PURGE_CLOUDFLARE_TOKEN")
	fs.StringVar(&c.PurgeCloudflareAPI, "purge-cloudflare-api", purge.CloudflareAPI, "Cloudflare's API base URL (a stand-in's in tests)")
	fs.IntVar(&c.PurgeCloudflareBatch, "purge-cloudflare-batch", purge.CloudflareMaxTags, "tags per Cloudflare purge request (Cloudflare allows 100 on every plan)")
	fs.DurationVar(&c.PurgeCloudflareInterval, "purge-cloudflare-interval", purge.CloudflareInterval, "least time between two Cloudflare purge rounds; raise it to 12s on the Free plan (5 purge requests a minute)")
	trusted := "127.0.0.1/32,::1/128"
	fs.StringVar(&trusted, "trusted-proxies", trusted, "comma-separated CIDRs of proxies whose X-Forwarded-For is believed; empty trusts none")
	fs.BoolVar(&c.AllowWritableUser, "allow-writable-user", false, "a database user that can write is meant (make demo's throwaway database): say so at INFO instead of warning; production wants a SELECT-only user")

	// Every flag's help names its variable, which its name gives.
	fs.VisitAll(func(f *flag.Flag) { f.Usage += " [" + envName(f.Name) + "]" })
	// --help and --version are commands, not settings: no variable.
	showVersion := fs.Bool("version", false, "print catalogd's version and commit, and exit")
	// The flag package calls Usage on every mistake too: it prints only
	// when --help asked for it.
	fs.Usage = func() {}
	printHelp := func() {
		fmt.Fprintf(help, "Usage: catalogd [check | healthcheck] [flags]\n\n"+
			"Serves a WooCommerce shop's catalog as a read-only JSON API. Each flag has an\n"+
			"environment variable twin, named in brackets; a flag wins over its variable.\n"+
			"check: checks the settings, that both listen addresses are free and that the database lets\n"+
			"catalogd in (within --query-timeout), then exits: 0 all is right, 1 an address is taken,\n"+
			"2 a setting is wrong, 3 the database is not ready (catalogd would start, answering 503).\n"+
			"healthcheck: asks the admin listener's /readyz, then exits 0 (ready) or 1.\n\n")
		fs.SetOutput(help)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp()
			return nil, flag.ErrHelp
		}
		return nil, usageErr(flagProblem(fs, err))
	}
	if *showVersion {
		return nil, ErrVersion
	}
	if fs.NArg() > 0 {
		return nil, usageErr(fmt.Sprintf("unexpected argument %q: catalogd takes flags, after check or healthcheck first if given", fs.Arg(0)))
	}
	// A variable applies where its flag was not given: flags win.
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var refused []string
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "version" {
			return
		}
		if v := getenv(envName(f.Name)); v != "" && !given[f.Name] {
			if err := fs.Set(f.Name, v); err != nil {
				refused = append(refused, badValue(f, v))
			}
		}
	})
	if len(refused) > 0 {
		return nil, usageErr(refused...)
	}
	if listenersOnly {
		return c, c.listenersProblems()
	}
	var perr error
	if c.TrustedProxies, perr = parsePrefixes(trusted); perr != nil {
		return nil, usageErr(fmt.Sprintf("--trusted-proxies (%s): %q is not a valid value: want comma-separated CIDRs like 10.0.0.0/8,127.0.0.1/32 (%v)",
			envName("trusted-proxies"), trusted, perr))
	}
	for _, u := range strings.Split(varnish, ",") {
		if u = strings.TrimSpace(u); u != "" {
			c.PurgeVarnish = append(c.PurgeVarnish, u)
		}
	}
	terr := c.readDSNFile(nil)
	c.PurgeVarnishSecret, terr = secretSetting(getenv, "purge-varnish-secret", c.PurgeVarnishSecretFile, terr)
	c.PurgeFastlyToken, terr = secretSetting(getenv, "purge-fastly-token", c.PurgeFastlyTokenFile, terr)
	c.PurgeCloudflareToken, terr = secretSetting(getenv, "purge-cloudflare-token", c.PurgeCloudflareTokenFile, terr)
	if len(terr) > 0 {
		var problems []string
		for _, e := range terr {
			problems = append(problems, e.Error())
		}
		return nil, usageErr(problems...)
	}
	if problems := c.validate(); len(problems) > 0 {
		return nil, usageErr(problems...)
	}
	// One spelling of a base URL, here and only here: with and without a
	// trailing slash it names the same answers, and what hashes it (the
	// snapshot's digest, the Catalog-Snapshot identity) must not tell
	// two replicas apart that were given it either way.
	c.SiteURL = strings.TrimRight(c.SiteURL, "/")
	c.UploadsURL = strings.TrimRight(c.UploadsURL, "/")
	return c, nil
}

// badValue is the line for a value flag f refused.
func badValue(f *flag.Flag, v string) string {
	return fmt.Sprintf("--%s (%s): %q is not a valid value: want %s", f.Name, envName(f.Name), v, flagerr.Expects(f))
}

// flagProblem rewords the flag package's error as one line naming the
// setting, the value and what it expects: a refused value, an unknown
// flag, a flag without its value.
func flagProblem(fs *flag.FlagSet, err error) string {
	switch p := flagerr.Read(fs, err); p.Kind {
	case flagerr.BadValue:
		return badValue(p.Flag, p.Value)
	case flagerr.Unknown:
		return fmt.Sprintf("unknown flag --%s: catalogd has no such setting", p.Name)
	case flagerr.MissingValue:
		return fmt.Sprintf("--%s needs a value", p.Name)
	default:
		return p.Msg
	}
}

// Setting names a setting both ways, as every message about it does:
// "--admin-listen (CATALOG_ADMIN_LISTEN)".
func Setting(flagName string) string { return "--" + flagName + " (" + envName(flagName) + ")" }

// envName is the environment variable twin of the flag named flagName:
// CATALOG_ and the name in upper case, dashes made underscores
// (--db-max-open: CATALOG_DB_MAX_OPEN).
func envName(flagName string) string {
	return "CATALOG_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parsePrefixes reads a comma-separated list of CIDRs; a bare address is a
// single-host prefix.
func parsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return nil, err
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

var (
	namespaceRE = regexp.MustCompile(`^[a-z0-9-]{1,32}$`)
)

// validate checks every setting and names each bad one with what it
// expects, one line each.
func (c *Config) validate() []string {
	var errs []string
	bad := func(flagName, format string, args ...any) {
		errs = append(errs, Setting(flagName)+": "+fmt.Sprintf(format, args...))
	}
	if c.DSN == "" {
		bad("dsn", "required: the go-sql-driver DSN of the shop's database, e.g. catalog:secret@tcp(127.0.0.1:3306)/wordpress, or --dsn-file")
	} else if err := checkDSN(c.DSN); err != nil {
		bad("dsn", "%v", err)
	}
	if !wpdb.ValidPrefix(c.TablePrefix) {
		bad("table-prefix", "want letters, digits and underscores (like wp_), got %q", c.TablePrefix)
	}
	c.validateListeners(bad)
	for _, u := range []struct{ flag, v string }{
		{"site-url", c.SiteURL}, {"uploads-url", c.UploadsURL}, {"developers-url", c.DevelopersURL},
	} {
		if u.v == "" {
			continue
		}
		if p, err := url.Parse(u.v); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.RawQuery != "" || p.Fragment != "" {
			bad(u.flag, "want an absolute http(s) URL without query, like https://shop.example, got %q", u.v)
		}
	}
	if c.SitemapURL != "" && c.SitemapURL != "none" {
		// A query is allowed: WordPress's sitemap under plain permalinks
		// is /?sitemap=index.
		if p, err := url.Parse(c.SitemapURL); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.Fragment != "" {
			bad("sitemap-url", "want none or an absolute http(s) URL, like https://shop.example/sitemap_index.xml, got %q", c.SitemapURL)
		}
	}
	if !namespaceRE.MatchString(c.Namespace) {
		bad("namespace", "want 1 to 32 lowercase letters, digits or hyphens (like shop), got %q", c.Namespace)
	}
	if c.QueryTimeout < 10*time.Millisecond || c.QueryTimeout > 5*time.Minute {
		bad("query-timeout", "want a duration from 10ms to 5m (like 5s), got %s", c.QueryTimeout)
	}
	if c.DBMaxOpen < 1 || c.DBMaxOpen > 1000 {
		bad("db-max-open", "want a whole number from 1 to 1000, got %d", c.DBMaxOpen)
	}
	if c.DBLoadTimeout < 10*time.Second || c.DBLoadTimeout > time.Hour {
		bad("db-load-timeout", "want a duration from 10s to 1h (like 2m, or 5m for a million products), got %s", c.DBLoadTimeout)
	}
	if c.DBLoadStreams < 1 || c.DBLoadStreams > 16 {
		bad("db-load-streams", "want a whole number from 1 to 16, got %d", c.DBLoadStreams)
	}
	if c.MaxConns < 1 || c.MaxConns > 1_000_000 {
		bad("max-conns", "want a whole number from 1 to 1000000, got %d", c.MaxConns)
	}
	if c.IdleTimeout < time.Second || c.IdleTimeout > 10*time.Minute {
		bad("idle-timeout", "want a duration from 1s to 10m (like 30s), got %s", c.IdleTimeout)
	}
	if c.ShutdownDrain < 0 || c.ShutdownDrain > maxShutdownDrain {
		bad("shutdown-drain", "want a duration from 0 (stop at once) to 5m (like 10s), got %s", c.ShutdownDrain)
	}
	if c.RateLimit < 1 || c.RateLimit > 1_000_000 {
		bad("rate-limit", "want a whole number from 1 to 1000000, got %d", c.RateLimit)
	}
	if c.CacheTTL < 0 || c.CacheTTL > 24*time.Hour {
		bad("cache-ttl", "want a duration from 0 (off) to 24h, got %s", c.CacheTTL)
	}
	if c.CacheStale < 0 || c.CacheStale > 30*24*time.Hour {
		bad("cache-stale", "want a duration from 0 to 720h, got %s", c.CacheStale)
	}
	if c.CacheMaxEntries < 1 || c.CacheMaxEntries > 10_000_000 {
		bad("cache-max-entries", "want a whole number from 1 to 10000000, got %d", c.CacheMaxEntries)
	}
	if c.CacheMaxMB < 1 || c.CacheMaxMB > 64<<10 {
		bad("cache-max-mb", "want a whole number of megabytes from 1 to 65536, got %d", c.CacheMaxMB)
	}
	if c.CacheMaxEntryMB < 0 || c.CacheMaxEntryMB > c.CacheMaxMB {
		bad("cache-max-entry-mb", "want a whole number of megabytes from 0 (a quarter of --cache-max-mb) to --cache-max-mb, got %d", c.CacheMaxEntryMB)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"max-age", c.MaxAge}, {"s-maxage", c.SMaxAge},
		{"stale-while-revalidate", c.StaleWhileRevalidate}, {"stale-if-error", c.StaleIfError}} {
		if d.v < 0 || d.v > 30*24*time.Hour || d.v%time.Second != 0 {
			bad(d.name, "want whole seconds from 0 to 720h (like 10m), got %s", d.v)
		}
	}
	if c.PollInterval < 100*time.Millisecond || c.PollInterval > time.Hour {
		bad("poll-interval", "want a duration from 100ms to 1h (like 2s), got %s", c.PollInterval)
	}
	if c.Changes != "auto" && c.Changes != "binlog" && c.Changes != "poll" {
		bad("changes", "want auto, binlog or poll, got %q", c.Changes)
	}
	switch c.TagHeader {
	case "auto", "surrogate-key", "cache-tag", "both":
	default:
		bad("tag-header", "want auto, surrogate-key, cache-tag or both, got %q", c.TagHeader)
	}
	if c.PollBudget <= 0 || c.PollBudget > 1 {
		bad("poll-budget", "want a share of one core above 0 and at most 1 (like 0.01), got %v", c.PollBudget)
	}
	if c.Language != "" && !regexp.MustCompile(`^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})?$`).MatchString(c.Language) {
		bad("language", "want a language code like en or pt-br, got %q", c.Language)
	}
	c.validatePurge(bad)
	if c.LogFormat != "text" && c.LogFormat != "json" {
		bad("log-format", "want text or json, got %q", c.LogFormat)
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("log-level", "want debug, info, warn or error, got %q", c.LogLevel)
	}
	return errs
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 0 && n <= 65535
}

// checkDSN parses the DSN as wpdb.Open will, without echoing a password.
func checkDSN(dsn string) error {
	_, err := wpdb.ParseDSN(dsn)
	return err
}

var purgeIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// validatePurge checks the edge purge settings: each target complete (an
// ID needs its token and a token its ID), URLs absolute, IDs and tokens
// free of what would break a request line or header. A token is never
// quoted back.
func (c *Config) validatePurge(bad func(flagName, format string, args ...any)) {
	for _, v := range c.PurgeVarnish {
		if _, err := purge.VarnishURL(v); err != nil {
			bad("purge-varnish", "comma-separated: %v", err)
		}
	}
	if len(c.PurgeVarnish) == 0 && c.PurgeVarnishSecret != "" {
		bad("purge-varnish", "required with %s: the secret alone names nothing to purge", envName("purge-varnish-secret"))
	}
	if err := purge.CheckToken(c.PurgeVarnishSecret.Reveal()); err != nil {
		bad("purge-varnish-secret-file", "the secret in %s (or the file) %v", envName("purge-varnish-secret"), err)
	}
	for _, api := range []struct{ flag, v, like string }{
		{"purge-fastly-api", c.PurgeFastlyAPI, purge.FastlyAPI}, {"purge-cloudflare-api", c.PurgeCloudflareAPI, purge.CloudflareAPI},
	} {
		if _, err := purge.EndpointURL(api.v, api.like); err != nil {
			bad(api.flag, "%v", err)
		}
	}
	for _, t := range []struct {
		id, idFlag, tokenName string
		token                 Secret
	}{
		{c.PurgeFastlyService, "purge-fastly-service", "purge-fastly-token", c.PurgeFastlyToken},
		{c.PurgeCloudflareZone, "purge-cloudflare-zone", "purge-cloudflare-token", c.PurgeCloudflareToken},
	} {
		switch {
		case t.id != "" && !purgeIDRE.MatchString(t.id):
			bad(t.idFlag, "want the ID as the CDN's dashboard shows it (letters, digits, - and _), got %q", t.id)
		case t.id != "" && t.token == "":
			bad(t.idFlag, "needs an API token: set %s or --%s-file", envName(t.tokenName), t.tokenName)
		case t.id == "" && t.token != "":
			bad(t.idFlag, "required with %s: the token alone names nothing to purge", envName(t.tokenName))
		}
		if err := purge.CheckToken(t.token.Reveal()); err != nil {
			bad(t.tokenName+"-file", "the token in %s (or the file) %v", envName(t.tokenName), err)
		}
	}
	if c.PurgeCloudflareBatch < 1 || c.PurgeCloudflareBatch > 500 {
		bad("purge-cloudflare-batch", "want a whole number of tags from 1 to 500 (Cloudflare allows 100 per request), got %d", c.PurgeCloudflareBatch)
	}
	if c.PurgeCloudflareInterval < 100*time.Millisecond || c.PurgeCloudflareInterval > 10*time.Minute {
		bad("purge-cloudflare-interval", "want a duration from 100ms to 10m (like 1s, or 12s on the Free plan), got %s", c.PurgeCloudflareInterval)
	}
}
