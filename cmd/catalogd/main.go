// Command catalogd serves a WooCommerce shop's catalog as a read-only JSON
// API, reading the shop's MySQL/MariaDB tables directly.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/net/netutil"

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
	// The driver's own complaints (a connection cut mid-read) go to our log.
	_ = mysql.SetLogger(slog.NewLogLogger(log.Handler(), slog.LevelWarn))

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	queryLatency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "catalogd_db_query_duration_seconds", Help: "Time of one database statement, by outcome.",
		Buckets: []float64{.0002, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1, 5},
	}, []string{"outcome"})
	reg.MustRegister(queryLatency)

	db, err := wpdb.Open(cfg.DSN, wpdb.Options{Prefix: cfg.TablePrefix, QueryTimeout: cfg.QueryTimeout,
		MaxOpen: cfg.DBMaxOpen, Observe: func(d time.Duration, err error) {
			outcome := "ok"
			if err != nil {
				outcome = "error"
			}
			queryLatency.WithLabelValues(outcome).Observe(d.Seconds())
		}})
	if err != nil {
		return err
	}
	registerDBMetrics(reg, db)
	defer db.Close()
	// A database that is down at start is no reason not to start: requests
	// answer 503 until it returns, and /readyz says so.
	if err := db.Ping(ctx); err != nil {
		log.Warn("database not reachable yet; serving 503 until it is", "err", err)
	} else if writes, err := db.WritePrivileges(ctx); err != nil {
		log.Warn("could not read the database user's grants", "err", err)
	} else if len(writes) > 0 {
		// catalogd never writes, but a leaked or buggy build could: run it
		// with the user deploy/mysql/readonly-user.sql creates.
		log.Warn("the database user can write; give catalogd a SELECT-only user (deploy/mysql/readonly-user.sql)",
			"grants", writes)
	}

	cat := catalog.New(db, catalog.Config{SiteURL: cfg.SiteURL, UploadsURL: cfg.UploadsURL,
		Namespace: cfg.Namespace, DevelopersURL: cfg.DevelopersURL, Language: cfg.Language,
		SitemapURL: cfg.SitemapURL})
	var badLanguage *catalog.LanguageError
	if info, err := cat.Languages(ctx); err == nil {
		if len(info.Ignored) > 0 {
			log.Warn("translation plugin leftovers ignored: "+strings.Join(info.Ignored, "; "), "plugin", info.Plugin)
		}
		if info.Plugin != "" {
			log.Info("translation plugin found; serving one language", "plugin", info.Plugin, "language", info.Language)
			if info.Products == 0 {
				log.Warn("the language served has no published products yet", "language", info.Language)
			}
		} else {
			log.Info("no translation plugin found; serving every product")
		}
	} else if errors.As(err, &badLanguage) {
		// Serving it would be an empty catalog; when the database is down
		// at start, /readyz gives this reason instead.
		return badLanguage
	}
	// The HTTP side names the site in Link headers, hints and the OpenAPI
	// document; without a configured URL it is the home option, read once.
	site := cfg.SiteURL
	if site == "" {
		if site, err = cat.SiteURL(ctx); err != nil {
			log.Warn("home option not read; links in headers stay site-relative until restart (set --site-url)", "err", err)
			site = ""
		}
	}
	cache := httpapi.NewCache(httpapi.CacheConfig{TTL: cfg.CacheTTL, StaleFor: cfg.CacheStale,
		MaxEntries: cfg.CacheMaxEntries, MaxBytes: int64(cfg.CacheMaxMB) << 20, MaxEntryBytes: int64(cfg.CacheMaxEntryMB) << 20})
	public := &http.Server{
		Handler: httpapi.NewServer(httpapi.Deps{Catalog: cat, Namespace: cfg.Namespace,
			SiteURL: site, DevelopersURL: cfg.DevelopersURL, RateLimit: cfg.RateLimit, EnforceRateLimit: cfg.EnforceRate,
			TrustedProxies: cfg.TrustedProxies, Cache: cache, Metrics: httpapi.NewMetrics(reg, cache),
			Logger: log, AccessLog: cfg.AccessLog, Freshness: &httpapi.Freshness{MaxAge: cfg.MaxAge, SMaxAge: cfg.SMaxAge,
				StaleWhileRevalidate: cfg.StaleWhileRevalidate, StaleIfError: cfg.StaleIfError}}),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ready := func(ctx context.Context) error {
		if err := db.Ready(ctx); err != nil {
			return err
		}
		return cat.Ready(ctx)
	}
	admin := &http.Server{
		Handler:           adminHandler(ready, reg, cache.ChangesHandler()),
		ReadHeaderTimeout: 5 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}

	pl, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s (--listen): %w", cfg.Listen, err)
	}
	// Past the cap, connections wait in the kernel's backlog until one
	// closes, instead of each costing a goroutine and buffers.
	pl = netutil.LimitListener(pl, cfg.MaxConns)
	al, err := net.Listen("tcp", cfg.AdminListen)
	if err != nil {
		pl.Close()
		return fmt.Errorf("listen on %s (--admin-listen): %w", cfg.AdminListen, err)
	}
	log.Info("catalogd serving", "listen", pl.Addr().String(), "admin", al.Addr().String(),
		"api", "/wp-json/"+cfg.Namespace+"/v1/catalog", "prefix", cfg.TablePrefix)
	fmt.Fprintf(stdout, "catalogd listening on %s (admin %s)\n", pl.Addr(), al.Addr())

	pollCtx, stopPoll := context.WithCancel(ctx)
	defer stopPoll()
	go cat.Watch(pollCtx, cfg.PollInterval, cache.Invalidate)

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

// adminHandler serves liveness, readiness, metrics and the change log (the
// purge tags each change invalidated, for the operator's purge job) on the
// private listener.
func adminHandler(ready func(context.Context) error, reg *prometheus.Registry, changes http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		// Ready means the database answers, has the tables under the
		// configured prefix, and the catalog loads from them; the reason
		// goes to the operator, who is the only one who can reach this
		// listener.
		if err := ready(r.Context()); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.Handle("GET /changes", changes)
	return mux
}

// registerDBMetrics exports the statement count and the pool's state.
func registerDBMetrics(reg *prometheus.Registry, db *wpdb.DB) {
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "catalogd_db_queries_total", Help: "Database statements sent.",
	}, func() float64 { return float64(db.Queries()) }))
	gauge := func(name, help string, f func(sql.DBStats) float64) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help},
			func() float64 { return f(db.Stats()) }))
	}
	gauge("catalogd_db_connections_open", "Open database connections.", func(s sql.DBStats) float64 { return float64(s.OpenConnections) })
	gauge("catalogd_db_connections_in_use", "Database connections in use.", func(s sql.DBStats) float64 { return float64(s.InUse) })
	gauge("catalogd_db_connections_idle", "Idle database connections.", func(s sql.DBStats) float64 { return float64(s.Idle) })
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "catalogd_db_connection_waits_total", Help: "Times a request waited for a free connection.",
	}, func() float64 { return float64(db.Stats().WaitCount) }))
}
