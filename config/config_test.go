package config

import (
	"errors"
	"flag"
	"io"
	"net/netip"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

const goodDSN = "catalog:s3cret@tcp(127.0.0.1:3306)/wordpress"

// env is a fake environment.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		env   func(string) string
		check func(t *testing.T, c *Config)
	}{
		{"defaults", nil, env("CATALOG_DSN", goodDSN), func(t *testing.T, c *Config) {
			// Both listeners on loopback: a public port on every
			// interface would let visitors past the proxy in front.
			if c.Listen != "127.0.0.1:8080" || c.AdminListen != "127.0.0.1:9090" || c.TablePrefix != "wp_" || c.Namespace != "shop" {
				t.Errorf("listen, admin, prefix, namespace = %q, %q, %q, %q; want 127.0.0.1:8080, 127.0.0.1:9090, wp_, shop",
					c.Listen, c.AdminListen, c.TablePrefix, c.Namespace)
			}
			if c.DSN != goodDSN {
				t.Errorf("DSN = %q", c.DSN)
			}
			if c.SiteURL != "" {
				t.Errorf("SiteURL = %q, want empty (the home option)", c.SiteURL)
			}
			if c.QueryTimeout <= 0 || c.DBMaxOpen < 1 || c.RateLimit != 60 {
				t.Errorf("query timeout, max open, rate limit = %v, %d, %d", c.QueryTimeout, c.DBMaxOpen, c.RateLimit)
			}
			if c.TagHeader != "auto" || c.TagHeaders() != "surrogate-key" {
				t.Errorf("tag header %q (%s), want auto: Surrogate-Key while no purge target says otherwise", c.TagHeader, c.TagHeaders())
			}
			if c.DBLoadTimeout != 2*time.Minute {
				t.Errorf("DBLoadTimeout = %v, want 2m", c.DBLoadTimeout)
			}
			if c.MaxConns != 1024 || c.IdleTimeout != 30*time.Second {
				t.Errorf("max conns, idle timeout = %d, %v; want 1024, 30s", c.MaxConns, c.IdleTimeout)
			}
			if c.ShutdownDrain != DefaultShutdownDrain {
				t.Errorf("ShutdownDrain = %v, want %v", c.ShutdownDrain, DefaultShutdownDrain)
			}
			// 200s say public, max-age=600 (the binding decisions).
			if c.MaxAge != 10*time.Minute || c.SMaxAge != 10*time.Minute || c.StaleWhileRevalidate != time.Minute || c.StaleIfError != 24*time.Hour {
				t.Errorf("max-age, s-maxage, swr, sie = %v, %v, %v, %v; want 10m, 10m, 1m, 24h",
					c.MaxAge, c.SMaxAge, c.StaleWhileRevalidate, c.StaleIfError)
			}
		}},
		{"dsn by flag", []string{"--dsn", goodDSN}, env(), func(t *testing.T, c *Config) {
			if c.DSN != goodDSN {
				t.Errorf("DSN = %q", c.DSN)
			}
		}},
		{"environment applied", nil, env("CATALOG_DSN", goodDSN, "CATALOG_LISTEN", "127.0.0.1:8000",
			"CATALOG_ADMIN_LISTEN", "127.0.0.1:8001", "CATALOG_TABLE_PREFIX", "shop_", "CATALOG_NAMESPACE", "acme",
			"CATALOG_SITE_URL", "https://shop.example", "CATALOG_QUERY_TIMEOUT", "2s", "CATALOG_DB_MAX_OPEN", "5", "CATALOG_DB_LOAD_STREAMS", "2", "CATALOG_DB_LOAD_TIMEOUT", "5m",
			"CATALOG_RATE_LIMIT", "120", "CATALOG_LOG_FORMAT", "json", "CATALOG_LOG_LEVEL", "debug",
			"CATALOG_CACHE_TTL", "1m", "CATALOG_TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.7", "CATALOG_RATE_LIMIT_ENFORCE", "true",
			"CATALOG_ACCESS_LOG", "false", "CATALOG_MAX_CONNS", "50", "CATALOG_IDLE_TIMEOUT", "5s", "CATALOG_SHUTDOWN_DRAIN", "0s", "CATALOG_S_MAXAGE", "1h", "CATALOG_CHANGES", "poll", "CATALOG_POLL_BUDGET", "0.05", "CATALOG_TAG_HEADER", "both"),
			func(t *testing.T, c *Config) {
				want := Config{DSN: goodDSN, Listen: "127.0.0.1:8000", AdminListen: "127.0.0.1:8001",
					TablePrefix: "shop_", Namespace: "acme", SiteURL: "https://shop.example",
					QueryTimeout: 2 * time.Second, DBMaxOpen: 5, DBLoadStreams: 2, DBLoadTimeout: 5 * time.Minute, RateLimit: 120, LogFormat: "json", LogLevel: "debug",
					CacheTTL: time.Minute, CacheStale: 24 * time.Hour, CacheMaxEntries: 10000, CacheMaxMB: 64,
					PollInterval: 2 * time.Second, Changes: "poll", PollBudget: 0.05, MaxAge: 10 * time.Minute, SMaxAge: time.Hour, StaleWhileRevalidate: time.Minute,
					StaleIfError: 24 * time.Hour, EnforceRate: true, AccessLog: false, MaxConns: 50, IdleTimeout: 5 * time.Second, ShutdownDrain: 0,
					TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32")},
					TagHeader:      "both",
					PurgeFastlyAPI: "https://api.fastly.com", PurgeCloudflareAPI: "https://api.cloudflare.com/client/v4",
					PurgeCloudflareBatch: 100, PurgeCloudflareInterval: time.Second}
				if !reflect.DeepEqual(*c, want) {
					t.Errorf("config = %+v\nwant     %+v", *c, want)
				}
			}},
		{"flag wins over its environment twin", []string{"--listen", "127.0.0.1:7000", "--namespace=flagged",
			"--query-timeout", "3s", "--db-max-open=7"},
			env("CATALOG_DSN", goodDSN, "CATALOG_LISTEN", "127.0.0.1:8000", "CATALOG_NAMESPACE", "acme",
				"CATALOG_QUERY_TIMEOUT", "2s", "CATALOG_DB_MAX_OPEN", "5", "CATALOG_TABLE_PREFIX", "env_"),
			func(t *testing.T, c *Config) {
				if c.Listen != "127.0.0.1:7000" || c.Namespace != "flagged" || c.QueryTimeout != 3*time.Second || c.DBMaxOpen != 7 {
					t.Errorf("listen, namespace, timeout, max open = %q, %q, %v, %d; want the flags' values",
						c.Listen, c.Namespace, c.QueryTimeout, c.DBMaxOpen)
				}
				if c.TablePrefix != "env_" {
					t.Errorf("TablePrefix = %q, want env_ (no flag given)", c.TablePrefix)
				}
			}},
		{"flag wins over a bad environment twin", []string{"--query-timeout", "3s"},
			env("CATALOG_DSN", goodDSN, "CATALOG_QUERY_TIMEOUT", "fast"), func(t *testing.T, c *Config) {
				if c.QueryTimeout != 3*time.Second {
					t.Errorf("QueryTimeout = %v, want 3s", c.QueryTimeout)
				}
			}},
		{"sitemap URL by env, flag wins, none and a query allowed", []string{"--sitemap-url", "none"},
			env("CATALOG_DSN", goodDSN, "CATALOG_SITEMAP_URL", "https://shop.example/?sitemap=index"), func(t *testing.T, c *Config) {
				if c.SitemapURL != "none" {
					t.Errorf("SitemapURL = %q, want none (the flag)", c.SitemapURL)
				}
				c2, err := Load(nil, env("CATALOG_DSN", goodDSN, "CATALOG_SITEMAP_URL", "https://shop.example/?sitemap=index"), io.Discard)
				if err != nil || c2.SitemapURL != "https://shop.example/?sitemap=index" {
					t.Errorf("SitemapURL by env = %q, %v", c2.SitemapURL, err)
				}
			}},
		{"db-load-timeout by flag, over its variable", []string{"--db-load-timeout", "10m"},
			env("CATALOG_DSN", goodDSN, "CATALOG_DB_LOAD_TIMEOUT", "3m"), func(t *testing.T, c *Config) {
				if c.DBLoadTimeout != 10*time.Minute {
					t.Errorf("DBLoadTimeout = %v, want 10m (the flag)", c.DBLoadTimeout)
				}
			}},
		{"db-load-timeout at its bounds", []string{"--db-load-timeout", "10s"}, env("CATALOG_DSN", goodDSN), func(t *testing.T, c *Config) {
			if c.DBLoadTimeout != 10*time.Second {
				t.Errorf("DBLoadTimeout = %v, want 10s", c.DBLoadTimeout)
			}
			c2, err := Load(nil, env("CATALOG_DSN", goodDSN, "CATALOG_DB_LOAD_TIMEOUT", "1h"), io.Discard)
			if err != nil || c2.DBLoadTimeout != time.Hour {
				t.Errorf("DBLoadTimeout by env 1h = %v, %v; want 1h", c2.DBLoadTimeout, err)
			}
		}},
		{"site and uploads URLs spelt one way, with or without a trailing slash", []string{"--site-url", "https://shop.example/"},
			env("CATALOG_DSN", goodDSN, "CATALOG_UPLOADS_URL", "https://cdn.example/uploads/"), func(t *testing.T, c *Config) {
				if c.SiteURL != "https://shop.example" || c.UploadsURL != "https://cdn.example/uploads" {
					t.Errorf("SiteURL, UploadsURL = %q, %q; want https://shop.example, https://cdn.example/uploads", c.SiteURL, c.UploadsURL)
				}
			}},
		{"empty prefix allowed", []string{"--table-prefix="}, env("CATALOG_DSN", goodDSN), func(t *testing.T, c *Config) {
			if c.TablePrefix != "" {
				t.Errorf("TablePrefix = %q, want empty", c.TablePrefix)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(tc.args, tc.env, io.Discard)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			tc.check(t, c)
		})
	}
}

