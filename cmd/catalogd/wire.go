package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"golang.org/x/net/netutil"

	"catalogd/api"
	"catalogd/catalog"
	"catalogd/config"
	"catalogd/follow"
	"catalogd/httpapi"
	"catalogd/internal/gcfloor"
	"catalogd/internal/logwriter"
	"catalogd/internal/memlimit"
	"catalogd/wpdb"
)

// open wires catalogd from its settings: the log, the collector, the
// metrics, the database, the catalog, the cache, the API's and the admin's
// servers, the follower and its purger, and both listeners.
func (m *Main) open(ctx context.Context) error {
	cfg := m.cfg
	// The access log's lines reach stderr through a batching writer, so
	// that they do not serialize requests on a write call each; every other
	// line is written at once, after them.
	lw := logwriter.New(m.stderr)
	m.closers = append(m.closers, func() { lw.Close() }) // Close's last: every step before may still log
	log := newLogger(cfg, lw.Sync())
	useLog(log)
	// The collector's base percent and headroom are gcfloor's; GOGC, when
	// set, wins.
	var gcLoading func() (done func())
	if m.getenv("GOGC") == "" {
		var stopTuning func()
		gcLoading, stopTuning = gcfloor.Keep(gcfloor.Base, gcfloor.Headroom, gcfloor.Room)
		m.closers = append(m.closers, stopTuning)
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), memlimit.Collector{})
	registerBuildInfo(reg)
	queryLatency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "catalogd_db_query_duration_seconds", Help: "Time of one database statement, by outcome.",
		Buckets: []float64{.0002, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1, 5},
	}, []string{"outcome"})
	reg.MustRegister(queryLatency)

	db, err := wpdb.Open(cfg.DSN, wpdb.Options{Prefix: cfg.TablePrefix, QueryTimeout: cfg.QueryTimeout,
		MaxOpen: cfg.DBMaxOpen, LoadTimeout: cfg.DBLoadTimeout, LoadStreams: cfg.DBLoadStreams, DSNFile: cfg.DSNFile, Observe: func(d time.Duration, err error) {
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
	m.closers = append(m.closers, func() { db.Close() })
	// A database that is down at start, or refuses catalogd, is no reason
	// not to start: requests answer 503 until it lets catalogd in, /readyz
	// says why, and the follower logs it (once per cause) as it tries again.
	if err := db.Ping(ctx); err == nil {
		checkReadOnly(ctx, log, db, cfg.AllowWritableUser)
	}

	buildSeconds := prometheus.NewGauge(prometheus.GaugeOpts{Name: "catalogd_snapshot_build_seconds",
		Help: "Time the last whole snapshot of the shop took to read and build."})
	snapProducts := prometheus.NewGauge(prometheus.GaugeOpts{Name: "catalogd_snapshot_products",
		Help: "Published products in the last whole snapshot (of the language served)."})
	// Its age is what an alert watches, against the interval Follow keeps
	// between whole reads (catalogd_snapshot_whole_read_interval_seconds):
	// a much older one means whole reads fail.
	snapBuilt := prometheus.NewGauge(prometheus.GaugeOpts{Name: "catalogd_snapshot_built_timestamp_seconds",
		Help: "When the rows of the last whole snapshot of the shop were read (Unix time); 0 before the first."})
	reg.MustRegister(buildSeconds, snapProducts, snapBuilt)
	cat := catalog.New(db, catalog.Config{SiteURL: cfg.SiteURL, UploadsURL: cfg.UploadsURL,
		DevelopersURL: cfg.DevelopersURL, Language: cfg.Language,
		SitemapURL: cfg.SitemapURL, OnLoad: gcLoading, OnBuild: func(s *catalog.Snapshot, took time.Duration) {
			buildSeconds.Set(took.Seconds())
			snapProducts.Set(float64(s.Products()))
			snapBuilt.Set(float64(s.Built.UnixNano()) / 1e9)
			level := slog.LevelDebug // a reload at every change in the shop
			if s.Version == 1 {
				level = slog.LevelInfo
			}
			log.Log(context.Background(), level, "catalog snapshot loaded", "version", s.Version,
				"products", s.Products(), "took", took.Round(time.Millisecond))
			// A whole load leaves its rows behind as garbage, several
			// times the snapshot's size; give the pages back now rather
			// than keep them until the runtime's scavenger gets to them.
			// Before readiness, though it delays the first snapshot: run
			// beside the first requests, the collection it forces would
			// slow them.
			debug.FreeOSMemory()
		}})
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "catalogd_snapshot_whole_read_interval_seconds",
		Help: "The interval kept between whole reads of the shop: 10 minutes polling, an hour under the binary log, longer where a read costs the database much; 0 before the first."},
		func() float64 { return cat.WholeReadInterval().Seconds() }))
	cache := httpapi.NewCache(httpapi.CacheConfig{Namespace: cfg.Namespace, TTL: cfg.CacheTTL, StaleFor: cfg.CacheStale,
		MaxEntries: cfg.CacheMaxEntries, MaxBytes: int64(cfg.CacheMaxMB) << 20, MaxEntryBytes: int64(cfg.CacheMaxEntryMB) << 20})
	metrics := httpapi.NewMetrics(reg, cache)
	// The API's handler names the site in Link headers, hints and the
	// OpenAPI document: without a configured URL it is the home option,
	// known once the first snapshot is loaded. Until then (a large shop
	// takes seconds), the listeners are up — liveness answers, /readyz says
	// why not yet — and every API request gets the contract's 503 with
	// Retry-After.
	accessLog := newAccessLog(cfg, lw)
	deps := func(site string, cat catalog.Service, cache *httpapi.Cache, metrics *httpapi.Metrics) httpapi.Deps {
		return httpapi.Deps{Catalog: cat, Namespace: cfg.Namespace,
			SiteURL: site, DevelopersURL: cfg.DevelopersURL, RateLimit: cfg.RateLimit, EnforceRateLimit: cfg.EnforceRate,
			TrustedProxies: cfg.TrustedProxies, Cache: cache, Metrics: metrics,
			Logger: log, AccessLog: cfg.AccessLog, AccessLines: accessLog, Freshness: &httpapi.Freshness{MaxAge: cfg.MaxAge, SMaxAge: cfg.SMaxAge,
				StaleWhileRevalidate: cfg.StaleWhileRevalidate, StaleIfError: cfg.StaleIfError},
			TagHeader: tagHeader(cfg.TagHeaders())}
	}
	apiHandler := func(site string, cat catalog.Service, cache *httpapi.Cache, metrics *httpapi.Metrics) http.Handler {
		return httpapi.NewServer(deps(site, cat, cache, metrics))
	}
	// shape is what, beside the snapshot, makes the answers served for the
	// site: the start-up purge compares the edge's with it.
	shape := func(site string) httpapi.Shape { return httpapi.ShapeOf(deps(site, nil, nil, nil)) }
	starting := apiHandler(cfg.SiteURL, loading{}, nil, nil)
	m.current.Store(&starting)
	public := &http.Server{
		Handler:           m.stopping.closing(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*m.current.Load()).ServeHTTP(w, r) })),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	dbReady := &recentCheck{check: db.Ready, within: time.Second}
	ready := func(ctx context.Context) error {
		if err := m.stopping.ready(); err != nil {
			return err
		}
		if err := dbReady.run(ctx); err != nil {
			return err
		}
		if !m.live.Load() {
			if err := cat.LoadError(); err != nil {
				return fmt.Errorf("the catalog cannot be read: %w", err)
			}
			return httpapi.ErrNotLoaded
		}
		return nil
	}
	targets, err := follow.Targets(cfg, log)
	if err != nil {
		return err
	}
	f := follow.New(follow.Options{Changes: cfg.Changes, PollInterval: cfg.PollInterval, PollBudget: cfg.PollBudget,
		SiteURL: cfg.SiteURL, Namespace: cfg.Namespace, WarmEvery: cfg.SMaxAge / 2, Shape: shape,
		DB: db, Catalog: cat, Cache: cache, Targets: targets, Logger: log, Registerer: reg})
	admin := &http.Server{
		Handler:           adminHandler(ready, f, reg, cache.ChangesHandler()),
		ReadHeaderTimeout: 5 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}

	pl, err := listen(cfg.Listen, "listen")
	if err != nil {
		return err
	}
	// Past the cap, connections wait in the kernel's backlog until one
	// closes, instead of each costing a goroutine and buffers.
	pl = netutil.LimitListener(pl, cfg.MaxConns)
	al, err := listen(cfg.AdminListen, "admin-listen")
	if err != nil {
		pl.Close()
		return err
	}
	log.Info("catalogd serving", "listen", pl.Addr().String(), "admin", al.Addr().String(),
		"api", httpapi.IndexPath(cfg.Namespace), "prefix", cfg.TablePrefix)
	_ = say(m.stdout, jsonLog(cfg), slog.LevelInfo, fmt.Sprintf("catalogd listening on %s (admin %s)", pl.Addr(), al.Addr()),
		"listen", pl.Addr().String(), "admin", al.Addr().String())
	m.log, m.cat, m.follower, m.public, m.admin, m.pl, m.al = log, cat, f, public, admin, pl, al
	m.catalogHandler = func(site string) http.Handler { return apiHandler(site, cat, cache, metrics) }
	return nil
}

