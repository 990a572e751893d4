package config

import (
	"fmt"
	"io"
	"net"
)

// LoadListeners reads the settings as Load does, from the same flags and
// variables, but checks only the two listen addresses: what catalogd
// healthcheck needs to find the admin listener. A container's health
// check runs without the entrypoint's flags, and a setting it has no use
// for (a DSN given as a flag) must not make a ready catalogd look unhealthy.
func LoadListeners(args []string, getenv func(string) string, help io.Writer) (*Config, error) {
	return load(args, getenv, help, true)
}

// listenersProblems is validateListeners' problems as a *UsageError, or nil.
func (c *Config) listenersProblems() error {
	var problems []string
	c.validateListeners(func(flagName, format string, args ...any) {
		problems = append(problems, Setting(flagName)+": "+fmt.Sprintf(format, args...))
	})
	if len(problems) > 0 {
		return usageErr(problems...)
	}
	return nil
}

// validateListeners checks the listen addresses: each a host:port, and the
// admin listener never on the public one's port.
func (c *Config) validateListeners(bad func(flagName, format string, args ...any)) {
	for _, l := range []struct{ flag, v string }{
		{"listen", c.Listen}, {"admin-listen", c.AdminListen},
	} {
		if _, port, err := net.SplitHostPort(l.v); err != nil || !validPort(port) {
			bad(l.flag, "want host:port (like :8080 or 127.0.0.1:9090), got %q", l.v)
		}
	}
	if overlap(c.Listen, c.AdminListen) {
		bad("admin-listen", "%s shares its port with --listen %s: the admin endpoints are never public", c.AdminListen, c.Listen)
	}
}

// overlap reports whether two listen addresses would take the same port
// of one interface: the same port on the same host, or on every
// interface (":9090", "0.0.0.0:9090") and any host.
func overlap(a, b string) bool {
	ha, pa, errA := net.SplitHostPort(a)
	hb, pb, errB := net.SplitHostPort(b)
	if errA != nil || errB != nil || pa != pb {
		return a == b
	}
	every := func(h string) bool { ip := net.ParseIP(h); return h == "" || ip != nil && ip.IsUnspecified() }
	return ha == hb || every(ha) || every(hb)
}
