package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/pprof"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"catalogd/wpdb"
)

// adminHandler serves liveness, readiness, metrics, the change log (the
// purge tags each change invalidated, for the operator's purge job) and the
// Go profiler on the private listener. The profiler is here and only here:
// a CPU profile costs the server its time and a heap profile shows its
// memory, which no client of the public API may ask for.
func adminHandler(ready func(context.Context) error, source fmt.Stringer, reg *prometheus.Registry, changes http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		// Ready means the database answers, has the tables under the
		// configured prefix, and the catalog loads from them; the reason
		// goes to the operator, who is the only one who can reach this
		// listener.
		// The change source in use, and each edge purge target's state,
		// are named either way: a shop whose changes show late is first
		// checked here. A failing purge target is reported, never made a
		// reason to be unready: catalogd itself still answers fresh.
		if err := ready(r.Context()); err != nil {
			http.Error(w, "not ready: "+err.Error()+"\n"+source.String(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
		fmt.Fprintln(w, source)
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.Handle("GET /changes", changes)
	// net/http/pprof's own registrations go to http.DefaultServeMux, which
	// nothing serves; these name its handlers explicitly. Index serves
	// every named profile (heap, goroutine, allocs…) under its path. Not
	// cmdline: --dsn may carry the database password.
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("POST /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	return mux
}

// registerDBMetrics exports the statement count and the pool's state
// (go_sql_*{db_name="shop"}: open, in use and idle connections, waits).
func registerDBMetrics(reg *prometheus.Registry, db *wpdb.DB) {
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "catalogd_db_queries_total", Help: "Database statements sent.",
	}, func() float64 { return float64(db.Queries()) }))
	reg.MustRegister(collectors.NewDBStatsCollector(db.Pool(), "shop"))
}

// recentCheck runs check at most once within a period and answers with its
// last result meanwhile. /readyz asks the database whether every table is
// there (eight statements): an orchestrator probing every few seconds is
// no burden, but a client polling for readiness every few milliseconds
// while a large shop loads (a deploy script, a benchmark) would take
// connections and server time from the load it waits for.
type recentCheck struct {
	check  func(context.Context) error
	within time.Duration

	mu  sync.Mutex
	at  time.Time
	err error
}

func (c *recentCheck) run(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < c.within {
		return c.err
	}
	err := c.check(ctx)
	if ctx.Err() != nil {
		return err // this caller went away: no answer for the next ones
	}
	c.err, c.at = err, time.Now()
	return err
}