// checkReadOnly says at start whether the database user can write:
// catalogd never writes, but a leaked or buggy build could, so production
// runs it with the SELECT-only user deploy/mysql/readonly-user.sql
// creates, and a user that can write is warned about, unless
// --allow-writable-user says it is meant (make demo's throwaway database,
// as root). A server that keeps no grants (the embedded demo server) is no
// warning either: there is nothing to check, and nothing wrong.
func checkReadOnly(ctx context.Context, log *slog.Logger, db *wpdb.DB, allowWritable bool) {
	writes, err := db.WritePrivileges(ctx)
	switch {
	case errors.Is(err, wpdb.ErrNoGrantTables):
		log.Info("the database server keeps no grants (an embedded or test server): whether the user can write is not checked", "err", err)
	case err != nil:
		log.Warn("could not read the database user's grants", "err", err)
	case len(writes) == 0:
	case allowWritable:
		log.Info("the database user can write, as --allow-writable-user allows; production wants a SELECT-only user (deploy/mysql/readonly-user.sql)",
			"grants", writes)
	default:
		log.Warn("the database user can write; give catalogd a SELECT-only user (deploy/mysql/readonly-user.sql), or set --allow-writable-user for a throwaway database",
			"grants", writes)
	}
}

// logLanguages says which translation plugin the first snapshot found.
func logLanguages(log *slog.Logger, info catalog.LanguageInfo) {
	if len(info.Ignored) > 0 {
		log.Warn("translation plugin leftovers ignored: "+strings.Join(info.Ignored, "; "), "plugin", info.Plugin)
	}
	if info.Plugin == "" {
		log.Info("no translation plugin found; serving every product")
		return
	}
	log.Info("translation plugin found; serving one language", "plugin", info.Plugin, "language", info.Language)
	if info.Products == 0 {
		log.Warn("the language served has no published products yet", "language", info.Language)
	}
}