func TestLoadRejects(t *testing.T) {
	dsn := []string{"CATALOG_DSN", goodDSN}
	tests := []struct {
		name   string
		args   []string
		env    []string
		want   []string // each must appear in the error message
		secret string   // must not appear in it
	}{
		{"missing DSN", nil, nil, []string{"CATALOG_DSN", "--dsn"}, ""},
		{"s-maxage negative", []string{"--s-maxage", "-1s"}, dsn, []string{"--s-maxage"}, ""},
		{"stale-if-error past 720h by env", nil, append(dsn, "CATALOG_STALE_IF_ERROR", "1000h"), []string{"CATALOG_STALE_IF_ERROR"}, ""},
		{"max-age not whole seconds", []string{"--max-age", "1500ms"}, dsn, []string{"--max-age"}, ""},
		{"DSN without database", nil, []string{"CATALOG_DSN", "catalog:s3cret@tcp(127.0.0.1:3306)"},
			[]string{"CATALOG_DSN"}, "s3cret"},
		{"DSN without @tcp", nil, []string{"CATALOG_DSN", "catalog:s3cret(127.0.0.1:3306)/wordpress"},
			[]string{"CATALOG_DSN", "@tcp"}, "s3cret"},
		{"DSN without @", []string{"--dsn", "catalog:s3cret/wordpress"}, nil, []string{"--dsn", "@tcp"}, "s3cret"},
		{"bad prefix by env", nil, append(dsn, "CATALOG_TABLE_PREFIX", "wp-"), []string{"CATALOG_TABLE_PREFIX", "--table-prefix", "wp-"}, ""},
		{"bad prefix by flag", []string{"--table-prefix", "wp-"}, dsn, []string{"--table-prefix"}, ""},
		{"listen abc by env", nil, append(dsn, "CATALOG_LISTEN", "abc"), []string{"CATALOG_LISTEN", "--listen", "abc"}, ""},
		{"listen abc by flag", []string{"--listen", "abc"}, dsn, []string{"--listen"}, ""},
		{"admin listen abc", nil, append(dsn, "CATALOG_ADMIN_LISTEN", "abc"), []string{"CATALOG_ADMIN_LISTEN"}, ""},
		{"listen port out of range", []string{"--listen", ":70000"}, dsn, []string{"--listen"}, ""},
		{"same listen and admin", nil, append(dsn, "CATALOG_LISTEN", "127.0.0.1:9000", "CATALOG_ADMIN_LISTEN", "127.0.0.1:9000"),
			[]string{"CATALOG_ADMIN_LISTEN", "--listen"}, ""},
		{"same listen and admin, admin default", []string{"--listen", "127.0.0.1:9090"}, dsn, []string{"--admin-listen"}, ""},
		{"namespace Shop! by env", nil, append(dsn, "CATALOG_NAMESPACE", "Shop!"), []string{"CATALOG_NAMESPACE", "--namespace"}, ""},
		{"namespace Shop! by flag", []string{"--namespace", "Shop!"}, dsn, []string{"--namespace"}, ""},
		{"site-url ftp by env", nil, append(dsn, "CATALOG_SITE_URL", "ftp://x"), []string{"CATALOG_SITE_URL", "--site-url"}, ""},
		{"site-url ftp by flag", []string{"--site-url", "ftp://x"}, dsn, []string{"--site-url"}, ""},
		{"site-url relative", []string{"--site-url", "shop.example"}, dsn, []string{"--site-url"}, ""},
		{"sitemap-url relative by env", nil, append(dsn, "CATALOG_SITEMAP_URL", "/sitemap.xml"), []string{"CATALOG_SITEMAP_URL", "--sitemap-url", "none"}, ""},
		{"sitemap-url off (not none) by flag", []string{"--sitemap-url", "off"}, dsn, []string{"--sitemap-url"}, ""},
		{"query-timeout fast via env", nil, append(dsn, "CATALOG_QUERY_TIMEOUT", "fast"), []string{"CATALOG_QUERY_TIMEOUT", "fast"}, ""},
		{"query-timeout zero", []string{"--query-timeout", "0s"}, dsn, []string{"--query-timeout"}, ""},
		{"db-max-open 0 by env", nil, append(dsn, "CATALOG_DB_MAX_OPEN", "0"), []string{"CATALOG_DB_MAX_OPEN", "--db-max-open"}, ""},
		{"db-max-open 0 by flag", []string{"--db-max-open", "0"}, dsn, []string{"--db-max-open"}, ""},
		{"db-max-open not a number via env", nil, append(dsn, "CATALOG_DB_MAX_OPEN", "many"), []string{"CATALOG_DB_MAX_OPEN"}, ""},
		{"db-load-timeout 9s by flag", []string{"--db-load-timeout", "9s"}, dsn, []string{"--db-load-timeout", "CATALOG_DB_LOAD_TIMEOUT", "from 10s to 1h", "got 9s"}, ""},
		{"db-load-timeout 0 by env", nil, append(dsn, "CATALOG_DB_LOAD_TIMEOUT", "0"), []string{"CATALOG_DB_LOAD_TIMEOUT", "--db-load-timeout", "from 10s to 1h"}, ""},
		{"db-load-timeout 2h by env", nil, append(dsn, "CATALOG_DB_LOAD_TIMEOUT", "2h"), []string{"CATALOG_DB_LOAD_TIMEOUT", "--db-load-timeout", "got 2h0m0s"}, ""},
		{"db-load-timeout not a duration by env", nil, append(dsn, "CATALOG_DB_LOAD_TIMEOUT", "long"), []string{"CATALOG_DB_LOAD_TIMEOUT", `"long"`, "want a duration"}, ""},
		{"db-load-streams 0 by flag", []string{"--db-load-streams", "0"}, dsn, []string{"--db-load-streams", "from 1 to 16"}, ""},
		{"db-load-streams 17 by env", nil, append(dsn, "CATALOG_DB_LOAD_STREAMS", "17"), []string{"CATALOG_DB_LOAD_STREAMS", "--db-load-streams"}, ""},
		{"log-format xml by env", nil, append(dsn, "CATALOG_LOG_FORMAT", "xml"), []string{"CATALOG_LOG_FORMAT", "--log-format"}, ""},
		{"log-format xml by flag", []string{"--log-format", "xml"}, dsn, []string{"--log-format"}, ""},
		{"changes sometimes", nil, append(dsn, "CATALOG_CHANGES", "sometimes"), []string{"CATALOG_CHANGES", "--changes", "auto, binlog or poll"}, ""},
		{"tag-header xkey", nil, append(dsn, "CATALOG_TAG_HEADER", "xkey"), []string{"CATALOG_TAG_HEADER", "--tag-header", "surrogate-key, cache-tag or both"}, ""},
		{"poll-budget 0 by flag", []string{"--poll-budget", "0"}, dsn, []string{"--poll-budget"}, ""},
		{"log-level loud", nil, append(dsn, "CATALOG_LOG_LEVEL", "loud"), []string{"CATALOG_LOG_LEVEL"}, ""},
		{"max-conns 0", nil, append(dsn, "CATALOG_MAX_CONNS", "0"), []string{"CATALOG_MAX_CONNS", "--max-conns"}, ""},
		{"idle-timeout 0 by flag", []string{"--idle-timeout", "0s"}, dsn, []string{"--idle-timeout"}, ""},
		{"shutdown-drain negative by flag", []string{"--shutdown-drain", "-1s"}, dsn, []string{"--shutdown-drain", "CATALOG_SHUTDOWN_DRAIN", "from 0 (stop at once) to 5m", "got -1s"}, ""},
		{"shutdown-drain past 5m by env", nil, append(dsn, "CATALOG_SHUTDOWN_DRAIN", "10m"), []string{"CATALOG_SHUTDOWN_DRAIN", "--shutdown-drain", "got 10m0s"}, ""},
		{"shutdown-drain not a duration by env", nil, append(dsn, "CATALOG_SHUTDOWN_DRAIN", "10"), []string{"CATALOG_SHUTDOWN_DRAIN", `"10"`, "want a duration"}, ""},
		{"rate-limit 0", nil, append(dsn, "CATALOG_RATE_LIMIT", "0"), []string{"CATALOG_RATE_LIMIT"}, ""},
		{"cache entry larger than the cache", nil, append(dsn, "CATALOG_CACHE_MAX_MB", "8", "CATALOG_CACHE_MAX_ENTRY_MB", "9"),
			[]string{"CATALOG_CACHE_MAX_ENTRY_MB", "--cache-max-entry-mb"}, ""},
		{"positional argument", []string{"serve"}, dsn, []string{"serve"}, ""},
		{"unknown flag", []string{"--nope"}, dsn, []string{"nope"}, ""},
		{"every bad setting named", nil, append(dsn, "CATALOG_NAMESPACE", "Shop!", "CATALOG_LOG_FORMAT", "xml", "CATALOG_LISTEN", "abc"),
			[]string{"CATALOG_NAMESPACE", "CATALOG_LOG_FORMAT", "CATALOG_LISTEN"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var usage strings.Builder
			c, err := Load(tc.args, env(tc.env...), &usage)
			if err == nil {
				t.Fatalf("Load accepted it: %+v", c)
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not name %q", msg, w)
				}
			}
			if tc.secret != "" && (strings.Contains(msg, tc.secret) || strings.Contains(usage.String(), tc.secret)) {
				t.Errorf("the password shows in the error: %q", msg)
			}
		})
	}
}

