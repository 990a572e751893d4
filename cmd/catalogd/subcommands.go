package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"catalogd/config"
	"catalogd/wpdb"
)

// subcommand is a word catalogd takes before its flags: it reads the same
// settings as the server (flags and CATALOG_* variables) with load, does
// one thing and exits.
type subcommand struct {
	load func(args []string, getenv func(string) string, help io.Writer) (*config.Config, error)
	run  func(ctx context.Context, cfg *config.Config, stdout, stderr io.Writer) error
}

var subcommands = map[string]subcommand{
	"check": {config.Load, check},
	// Only the listen addresses: a health check runs without the
	// entrypoint's flags, and needs no more to find the admin listener.
	"healthcheck": {config.LoadListeners, healthcheck},
}

// check says whether catalogd could start with these settings and serve:
// they are valid (config.Load), both listen addresses are free, and the
// database lets catalogd's user in and holds every table under the prefix
// (what /readyz asks), asked once within --query-timeout. A user that can
// write is warned about, as at start. make demo runs it before it loads
// anything, so that a taken port fails first, with nothing dropped: the
// listeners are checked first, and a database not ready is exit 3
// (dbNotReady), which make demo expects of a database it has not loaded yet.
func check(ctx context.Context, cfg *config.Config, stdout, stderr io.Writer) error {
	// Both held at once, as the server holds them.
	for _, l := range []struct{ addr, flag string }{{cfg.Listen, "listen"}, {cfg.AdminListen, "admin-listen"}} {
		ln, err := listen(l.addr, l.flag)
		if err != nil {
			return err
		}
		defer ln.Close()
	}
	log := newLogger(cfg, stderr)
	useLog(log)
	db, err := wpdb.Open(cfg.DSN, wpdb.Options{Prefix: cfg.TablePrefix, QueryTimeout: cfg.QueryTimeout, MaxOpen: 1,
		DSNFile: cfg.DSNFile})
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Ready(ctx); err != nil {
		setting := config.Setting("dsn")
		if cfg.DSNFile != "" {
			setting = config.Setting("dsn-file")
		}
		return dbNotReady{fmt.Errorf("the settings are valid and %s and %s are free, but the database of %s is not ready: %w "+
			"(catalogd would start, and answer 503 until it is)", cfg.Listen, cfg.AdminListen, setting, err)}
	}
	checkReadOnly(ctx, log, db, cfg.AllowWritableUser)
	return say(stdout, jsonLog(cfg), slog.LevelInfo, fmt.Sprintf("catalogd check: the settings are valid; %s and %s are free; "+
		"the database answers, with every table under prefix %q", cfg.Listen, cfg.AdminListen, cfg.TablePrefix))
}

// dbNotReady is check's answer when all but the database is right: exit 3.
type dbNotReady struct{ error }

func (e dbNotReady) Unwrap() error { return e.error }

// listen listens on addr, the value of the setting flag; its error names
// the setting both ways and, when another process holds the address, says
// what to do.
func listen(addr, flag string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	hint := ""
	if errors.Is(err, syscall.EADDRINUSE) {
		hint = ": another process holds it (another catalogd? Prometheus's own default is :9090): stop it, or choose a free address"
	}
	return nil, fmt.Errorf("listen on %s, %s: %w%s", addr, config.Setting(flag), err, hint)
}

// healthTimeout bounds healthcheck's whole request: a probe that hangs is
// no answer.
const healthTimeout = 3 * time.Second

// healthcheck asks the admin listener's /readyz, found from the same
// settings as the server (--admin-listen, CATALOG_ADMIN_LISTEN), once: it
// prints the first line of a ready answer and returns nil, else an error
// that is the reason in one line. Container and service health checks,
// and make demo's wait, run it.
func healthcheck(ctx context.Context, cfg *config.Config, stdout, _ io.Writer) error {
	url := "http://" + dialAddr(cfg.AdminListen) + "/readyz"
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	// No proxy: the admin listener is on this host, whatever HTTP_PROXY says.
	client := &http.Client{Transport: &http.Transport{Proxy: nil}}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("no answer from %s, the admin listener of %s: %w", url, config.Setting("admin-listen"), err)
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(io.LimitReader(resp.Body, 4<<10)).ReadString('\n')
	line = strings.TrimSpace(line)
	if resp.StatusCode != http.StatusOK {
		if line == "" {
			line = "not ready: " + resp.Status
		}
		return errors.New(line)
	}
	return say(stdout, jsonLog(cfg), slog.LevelInfo, line)
}

// dialAddr is where to reach a listener bound to addr from this host: its
// own address, or loopback for an unspecified host (":9090", "0.0.0.0:9090",
// "[::]:9090").
func dialAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	return net.JoinHostPort(host, port)
}