// loading is the catalog until the first snapshot is loaded: every
// operation is the contract's 503, which tells clients when to retry.
type loading struct{}

func (loading) err() error {
	return &catalog.Error{Kind: catalog.EUNAVAILABLE, Reason: "unavailable",
		Message: "The catalog is loading or its database is not reachable yet.",
		Hint:    "Retry after the number of seconds in the Retry-After header.", Err: httpapi.ErrNotLoaded}
}
func (l loading) Index(context.Context) (*catalog.Index, error) { return nil, l.err() }
func (l loading) Categories(context.Context) (*catalog.CategoryList, error) {
	return nil, l.err()
}
func (l loading) Products(context.Context, api.ListQuery) (*catalog.ProductList, error) {
	return nil, l.err()
}
func (l loading) Product(context.Context, string) (*catalog.Product, error) { return nil, l.err() }

func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: logLevel(cfg)}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// newAccessLog writes the access log's lines to w as newLogger's handler
// would, byte for byte, without slog's generic encoding: the access log
// writes a line per request, and through slog its formatting would be a
// large part of a cached hit's cost. w is the batching writer, safe for
// concurrent use.
func newAccessLog(cfg *config.Config, w io.Writer) *httpapi.AccessLog {
	return httpapi.NewAccessLog(w, httpapi.AccessLogOptions{JSON: cfg.LogFormat == "json", Level: logLevel(cfg)})
}

// logLevel is --log-level's.
func logLevel(cfg *config.Config) slog.Level {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel)) // validated by config
	return level
}

// tagHeader maps the configured tag header to the server's.
func tagHeader(name string) httpapi.TagHeader {
	switch name {
	case "cache-tag":
		return httpapi.TagCacheTag
	case "both":
		return httpapi.TagBoth
	}
	return httpapi.TagSurrogateKey
}