// TestEveryFlagHasItsVariable: each flag's help names the variable its
// name gives, and docs/operations.md's configuration table lists the same pairs,
// no more and no fewer.
func TestEveryFlagHasItsVariable(t *testing.T) {
	var help strings.Builder
	if _, err := Load([]string{"--help"}, env(), &help); err == nil {
		t.Fatal("--help: no error")
	}
	// Each flag's entry: "-name [type]", then its help on the next lines.
	helpOf := map[string]string{}
	for _, entry := range strings.Split(help.String(), "\n  -")[1:] {
		name, _, _ := strings.Cut(strings.Fields(entry)[0], "\n")
		helpOf[name] = entry
	}
	if len(helpOf) < 30 {
		t.Fatalf("help lists %d flags:\n%s", len(helpOf), help.String())
	}
	readme, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	table := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `--([a-z-]+)` \\| `(CATALOG_[A-Z_]+)` \\|").FindAllStringSubmatch(string(readme), -1) {
		table[m[1]] = m[2]
	}
	if !strings.Contains(helpOf["version"], "version") {
		t.Errorf("help lists no --version:\n%s", help.String())
	}
	delete(helpOf, "version") // a command, not a setting: no variable
	for name, entry := range helpOf {
		want := envName(name)
		if got, ok := table[name]; !ok || got != want {
			t.Errorf("docs/operations.md's configuration table: --%s with %q, want %s", name, got, want)
		}
		delete(table, name)
		if !strings.Contains(entry, "["+want+"]") {
			t.Errorf("--%s's help does not name %s:\n%s", name, want, entry)
		}
	}
	for name, v := range table {
		t.Errorf("docs/operations.md's configuration table lists --%s (%s), which catalogd lacks", name, v)
	}
}

