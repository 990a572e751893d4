// Command catalogd serves a WooCommerce shop's catalog as a read-only JSON
// API, reading the shop's MySQL/MariaDB tables directly.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"catalogd/catalog"
	"catalogd/config"
	"catalogd/follow"
	"catalogd/internal/buildinfo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		os.Exit(report(os.Stderr, err))
	}
}

// run starts catalogd and serves until ctx is done. --help and --version
// print to stdout and return flag.ErrHelp or nil at once.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	m := &Main{stdout: stdout, stderr: stderr, getenv: getenv}
	err = m.ParseFlags(args)
	if errors.Is(err, config.ErrVersion) {
		_, err := fmt.Fprintln(stdout, buildinfo.String("catalogd"))
		return err
	}
	if err != nil {
		return err
	}
	if jsonLog(m.cfg) {
		defer func() {
			if err != nil {
				err = inJSON{err}
			}
		}()
	}
	if m.sub.run != nil {
		return m.sub.run(ctx, m.cfg, stdout, stderr)
	}
	defer m.Close()
	return m.Run(ctx)
}

// Main is catalogd: the settings ParseFlags reads, what Run wires from
// them (wire.go) and serves, and what Close releases.
type Main struct {
	stdout, stderr io.Writer
	getenv         func(string) string

	cfg *config.Config
	sub subcommand // a subcommand to run instead of the server

	log            *slog.Logger
	cat            *catalog.Catalog
	follower       *follow.Follower
	public, admin  *http.Server
	pl, al         net.Listener
	catalogHandler func(site string) http.Handler // the API's, once the catalog is loaded
	current        atomic.Pointer[http.Handler]   // the public listener's handler
	live           atomic.Bool                    // the catalog's handler is installed
	stopping       drain
	closers        []func() // run by Close, the last first
}

// ParseFlags reads the settings (flags and CATALOG_* variables), and the
// subcommand, when args begin with one.
func (m *Main) ParseFlags(args []string) error {
	load := config.Load
	if len(args) > 0 {
		if s, ok := subcommands[args[0]]; ok {
			m.sub, load, args = s, s.load, args[1:]
		}
	}
	cfg, err := load(args, m.getenv, m.stdout)
	m.cfg = cfg
	return err
}

// Run wires catalogd and serves until ctx ends, then drains and stops; or
// until a listener or the follower fails.
func (m *Main) Run(ctx context.Context) error {
	if err := m.open(ctx); err != nil {
		return err
	}
	return m.serve(ctx)
}

// Close releases what Run opened, the last first.
func (m *Main) Close() {
	for i := len(m.closers) - 1; i >= 0; i-- {
		m.closers[i]()
	}
}

// serve serves until ctx ends or a listener or the follower fails, then
// stops within the grace period.
func (m *Main) serve(ctx context.Context) (err error) {
	// Not ctx's: the follower and the purger go on through the drain, so
	// that what this replica answers meanwhile stays fresh and purged.
	followCtx, stopFollowing := context.WithCancel(context.WithoutCancel(ctx))
	defer stopFollowing()
	errc := make(chan error, 3)
	following := make(chan struct{}) // closed when the follower and its purger have returned
	go func() {
		defer close(following)
		if err := m.follower.Run(followCtx); err != nil {
			errc <- err
		}
	}()
	go func() {
		// The first snapshot is the follower's first whole read (retried
		// while the database is away); this waits for it, says what it
		// found, and switches the API over to the catalog.
		select {
		case <-followCtx.Done():
			return
		case <-m.follower.First():
		}
		info, err := m.cat.Languages(followCtx) // the snapshot is there: no read
		if err != nil {
			errc <- err
			return
		}
		logLanguages(m.log, info)
		h := m.catalogHandler(m.follower.Site(followCtx))
		m.current.Store(&h)
		m.live.Store(true)
	}()
	go func() { errc <- m.public.Serve(m.pl) }()
	go func() { errc <- m.admin.Serve(m.al) }()

	hurry := context.Background()
	select {
	case err = <-errc:
	case <-ctx.Done():
		var stopHurry func()
		hurry, stopHurry = stopSignals()
		defer stopHurry()
		// A replica not ready yet is sent nothing: no drain.
		if m.live.Load() && m.cfg.ShutdownDrain > 0 {
			m.log.Info("draining before the stop: /readyz fails, requests are still answered; a second signal stops at once",
				"drain", m.cfg.ShutdownDrain)
			m.stopping.run(hurry, m.cfg.ShutdownDrain)
		}
	}
	// Finish the requests in flight, and send the purges still waiting
	// (a replica stopped for good takes them with it otherwise), within
	// the grace period; then stop.
	stopFollowing()
	shutdownCtx, cancel := context.WithTimeout(hurry, config.ShutdownGrace)
	defer cancel()
	m.log.Info("shutting down")
	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		select {
		case <-following:
		case <-shutdownCtx.Done():
			return
		}
		m.follower.Flush(shutdownCtx)
	}()
	serr := errors.Join(m.public.Shutdown(shutdownCtx), m.admin.Shutdown(shutdownCtx))
	<-flushed
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	if hurry.Err() != nil && errors.Is(serr, context.Canceled) {
		serr = nil // a second signal: stopping at once was asked for
	}
	return errors.Join(err, serr)
}
