// Package config reads catalogd's settings: command-line flags, each with a
// CATALOG_* environment variable twin. A flag wins over its variable, and a
// bad value stops start-up with a message naming the setting and what it
// expects.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"catalogd/wpdb"
)

// Config is catalogd's configuration.
type Config struct {
	DSN           string        // go-sql-driver DSN of the shop's database
	TablePrefix   string        // WordPress table prefix
	Listen        string        // public listener
	AdminListen   string        // health, readiness and metrics; never public
	SiteURL       string        // origin of every URL; empty: the home option
	Namespace     string        // API namespace word
	UploadsURL    string        // uploads base URL override
	DevelopersURL string        // developer page the index links
	QueryTimeout  time.Duration // deadline of one request's database reads
	DBMaxOpen     int           // open database connections at most
	MaxConns      int           // public connections open at once, at most
	IdleTimeout   time.Duration // how long an idle keep-alive connection is kept
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
}

// Load reads the configuration from args (without the program name) and
// the environment. Usage and flag errors go to usage.
func Load(args []string, getenv func(string) string, usage io.Writer) (*Config, error) {
	c := &Config{}
	envOf := map[string]string{} // each flag's environment twin
	fs := flag.NewFlagSet("catalogd", flag.ContinueOnError)
	fs.SetOutput(usage)
	str := func(p *string, name, env, def, help string) {
		envOf[name] = env
		fs.StringVar(p, name, def, help+" ["+env+"]")
	}
	str(&c.DSN, "dsn", "CATALOG_DSN", "", "go-sql-driver DSN of the shop's database, e.g. catalog:pw@tcp(127.0.0.1:3306)/wordpress (required)")
	str(&c.TablePrefix, "table-prefix", "CATALOG_TABLE_PREFIX", "wp_", "WordPress table prefix")
	str(&c.Listen, "listen", "CATALOG_LISTEN", ":8080", "public listen address, host:port")
	str(&c.AdminListen, "admin-listen", "CATALOG_ADMIN_LISTEN", "127.0.0.1:9090", "admin listen address for /healthz and /readyz, host:port; keep it private")
	str(&c.SiteURL, "site-url", "CATALOG_SITE_URL", "", "site origin for every URL, e.g. https://shop.example (default: the home option)")
	str(&c.Namespace, "namespace", "CATALOG_NAMESPACE", "shop", "API namespace word: the API lives at /wp-json/{namespace}/v1")
	str(&c.UploadsURL, "uploads-url", "CATALOG_UPLOADS_URL", "", "uploads base URL, for sites that move uploads with PHP constants (default: from the options)")
	str(&c.DevelopersURL, "developers-url", "CATALOG_DEVELOPERS_URL", "", "developer page the index links (default: none)")
	str(&c.SitemapURL, "sitemap-url", "CATALOG_SITEMAP_URL", "", "sitemap index the catalog index and llms.txt link, or none to link no sitemap (default: the one the shop serves: Yoast SEO's or Rank Math's /sitemap_index.xml, else WordPress's /wp-sitemap.xml while search engines are welcome)")
	str(&c.Language, "language", "CATALOG_LANGUAGE", "", "language served on a multilingual shop, as WPML or Polylang names it (default: the plugin's default language)")
	str(&c.LogFormat, "log-format", "CATALOG_LOG_FORMAT", "text", "log format: text or json")
	str(&c.LogLevel, "log-level", "CATALOG_LOG_LEVEL", "info", "log level: debug, info, warn or error")
	envOf["query-timeout"] = "CATALOG_QUERY_TIMEOUT"
	fs.DurationVar(&c.QueryTimeout, "query-timeout", 5*time.Second, "deadline of one request's database reads [CATALOG_QUERY_TIMEOUT]")
	envOf["db-max-open"] = "CATALOG_DB_MAX_OPEN"
	fs.IntVar(&c.DBMaxOpen, "db-max-open", 10, "open database connections at most [CATALOG_DB_MAX_OPEN]")
	// 1024 connections, each idle one costing ~20 KB, bound that memory to
	// ~20 MB and still dwarf what the proxy in front keeps open (nginx's
	// upstream keepalive 16 per worker plus the requests in flight).
	envOf["max-conns"] = "CATALOG_MAX_CONNS"
	fs.IntVar(&c.MaxConns, "max-conns", 1024, "public connections open at once, at most; more wait until one closes [CATALOG_MAX_CONNS]")
	// 30s outlives a proxy's or browser's pause between requests yet frees
	// an abandoned connection 4x sooner than the 120s before; nginx retries
	// a GET whose cached upstream connection was closed meanwhile.
	envOf["idle-timeout"] = "CATALOG_IDLE_TIMEOUT"
	fs.DurationVar(&c.IdleTimeout, "idle-timeout", 30*time.Second, "how long an idle keep-alive connection is kept open [CATALOG_IDLE_TIMEOUT]")
	envOf["rate-limit"] = "CATALOG_RATE_LIMIT"
	fs.IntVar(&c.RateLimit, "rate-limit", 60, "advisory requests per minute per client IP, shown in the RateLimit headers [CATALOG_RATE_LIMIT]")

	envOf["access-log"] = "CATALOG_ACCESS_LOG"
	fs.BoolVar(&c.AccessLog, "access-log", true, "log every request [CATALOG_ACCESS_LOG]")
	envOf["cache-ttl"] = "CATALOG_CACHE_TTL"
	fs.DurationVar(&c.CacheTTL, "cache-ttl", 10*time.Minute, "how long a response is served from memory; 0 turns the origin cache off [CATALOG_CACHE_TTL]")
	envOf["cache-stale"] = "CATALOG_CACHE_STALE"
	fs.DurationVar(&c.CacheStale, "cache-stale", 24*time.Hour, "how old a cached copy served while the database fails may be [CATALOG_CACHE_STALE]")
	envOf["cache-max-entries"] = "CATALOG_CACHE_MAX_ENTRIES"
	fs.IntVar(&c.CacheMaxEntries, "cache-max-entries", 10000, "responses the origin cache keeps at most [CATALOG_CACHE_MAX_ENTRIES]")
	envOf["cache-max-mb"] = "CATALOG_CACHE_MAX_MB"
	fs.IntVar(&c.CacheMaxMB, "cache-max-mb", 64, "megabytes the origin cache's responses hold at most [CATALOG_CACHE_MAX_MB]")
	envOf["cache-max-entry-mb"] = "CATALOG_CACHE_MAX_ENTRY_MB"
	fs.IntVar(&c.CacheMaxEntryMB, "cache-max-entry-mb", 0, "the largest response cached (and gzipped), in megabytes; 0 is a quarter of --cache-max-mb [CATALOG_CACHE_MAX_ENTRY_MB]")
	envOf["max-age"] = "CATALOG_MAX_AGE"
	fs.DurationVar(&c.MaxAge, "max-age", 10*time.Minute, "how long a browser may keep a response (Cache-Control max-age) [CATALOG_MAX_AGE]")
	envOf["s-maxage"] = "CATALOG_S_MAXAGE"
	fs.DurationVar(&c.SMaxAge, "s-maxage", 10*time.Minute, "how long a CDN or proxy cache may keep a response (s-maxage) [CATALOG_S_MAXAGE]")
	envOf["stale-while-revalidate"] = "CATALOG_STALE_WHILE_REVALIDATE"
	fs.DurationVar(&c.StaleWhileRevalidate, "stale-while-revalidate", time.Minute, "how long past its lifetime a cache may serve a response while it fetches a new one [CATALOG_STALE_WHILE_REVALIDATE]")
	envOf["stale-if-error"] = "CATALOG_STALE_IF_ERROR"
	fs.DurationVar(&c.StaleIfError, "stale-if-error", 24*time.Hour, "how long past its lifetime a cache may serve a response while catalogd fails [CATALOG_STALE_IF_ERROR]")
	envOf["poll-interval"] = "CATALOG_POLL_INTERVAL"
	fs.DurationVar(&c.PollInterval, "poll-interval", 2*time.Second, "how often the poll source reads the shop's options, terms and scheduled products [CATALOG_POLL_INTERVAL]")
	str(&c.Changes, "changes", "CATALOG_CHANGES", "auto", "where changes in the shop are seen: binlog (the binary log, needs REPLICATION SLAVE and REPLICATION CLIENT), poll, or auto (binlog when the server and grants allow it, else poll)")
	envOf["poll-budget"] = "CATALOG_POLL_BUDGET"
	fs.Float64Var(&c.PollBudget, "poll-budget", 0.01, "the share of one database core the poll source's product scan may use; its period adapts to its cost [CATALOG_POLL_BUDGET]")
	envOf["rate-limit-enforce"] = "CATALOG_RATE_LIMIT_ENFORCE"
	fs.BoolVar(&c.EnforceRate, "rate-limit-enforce", false, "answer 429 past the rate limit (the edge usually enforces) [CATALOG_RATE_LIMIT_ENFORCE]")
	trusted := "127.0.0.1/32,::1/128"
	str(&trusted, "trusted-proxies", "CATALOG_TRUSTED_PROXIES", trusted, "comma-separated CIDRs of proxies whose X-Forwarded-For is believed; empty trusts none")

	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: catalogd takes only flags", fs.Arg(0))
	}
	// A variable applies where its flag was not given: flags win.
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		env := envOf[f.Name]
		if v := getenv(env); v != "" && !given[f.Name] {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s (--%s): %q is not a valid value: want %s", env, f.Name, v, kindOf(f)))
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var perr error
	if c.TrustedProxies, perr = parsePrefixes(trusted); perr != nil {
		return nil, fmt.Errorf("--trusted-proxies (CATALOG_TRUSTED_PROXIES): want comma-separated CIDRs like 10.0.0.0/8,127.0.0.1/32: %v", perr)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
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

// kindOf says what kind of value a flag takes.
func kindOf(f *flag.Flag) string {
	switch f.Value.(flag.Getter).Get().(type) {
	case time.Duration:
		return "a duration like 5s or 500ms"
	case int:
		return "a whole number"
	case bool:
		return "true or false"
	}
	return "a string"
}

var (
	namespaceRE = regexp.MustCompile(`^[a-z0-9-]{1,32}$`)
)

// validate checks every setting and names each bad one with what it expects.
func (c *Config) validate() error {
	var errs []error
	bad := func(flagName, env, format string, args ...any) {
		errs = append(errs, fmt.Errorf("--%s (%s): %s", flagName, env, fmt.Sprintf(format, args...)))
	}
	if c.DSN == "" {
		bad("dsn", "CATALOG_DSN", "required: the go-sql-driver DSN of the shop's database, e.g. catalog:secret@tcp(127.0.0.1:3306)/wordpress")
	} else if err := checkDSN(c.DSN); err != nil {
		bad("dsn", "CATALOG_DSN", "%v", err)
	}
	if !wpdb.ValidPrefix(c.TablePrefix) {
		bad("table-prefix", "CATALOG_TABLE_PREFIX", "want letters, digits and underscores (like wp_), got %q", c.TablePrefix)
	}
	for _, l := range []struct{ flag, env, v string }{
		{"listen", "CATALOG_LISTEN", c.Listen}, {"admin-listen", "CATALOG_ADMIN_LISTEN", c.AdminListen},
	} {
		if _, port, err := net.SplitHostPort(l.v); err != nil || !validPort(port) {
			bad(l.flag, l.env, "want host:port (like :8080 or 127.0.0.1:9090), got %q", l.v)
		}
	}
	if c.Listen == c.AdminListen {
		bad("admin-listen", "CATALOG_ADMIN_LISTEN", "must differ from --listen: the admin endpoints are never public")
	}
	for _, u := range []struct{ flag, env, v string }{
		{"site-url", "CATALOG_SITE_URL", c.SiteURL}, {"uploads-url", "CATALOG_UPLOADS_URL", c.UploadsURL},
		{"developers-url", "CATALOG_DEVELOPERS_URL", c.DevelopersURL},
	} {
		if u.v == "" {
			continue
		}
		if p, err := url.Parse(u.v); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.RawQuery != "" || p.Fragment != "" {
			bad(u.flag, u.env, "want an absolute http(s) URL without query, like https://shop.example, got %q", u.v)
		}
	}
	if c.SitemapURL != "" && c.SitemapURL != "none" {
		// A query is allowed: WordPress's sitemap under plain permalinks
		// is /?sitemap=index.
		if p, err := url.Parse(c.SitemapURL); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.Fragment != "" {
			bad("sitemap-url", "CATALOG_SITEMAP_URL", "want none or an absolute http(s) URL, like https://shop.example/sitemap_index.xml, got %q", c.SitemapURL)
		}
	}
	if !namespaceRE.MatchString(c.Namespace) {
		bad("namespace", "CATALOG_NAMESPACE", "want 1 to 32 lowercase letters, digits or hyphens (like shop), got %q", c.Namespace)
	}
	if c.QueryTimeout < 10*time.Millisecond || c.QueryTimeout > 5*time.Minute {
		bad("query-timeout", "CATALOG_QUERY_TIMEOUT", "want a duration from 10ms to 5m (like 5s), got %s", c.QueryTimeout)
	}
	if c.DBMaxOpen < 1 || c.DBMaxOpen > 1000 {
		bad("db-max-open", "CATALOG_DB_MAX_OPEN", "want a whole number from 1 to 1000, got %d", c.DBMaxOpen)
	}
	if c.MaxConns < 1 || c.MaxConns > 1_000_000 {
		bad("max-conns", "CATALOG_MAX_CONNS", "want a whole number from 1 to 1000000, got %d", c.MaxConns)
	}
	if c.IdleTimeout < time.Second || c.IdleTimeout > 10*time.Minute {
		bad("idle-timeout", "CATALOG_IDLE_TIMEOUT", "want a duration from 1s to 10m (like 30s), got %s", c.IdleTimeout)
	}
	if c.RateLimit < 1 || c.RateLimit > 1_000_000 {
		bad("rate-limit", "CATALOG_RATE_LIMIT", "want a whole number from 1 to 1000000, got %d", c.RateLimit)
	}
	if c.CacheTTL < 0 || c.CacheTTL > 24*time.Hour {
		bad("cache-ttl", "CATALOG_CACHE_TTL", "want a duration from 0 (off) to 24h, got %s", c.CacheTTL)
	}
	if c.CacheStale < 0 || c.CacheStale > 30*24*time.Hour {
		bad("cache-stale", "CATALOG_CACHE_STALE", "want a duration from 0 to 720h, got %s", c.CacheStale)
	}
	if c.CacheMaxEntries < 1 || c.CacheMaxEntries > 10_000_000 {
		bad("cache-max-entries", "CATALOG_CACHE_MAX_ENTRIES", "want a whole number from 1 to 10000000, got %d", c.CacheMaxEntries)
	}
	if c.CacheMaxMB < 1 || c.CacheMaxMB > 64<<10 {
		bad("cache-max-mb", "CATALOG_CACHE_MAX_MB", "want a whole number of megabytes from 1 to 65536, got %d", c.CacheMaxMB)
	}
	if c.CacheMaxEntryMB < 0 || c.CacheMaxEntryMB > c.CacheMaxMB {
		bad("cache-max-entry-mb", "CATALOG_CACHE_MAX_ENTRY_MB", "want a whole number of megabytes from 0 (a quarter of --cache-max-mb) to --cache-max-mb, got %d", c.CacheMaxEntryMB)
	}
	for _, d := range []struct {
		name, env string
		v         time.Duration
	}{{"max-age", "CATALOG_MAX_AGE", c.MaxAge}, {"s-maxage", "CATALOG_S_MAXAGE", c.SMaxAge},
		{"stale-while-revalidate", "CATALOG_STALE_WHILE_REVALIDATE", c.StaleWhileRevalidate},
		{"stale-if-error", "CATALOG_STALE_IF_ERROR", c.StaleIfError}} {
		if d.v < 0 || d.v > 30*24*time.Hour || d.v%time.Second != 0 {
			bad(d.name, d.env, "want whole seconds from 0 to 720h (like 10m), got %s", d.v)
		}
	}
	if c.PollInterval < 100*time.Millisecond || c.PollInterval > time.Hour {
		bad("poll-interval", "CATALOG_POLL_INTERVAL", "want a duration from 100ms to 1h (like 2s), got %s", c.PollInterval)
	}
	if c.Changes != "auto" && c.Changes != "binlog" && c.Changes != "poll" {
		bad("changes", "CATALOG_CHANGES", "want auto, binlog or poll, got %q", c.Changes)
	}
	if c.PollBudget <= 0 || c.PollBudget > 1 {
		bad("poll-budget", "CATALOG_POLL_BUDGET", "want a share of one core above 0 and at most 1 (like 0.01), got %v", c.PollBudget)
	}
	if c.Language != "" && !regexp.MustCompile(`^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})?$`).MatchString(c.Language) {
		bad("language", "CATALOG_LANGUAGE", "want a language code like en or pt-br, got %q", c.Language)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		bad("log-format", "CATALOG_LOG_FORMAT", "want text or json, got %q", c.LogFormat)
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("log-level", "CATALOG_LOG_LEVEL", "want debug, info, warn or error, got %q", c.LogLevel)
	}
	return errors.Join(errs...)
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