func TestEnvName(t *testing.T) {
	for flagName, want := range map[string]string{
		"dsn": "CATALOG_DSN", "db-max-open": "CATALOG_DB_MAX_OPEN", "s-maxage": "CATALOG_S_MAXAGE",
		"rate-limit-enforce": "CATALOG_RATE_LIMIT_ENFORCE",
	} {
		if got := envName(flagName); got != want {
			t.Errorf("envName(%q) = %q, want %q", flagName, got, want)
		}
	}
}

// --tag-header=auto sends Cloudflare's Cache-Tag when Cloudflare is the only
// purge target (it ignores Surrogate-Key), Surrogate-Key otherwise; a
// setting other than auto wins.
func TestTagHeaderAuto(t *testing.T) {
	cloudflare := []string{"CATALOG_PURGE_CLOUDFLARE_ZONE", "zone1", "CATALOG_PURGE_CLOUDFLARE_TOKEN", "t0ken"}
	tests := []struct {
		name string
		kv   []string
		want string
	}{
		{"no purge target", nil, "surrogate-key"},
		{"Cloudflare alone", cloudflare, "cache-tag"},
		{"Cloudflare and Varnish", append([]string{"CATALOG_PURGE_VARNISH", "http://127.0.0.1:6091"}, cloudflare...), "surrogate-key"},
		{"Varnish alone", []string{"CATALOG_PURGE_VARNISH", "http://127.0.0.1:6091"}, "surrogate-key"},
		{"Cloudflare alone, both asked for", append([]string{"CATALOG_TAG_HEADER", "both"}, cloudflare...), "both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(nil, env(append([]string{"CATALOG_DSN", goodDSN}, tt.kv...)...), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.TagHeaders(); got != tt.want {
				t.Errorf("TagHeaders() = %q, want %q", got, tt.want)
			}
		})
	}
}

