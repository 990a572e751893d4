package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"sync/atomic"
)

// probeLog keeps health probes from filling the access log. A probe is a
// HEAD of the catalog index: what the shipped Varnish VCL's backend probe
// sends once a second (most of a quiet shop's lines), and what a load
// balancer's or uptime check's health check asks, since the index
// answers from memory exactly when the catalog can be served. A HEAD
// carries no data, so nothing of a visitor's is lost: the first probe's
// line is written, and then a probe's only when its status differs from
// the one before (the catalog became unavailable, or came back). Every
// probe is still counted in the metrics; at --log-level debug every one is
// written too. Any other request, a GET of the index included, has its
// line.
type probeLog struct {
	last atomic.Int32 // the status of the last probe; 0 before the first
}

// routeIndex is the catalog index's route: the route table's first.
const routeIndex = firstOperation

// quiet reports whether the request's line is left out: a probe with the
// status of the probe before it, while the access log is above debug.
func (p *probeLog) quiet(r *http.Request, route routeID, status int, debug func(context.Context) bool) bool {
	if r.Method != http.MethodHead || route != routeIndex {
		return false
	}
	return int(p.last.Swap(int32(status))) == status && !debug(r.Context())
}

// accessDebug reports whether the access log's handler is at debug level,
// where every probe's line is written.
func (s *server) accessDebug(ctx context.Context) bool {
	if s.lines != nil {
		return s.lines.level != nil && s.lines.level.Level() <= slog.LevelDebug
	}
	return s.alog.Handler().Enabled(ctx, slog.LevelDebug)
}
