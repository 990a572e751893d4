package follow

import (
	"fmt"
	"log/slog"
	"strings"

	"catalogd/config"
	"catalogd/purge"
)

// Targets are the edge caches the configuration names: each Varnish,
// the Fastly service, the Cloudflare zone.
func Targets(cfg *config.Config, log *slog.Logger) ([]purge.Target, error) {
	var out []purge.Target
	var secret *purge.Token // one for every Varnish: a file is watched once
	if len(cfg.PurgeVarnish) > 0 && cfg.PurgeVarnishSecret != "" {
		var err error
		if secret, err = purgeToken(cfg.PurgeVarnishSecret, cfg.PurgeVarnishSecretFile, log); err != nil {
			return nil, fmt.Errorf("--purge-varnish-secret-file (CATALOG_PURGE_VARNISH_SECRET_FILE): %w", err)
		}
	} else if len(cfg.PurgeVarnish) > 0 {
		log.Warn("edge purge: Varnish is purged without a secret; the shipped VCL refuses such purges (403): " +
			"set --purge-varnish-secret-file (or CATALOG_PURGE_VARNISH_SECRET), docs/edge-purge.md#the-purge-secret")
	}
	for _, u := range cfg.PurgeVarnish {
		v, err := purge.NewVarnish(u, nil)
		if err != nil {
			return nil, fmt.Errorf("--purge-varnish (CATALOG_PURGE_VARNISH): %w", err)
		}
		if secret != nil {
			v.WithSecret(secret)
		}
		out = append(out, v)
	}
	if cfg.PurgeFastlyService != "" {
		token, err := purgeToken(cfg.PurgeFastlyToken, cfg.PurgeFastlyTokenFile, log)
		if err != nil {
			return nil, fmt.Errorf("--purge-fastly-token-file (CATALOG_PURGE_FASTLY_TOKEN_FILE): %w", err)
		}
		out = append(out, purge.NewFastly(cfg.PurgeFastlyAPI, cfg.PurgeFastlyService, token, cfg.PurgeFastlySoft, nil))
	}
	if cfg.PurgeCloudflareZone != "" {
		token, err := purgeToken(cfg.PurgeCloudflareToken, cfg.PurgeCloudflareTokenFile, log)
		if err != nil {
			return nil, fmt.Errorf("--purge-cloudflare-token-file (CATALOG_PURGE_CLOUDFLARE_TOKEN_FILE): %w", err)
		}
		out = append(out, purge.NewCloudflare(cfg.PurgeCloudflareAPI, cfg.PurgeCloudflareZone, token,
			cfg.PurgeCloudflareBatch, cfg.PurgeCloudflareInterval, nil))
	}
	return out, nil
}

// purgeToken is a CDN's token (or Varnish's secret): the environment's, fixed, or the file's,
// read again when the file changes (a rotated secret, without a restart).
func purgeToken(value config.Secret, file string, log *slog.Logger) (*purge.Token, error) {
	if file == "" {
		return purge.FixedToken(value.Reveal()), nil
	}
	return purge.TokenFile(file, log)
}

// targetNames names the targets for the start-up log line.
func targetNames(ts []purge.Target) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name()
	}
	return strings.Join(names, ", ")
}