// A mistake is one line naming the setting, the value and what it
// expects, ending with where the help is, whether a flag or its variable
// carried it; the flag package's own words ("parse error", "flag provided
// but not defined") and its usage dump never reach the user.
func TestUsageErrorsAreOneLineEach(t *testing.T) {
	dsn := []string{"CATALOG_DSN", goodDSN}
	tests := []struct {
		name string
		args []string
		env  []string
		want []string // the lines, each ending with the help pointer
	}{
		{"bad duration by flag", []string{"--query-timeout", "fast"}, dsn,
			[]string{`--query-timeout (CATALOG_QUERY_TIMEOUT): "fast" is not a valid value: want a duration like 5s or 500ms`}},
		{"bad duration by flag=value", []string{"--query-timeout=fast"}, dsn,
			[]string{`--query-timeout (CATALOG_QUERY_TIMEOUT): "fast" is not a valid value: want a duration like 5s or 500ms`}},
		{"bad duration by variable", nil, append(dsn, "CATALOG_QUERY_TIMEOUT", "fast"),
			[]string{`--query-timeout (CATALOG_QUERY_TIMEOUT): "fast" is not a valid value: want a duration like 5s or 500ms`}},
		{"bad duration by flag, load timeout", []string{"--db-load-timeout", "300"}, dsn,
			[]string{`--db-load-timeout (CATALOG_DB_LOAD_TIMEOUT): "300" is not a valid value: want a duration like 5s or 500ms`}},
		{"load timeout out of range by variable", nil, append(dsn, "CATALOG_DB_LOAD_TIMEOUT", "90m"),
			[]string{`--db-load-timeout (CATALOG_DB_LOAD_TIMEOUT): want a duration from 10s to 1h (like 2m, or 5m for a million products), got 1h30m0s`}},
		{"bad number by flag", []string{"--db-max-open", "many"}, dsn,
			[]string{`--db-max-open (CATALOG_DB_MAX_OPEN): "many" is not a valid value: want a whole number`}},
		{"bad boolean by flag", []string{"--access-log=maybe"}, dsn,
			[]string{`--access-log (CATALOG_ACCESS_LOG): "maybe" is not a valid value: want true or false`}},
		{"unknown flag", []string{"--nope"}, dsn,
			[]string{`unknown flag --nope: catalogd has no such setting`}},
		{"flag without its value", []string{"--dsn"}, nil,
			[]string{`--dsn needs a value`}},
		{"out of range by flag", []string{"--db-max-open", "0"}, dsn,
			[]string{`--db-max-open (CATALOG_DB_MAX_OPEN): want a whole number from 1 to 1000, got 0`}},
		{"two bad variables", nil, append(dsn, "CATALOG_LOG_FORMAT", "xml", "CATALOG_NAMESPACE", "Shop!"),
			[]string{`--namespace (CATALOG_NAMESPACE): want 1 to 32 lowercase letters, digits or hyphens (like shop), got "Shop!"`,
				`--log-format (CATALOG_LOG_FORMAT): want text or json, got "xml"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var help strings.Builder
			_, err := Load(tt.args, env(tt.env...), &help)
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("Load: %v, want a *UsageError", err)
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, w+" (see catalogd --help)")
			}
			if !slices.Equal(ue.Problems, want) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(ue.Problems, "\n"), strings.Join(want, "\n"))
			}
			if help.Len() > 0 {
				t.Errorf("a mistake printed the help:\n%s", help.String())
			}
		})
	}
}

// --help writes the help and nothing else goes wrong; --version asks for
// the version, without needing a DSN.
func TestHelpAndVersion(t *testing.T) {
	var help strings.Builder
	if _, err := Load([]string{"--help"}, env(), &help); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: %v, want flag.ErrHelp", err)
	}
	for _, want := range []string{"Usage: catalogd [check | healthcheck] [flags]", "-dsn", "[CATALOG_DSN]", "-version"} {
		if !strings.Contains(help.String(), want) {
			t.Errorf("--help lacks %q:\n%s", want, help.String())
		}
	}
	help.Reset()
	if _, err := Load([]string{"--version"}, env(), &help); !errors.Is(err, ErrVersion) {
		t.Errorf("--version: %v, want ErrVersion", err)
	}
	if help.Len() > 0 {
		t.Errorf("--version wrote %q", help.String())
	}
}

// The admin listener never shares a port with the public one, spelt
// however: the public port would serve the admin endpoints, or one of
// the two would fail to start.
func TestListenersOverlap(t *testing.T) {
	tests := []struct {
		public, admin string
		overlap       bool
	}{
		{":8080", "127.0.0.1:9090", false},
		{"127.0.0.1:8080", "127.0.0.1:8080", true},
		{":9090", "127.0.0.1:9090", true},
		{"0.0.0.0:9090", "127.0.0.1:9090", true},
		{"[::]:9090", "127.0.0.1:9090", true},
		{"127.0.0.1:9090", "10.0.0.5:9090", false},
		{"127.0.0.1:8080", "127.0.0.1:9090", false},
	}
	for _, tt := range tests {
		_, err := Load(nil, env("CATALOG_DSN", goodDSN, "CATALOG_LISTEN", tt.public, "CATALOG_ADMIN_LISTEN", tt.admin), io.Discard)
		if got := err != nil && strings.Contains(err.Error(), "shares its port with --listen"); got != tt.overlap {
			t.Errorf("--listen %s, --admin-listen %s: %v; want refused %v", tt.public, tt.admin, err, tt.overlap)
		}
	}
}
