package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// errDraining is /readyz's reason while catalogd drains.
var errDraining = errors.New("shutting down")

// drain is the first step of the stop (config.DefaultShutdownDrain says
// why it exists): for a while /readyz fails and every request is still
// answered, so that what sends this replica requests (a Kubernetes
// Service, an ingress, Varnish's backend connections, a load balancer
// probing /readyz) moves to the others before it stops listening.
type drain struct {
	on atomic.Bool
}

// ready is nil until the drain starts, then errDraining.
func (d *drain) ready() error {
	if d.on.Load() {
		return errDraining
	}
	return nil
}

// closing is h, but that once the drain has started every answer closes
// its connection (Connection: close). A proxy's pooled keep-alive
// connection to this replica stays on it whatever the Service's endpoints
// say; closed after its next answer, the proxy opens a new one, which goes
// where the endpoints now lead. Idle connections are left open: cutting
// one under a request the proxy is sending on it would fail that request,
// and the stop closes them anyway.
func (d *drain) closing(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.on.Load() {
			w.Header().Set("Connection", "close")
		}
		h.ServeHTTP(w, r)
	})
}

// run starts the drain and returns when it is over: after period, or at
// once when hurry is done (a second signal).
func (d *drain) run(hurry context.Context, period time.Duration) {
	d.on.Store(true)
	t := time.NewTimer(period)
	defer t.Stop()
	select {
	case <-t.C:
	case <-hurry.Done():
	}
}

// stopSignals is done at the next SIGTERM or SIGINT from now on: once the
// first has started the stop, a second ends the drain and the waits of the
// stop after it (an operator pressing Ctrl-C twice). stop releases it.
func stopSignals() (hurry context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sig:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		cancel()
	}
}
