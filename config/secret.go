package config

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"catalogd/internal/redact"
	"catalogd/purge"
	"catalogd/wpdb"
)

// Secret is a setting that must never be shown: formatted in any way (a
// log line, %v or %+v of the Config, JSON) it is "[redacted]", or "" when
// unset. Reveal gives the value, to the one place that sends it.
type Secret string

// Reveal is the secret's value.
func (s Secret) Reveal() string { return string(s) }

func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redact.Mark
}

// GoString keeps %#v from printing the value.
func (s Secret) GoString() string { return strconv.Quote(s.String()) }

// LogValue keeps slog from printing the value.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalText keeps encoders (JSON, YAML) from printing the value.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// secretSetting reads a secret from its variable (CATALOG_PURGE_FASTLY_TOKEN)
// or from the file its --…-file flag (or CATALOG_…_FILE) names, as the
// purge target reads it again when it changes. A secret has no flag of its
// own: a flag's value shows in ps to every user of the machine. Errors
// never quote the secret.
func secretSetting(getenv func(string) string, name, file string, errs []error) (Secret, []error) {
	env := envName(name)
	v := getenv(env)
	if file == "" {
		return Secret(strings.TrimSpace(v)), errs
	}
	if v != "" {
		return "", append(errs, fmt.Errorf("%s and --%s-file (%s_FILE) are both set: set one", env, name, env))
	}
	v, err := purge.ReadTokenFile(file)
	if err != nil {
		return "", append(errs, fmt.Errorf("--%s-file (%s_FILE): %w", name, env, err))
	}
	return Secret(v), errs
}

// readDSNFile reads the DSN from --dsn-file, when it is set, as the pool
// reads it again when it changes (wpdb.Options.DSNFile). --dsn is the
// other way to give it, never both. Errors never quote the DSN.
func (c *Config) readDSNFile(errs []error) []error {
	if c.DSNFile == "" {
		return errs
	}
	if c.DSN != "" {
		return append(errs, fmt.Errorf("%s and %s are both set: set one", Setting("dsn"), Setting("dsn-file")))
	}
	dsn, err := wpdb.ReadDSNFile(c.DSNFile)
	if err != nil {
		return append(errs, fmt.Errorf("%s: %w", Setting("dsn-file"), err))
	}
	c.DSN = dsn
	return errs
}
