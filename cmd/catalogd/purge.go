package main

import (
	"fmt"
	"strings"
	"time"

	"catalogd/config"
	"catalogd/purge"
)

// purgeTargets are the edge caches the configuration names: each Varnish,
// the Fastly service, the Cloudflare zone.
func purgeTargets(cfg *config.Config) ([]purge.Target, error) {
	var out []purge.Target
	for _, u := range cfg.PurgeVarnish {
		v, err := purge.NewVarnish(u, nil)
		if err != nil {
			return nil, fmt.Errorf("--purge-varnish (CATALOG_PURGE_VARNISH): %w", err)
		}
		out = append(out, v)
	}
	if cfg.PurgeFastlyService != "" {
		out = append(out, purge.NewFastly(cfg.PurgeFastlyAPI, cfg.PurgeFastlyService,
			cfg.PurgeFastlyToken.Reveal(), cfg.PurgeFastlySoft, nil))
	}
	if cfg.PurgeCloudflareZone != "" {
		out = append(out, purge.NewCloudflare(cfg.PurgeCloudflareAPI, cfg.PurgeCloudflareZone,
			cfg.PurgeCloudflareToken.Reveal(), cfg.PurgeCloudflareBatch, cfg.PurgeCloudflareInterval, nil))
	}
	return out, nil
}

// targetNames names the targets for the start-up log line.
func targetNames(ts []purge.Target) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name()
	}
	return strings.Join(names, ", ")
}

// readyzLines are /readyz's lines after ready or not: the change source,
// then each purge target's state. A failing purge target never makes
// catalogd unready — catalogd still answers fresh; only the edge keeps old
// copies until s-maxage — so it is reported here, and in the metrics.
type readyzLines struct {
	source *changeSource
	purger *purge.Purger
}

func (l readyzLines) String() string {
	return l.source.String() + "\n" + l.purger.Report(time.Now())
}
