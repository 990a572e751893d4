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
	"syscall"
	"time"

	"catalogd/catalog"
	"catalogd/config"
	"catalogd/httpapi"
	"catalogd/wpdb"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "catalogd:", err)
		}
		os.Exit(1)
	}
}

// run starts catalogd and serves until ctx is done.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := config.Load(args, getenv, stderr)
	if err != nil {
		return err
	}
	log := newLogger(cfg, stderr)

	db, err := wpdb.Open(cfg.DSN, wpdb.Options{Prefix: cfg.TablePrefix, QueryTimeout: cfg.QueryTimeout,
		MaxOpen: cfg.DBMaxOpen})
	if err != nil {
		return err
	}
	defer db.Close()
	// A database that is down at start is no reason not to start: requests
	// answer 503 until it returns, and /readyz says so.
	if err := db.Ping(ctx); err != nil {
		log.Warn("database not reachable yet; serving 503 until it is", "err", err)
	}

	cat := catalog.New(db, catalog.Config{SiteURL: cfg.SiteURL, UploadsURL: cfg.UploadsURL,
		Namespace: cfg.Namespace, DevelopersURL: cfg.DevelopersURL})
	public := &http.Server{
		Handler: httpapi.NewServer(httpapi.Deps{Catalog: cat, Namespace: cfg.Namespace,
			SiteURL: cfg.SiteURL, RateLimit: cfg.RateLimit, Logger: log}),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	admin := &http.Server{
		Handler:           adminHandler(db),
		ReadHeaderTimeout: 5 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}

	pl, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s (--listen): %w", cfg.Listen, err)
	}
	al, err := net.Listen("tcp", cfg.AdminListen)
	if err != nil {
		pl.Close()
		return fmt.Errorf("listen on %s (--admin-listen): %w", cfg.AdminListen, err)
	}
	log.Info("catalogd serving", "listen", pl.Addr().String(), "admin", al.Addr().String(),
		"api", "/wp-json/"+cfg.Namespace+"/v1/catalog", "prefix", cfg.TablePrefix)
	fmt.Fprintf(stdout, "catalogd listening on %s (admin %s)\n", pl.Addr(), al.Addr())

	errc := make(chan error, 2)
	go func() { errc <- public.Serve(pl) }()
	go func() { errc <- admin.Serve(al) }()

	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	// Finish the requests in flight, then stop.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	log.Info("shutting down")
	serr := errors.Join(public.Shutdown(shutdownCtx), admin.Shutdown(shutdownCtx))
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return errors.Join(err, serr)
}

func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel)) // validated by config
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// adminHandler serves liveness and readiness on the private listener.
func adminHandler(db *wpdb.DB) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := db.Ping(r.Context()); err != nil {
			http.Error(w, "database not reachable", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	return mux
}
