package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/purge"
)

const purgeToken = "tok-9f8e7d6c5b4a"

func TestPurgeSettings(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cf-token")
	if err := os.WriteFile(file, []byte(purgeToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		env   []string
		check func(t *testing.T, c *Config)
	}{
		{"none by default", nil, nil, func(t *testing.T, c *Config) {
			if len(c.PurgeVarnish) != 0 || c.PurgeFastlyService != "" || c.PurgeCloudflareZone != "" {
				t.Errorf("targets %v %q %q, want none", c.PurgeVarnish, c.PurgeFastlyService, c.PurgeCloudflareZone)
			}
			if c.PurgeFastlyAPI != "https://api.fastly.com" || c.PurgeCloudflareAPI != "https://api.cloudflare.com/client/v4" ||
				c.PurgeCloudflareBatch != 100 || c.PurgeCloudflareInterval != time.Second || c.PurgeFastlySoft {
				t.Errorf("defaults %q %q %d %v %v", c.PurgeFastlyAPI, c.PurgeCloudflareAPI, c.PurgeCloudflareBatch,
					c.PurgeCloudflareInterval, c.PurgeFastlySoft)
			}
		}},
		{"several Varnish by env", nil, []string{"CATALOG_PURGE_VARNISH", "http://127.0.0.1:6081, http://10.0.0.2:6081,"},
			func(t *testing.T, c *Config) {
				if want := []string{"http://127.0.0.1:6081", "http://10.0.0.2:6081"}; !slices.Equal(c.PurgeVarnish, want) {
					t.Errorf("PurgeVarnish %q, want %q", c.PurgeVarnish, want)
				}
			}},
		{"Varnish by flag", []string{"--purge-varnish", "https://varnish.internal"}, nil, func(t *testing.T, c *Config) {
			if !slices.Equal(c.PurgeVarnish, []string{"https://varnish.internal"}) {
				t.Errorf("PurgeVarnish %q", c.PurgeVarnish)
			}
		}},
		{"Varnish with its secret from a file", []string{"--purge-varnish", "http://127.0.0.1:6091", "--purge-varnish-secret-file", file}, nil,
			func(t *testing.T, c *Config) {
				if c.PurgeVarnishSecret.Reveal() != purgeToken || c.PurgeVarnishSecretFile != file {
					t.Errorf("secret file %q not read (or not trimmed)", c.PurgeVarnishSecretFile)
				}
			}},
		{"Varnish with its secret from the environment", nil, []string{"CATALOG_PURGE_VARNISH", "http://127.0.0.1:6091",
			"CATALOG_PURGE_VARNISH_SECRET", purgeToken}, func(t *testing.T, c *Config) {
			if c.PurgeVarnishSecret.Reveal() != purgeToken || c.PurgeVarnishSecretFile != "" {
				t.Errorf("secret from the environment not read")
			}
		}},
		{"Fastly with its token from the environment", nil, []string{"CATALOG_PURGE_FASTLY_SERVICE", "SU1Z0isxPaozGVKXdv0eY",
			"CATALOG_PURGE_FASTLY_TOKEN", purgeToken, "CATALOG_PURGE_FASTLY_SOFT", "true", "CATALOG_PURGE_FASTLY_API", "http://127.0.0.1:1"},
			func(t *testing.T, c *Config) {
				if c.PurgeFastlyService != "SU1Z0isxPaozGVKXdv0eY" || c.PurgeFastlyToken.Reveal() != purgeToken ||
					!c.PurgeFastlySoft || c.PurgeFastlyAPI != "http://127.0.0.1:1" {
					t.Errorf("fastly %q %v %q", c.PurgeFastlyService, c.PurgeFastlySoft, c.PurgeFastlyAPI)
				}
			}},
		{"Cloudflare with its token from a file", []string{"--purge-cloudflare-zone", "023e105f4ecef8ad9ca31a8372d0c353",
			"--purge-cloudflare-batch", "30", "--purge-cloudflare-interval", "12s"}, []string{"CATALOG_PURGE_CLOUDFLARE_TOKEN_FILE", file},
			func(t *testing.T, c *Config) {
				if c.PurgeCloudflareToken.Reveal() != purgeToken {
					t.Errorf("token from the file not read (or not trimmed)")
				}
				if c.PurgeCloudflareTokenFile != file {
					t.Errorf("PurgeCloudflareTokenFile %q, want %q: the target reads it again when it changes", c.PurgeCloudflareTokenFile, file)
				}
				if c.PurgeCloudflareBatch != 30 || c.PurgeCloudflareInterval != 12*time.Second {
					t.Errorf("batch, interval = %d, %v", c.PurgeCloudflareBatch, c.PurgeCloudflareInterval)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(tc.args, env(append([]string{"CATALOG_DSN", goodDSN}, tc.env...)...), io.Discard)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			tc.check(t, c)
		})
	}
}

func TestPurgeSettingsRejected(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(purgeToken), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		env  []string
		want []string
	}{
		{"Varnish without scheme", nil, []string{"CATALOG_PURGE_VARNISH", "127.0.0.1:6081"}, []string{"CATALOG_PURGE_VARNISH", "http://127.0.0.1:6081"}},
		{"Varnish secret without Varnish", nil, []string{"CATALOG_PURGE_VARNISH_SECRET", purgeToken},
			[]string{"CATALOG_PURGE_VARNISH", "required with CATALOG_PURGE_VARNISH_SECRET"}},
		{"Varnish secret file empty", []string{"--purge-varnish", "http://127.0.0.1:6091", "--purge-varnish-secret-file", empty}, nil,
			[]string{"--purge-varnish-secret-file", "is empty"}},
		{"Varnish secret with a space", nil, []string{"CATALOG_PURGE_VARNISH", "http://127.0.0.1:6091", "CATALOG_PURGE_VARNISH_SECRET", "abc " + purgeToken},
			[]string{"CATALOG_PURGE_VARNISH_SECRET", "space or control character"}},
		{"Fastly service without token", []string{"--purge-fastly-service", "abc"}, nil,
			[]string{"--purge-fastly-service", "CATALOG_PURGE_FASTLY_TOKEN", "--purge-fastly-token-file"}},
		{"Fastly token without service", nil, []string{"CATALOG_PURGE_FASTLY_TOKEN", purgeToken},
			[]string{"CATALOG_PURGE_FASTLY_SERVICE", "required with CATALOG_PURGE_FASTLY_TOKEN"}},
		{"Cloudflare token in both places", []string{"--purge-cloudflare-zone", "z1", "--purge-cloudflare-token-file", file},
			[]string{"CATALOG_PURGE_CLOUDFLARE_TOKEN", purgeToken}, []string{"CATALOG_PURGE_CLOUDFLARE_TOKEN", "both set"}},
		{"token file missing", []string{"--purge-cloudflare-zone", "z1", "--purge-cloudflare-token-file", file + ".nope"}, nil,
			[]string{"--purge-cloudflare-token-file", "no such file"}},
		{"token file empty", []string{"--purge-cloudflare-zone", "z1", "--purge-cloudflare-token-file", empty}, nil,
			[]string{"--purge-cloudflare-token-file", "is empty"}},
		{"token with a space", nil, []string{"CATALOG_PURGE_CLOUDFLARE_ZONE", "z1", "CATALOG_PURGE_CLOUDFLARE_TOKEN", "abc " + purgeToken},
			[]string{"CATALOG_PURGE_CLOUDFLARE_TOKEN", "space or control character"}},
		{"zone with a slash", nil, []string{"CATALOG_PURGE_CLOUDFLARE_ZONE", "../z", "CATALOG_PURGE_CLOUDFLARE_TOKEN", purgeToken},
			[]string{"CATALOG_PURGE_CLOUDFLARE_ZONE"}},
		{"API not a URL", []string{"--purge-fastly-api", "api.fastly.com"}, nil, []string{"--purge-fastly-api"}},
		// Refused as a Varnish URL with one is (purge.EndpointURL), and the
		// password, here the token, is not quoted back.
		{"API with a password", []string{"--purge-cloudflare-api", "https://cf:" + purgeToken + "@api.cloudflare.com/client/v4"}, nil,
			[]string{"--purge-cloudflare-api", "without user:password@"}},
		{"Cloudflare batch 0", nil, []string{"CATALOG_PURGE_CLOUDFLARE_BATCH", "0"}, []string{"CATALOG_PURGE_CLOUDFLARE_BATCH"}},
		{"Cloudflare interval 1ms", []string{"--purge-cloudflare-interval", "1ms"}, nil, []string{"--purge-cloudflare-interval"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var usage strings.Builder
			_, err := Load(tc.args, env(append([]string{"CATALOG_DSN", goodDSN}, tc.env...)...), &usage)
			if err == nil {
				t.Fatal("Load accepted it")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			if strings.Contains(err.Error(), purgeToken) || strings.Contains(usage.String(), purgeToken) {
				t.Errorf("the token shows in the error: %q", err)
			}
		})
	}
}

// A token (or Varnish's purge secret) shows nowhere a Config is printed:
// fmt's verbs, JSON, slog.
func TestSecretsRedactedWhereverPrinted(t *testing.T) {
	c, err := Load(nil, env("CATALOG_DSN", goodDSN, "CATALOG_PURGE_FASTLY_SERVICE", "svc", "CATALOG_PURGE_FASTLY_TOKEN", purgeToken,
		"CATALOG_PURGE_CLOUDFLARE_ZONE", "zone", "CATALOG_PURGE_CLOUDFLARE_TOKEN", purgeToken+"-cf",
		"CATALOG_PURGE_VARNISH", "http://127.0.0.1:6091", "CATALOG_PURGE_VARNISH_SECRET", purgeToken+"-varnish"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "%v %+v %#v %s\n", c, *c, *c, c.PurgeFastlyToken)
	j, _ := json.Marshal(c)
	out.Write(j)
	slog.New(slog.NewTextHandler(&out, nil)).Info("config", "cfg", c, "token", c.PurgeCloudflareToken)
	slog.New(slog.NewJSONHandler(&out, nil)).Info("config", "cfg", c, "token", c.PurgeCloudflareToken)
	if strings.Contains(out.String(), purgeToken) {
		t.Errorf("a token shows:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "[redacted]") {
		t.Errorf("no [redacted] in:\n%s", out.String())
	}
	if Secret("").String() != "" {
		t.Error("an unset secret prints as something")
	}
}

// What --purge-varnish accepts is what the purge target takes, one rule:
// a URL the configuration passed must never fail catalogd's start later,
// nor one it refused be a URL the target would have taken. A password in
// the URL is refused and not quoted back.
func TestPurgeVarnishSameRuleAsTarget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url    string
		accept bool
	}{
		{"http://127.0.0.1:6091", true},
		{"https://varnish.internal", true},
		{"http://varnish:6091/ignored/path", true},
		{"127.0.0.1:6091", false},
		{"ftp://varnish:6091", false},
		{"http://", false},
		{"http://purger:hunter22@varnish:6091", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			_, cfgErr := Load(nil, env("CATALOG_DSN", goodDSN, "CATALOG_PURGE_VARNISH", tt.url), io.Discard)
			_, targetErr := purge.NewVarnish(tt.url, nil)
			if (cfgErr == nil) != tt.accept || (targetErr == nil) != tt.accept {
				t.Errorf("config: %v; purge.NewVarnish: %v; want accepted = %v by both", cfgErr, targetErr, tt.accept)
			}
			if cfgErr != nil && strings.Contains(cfgErr.Error(), "hunter22") {
				t.Errorf("the password shows in the error: %v", cfgErr)
			}
		})
	}
}
