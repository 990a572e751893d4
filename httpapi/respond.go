package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"catalogd/api"
	"catalogd/catalog"
)

// handle adapts a handler that returns an error into an http.Handler: the
// one place errors become responses.
func (s *server) handle(h func(w http.ResponseWriter, r *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// statusOf maps an error kind to its HTTP status.
var statusOf = map[string]int{
	catalog.EINVALID:     http.StatusBadRequest,
	catalog.ENOTFOUND:    http.StatusNotFound,
	catalog.EUNAVAILABLE: http.StatusServiceUnavailable,
	catalog.EINTERNAL:    http.StatusInternalServerError,
	eMethod:              http.StatusMethodNotAllowed,
	eRateLimited:         http.StatusTooManyRequests,
}

// eRateLimited is the kind of a request over the enforced rate limit.
const eRateLimited = "rate_limited"

// writeError writes err as the contract's Error body. Internals (SQL,
// paths, causes) are logged, never sent.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ce *catalog.Error
	if !errors.As(err, &ce) {
		ce = &catalog.Error{Kind: catalog.EINTERNAL, Reason: "internal_error",
			Message: "The server failed to answer this request.", Err: err}
	}
	status := statusOf[ce.Kind]
	if status == 0 {
		status = http.StatusInternalServerError
	}
	switch {
	case status == http.StatusServiceUnavailable:
		// The catalog is not ready (the database is away, the first load
		// is running): the operator's matter once, not an error per
		// request; the access log still records each 503.
		s.unready.log(r.Context(), s.log, r.URL.Path, err)
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Retry-After", "5")
	case status >= 500:
		s.log.ErrorContext(r.Context(), "request failed", "path", r.URL.Path, "status", status, "err", err)
		w.Header().Set("Cache-Control", "no-store")
	case status == http.StatusTooManyRequests:
		// A client over its limit is the client's matter, not the server's:
		// debug only (the access log, when on, records it too), so a
		// greedy client cannot fill the error log or fire alerts.
		s.log.DebugContext(r.Context(), "rate limited", "path", r.URL.Path)
		w.Header().Set("Cache-Control", "no-store")
	default:
		// A client error stays true for a while; let caches keep it briefly.
		w.Header().Set("Cache-Control", "public, max-age=60")
		if status == http.StatusNotFound || status == http.StatusBadRequest {
			// Until the lists change: a product published, a slug
			// edited. A term change (a category created) purges every
			// kind, this one too.
			describe(r, 0, time.Time{}, time.Time{}, []string{s.tags.kind("miss")})
		}
	}
	reason := ce.Reason
	if reason == "" {
		reason = map[int]string{400: "invalid_request", 404: "not_found", 503: "unavailable"}[status]
		if reason == "" {
			reason = "internal_error"
		}
	}
	msg, hint := ce.Message, ce.Hint
	if ce.Link != "" {
		// The catalog names the operation; the URL is the HTTP side's.
		hint += " " + s.site + s.base + ce.Link
	}
	switch status {
	case http.StatusInternalServerError:
		msg = "The server failed to answer this request."
		hint = "Retry in a little while; if it keeps failing, tell the shop."
	case http.StatusServiceUnavailable:
		if hint == "" {
			hint = "Retry after the number of seconds in the Retry-After header."
		}
	}
	body := api.Error{Code: s.ns + "_" + reason, Message: msg,
		Data: api.ErrorData{Status: status, Hint: hint, Params: ce.Params}}
	if err := s.writeJSON(w, r, status, body); err != nil {
		s.log.ErrorContext(r.Context(), "write error response", "err", err)
	}
}

// ErrNotLoaded is the cause a catalog.Service gives its 503s before the
// first snapshot of the shop is in, catalogd's start: expected, so said
// once at INFO rather than warned about as a catalog that became
// unavailable (a proxy's health probe met it at every start).
var ErrNotLoaded = errors.New("the first snapshot of the catalog is not in yet")

// unreadyLog logs the 503s of an unready catalog at WARN once per cause:
// the first 503 of a cause, and again only when the cause changes or the
// last warning is unreadyRepeat old, so that an outage of hours still
// shows now and then; every other 503 logs at DEBUG. Per request at ERROR,
// a database away for a minute under load wrote thousands of identical
// lines. The 503s of ErrNotLoaded are said once at INFO, then DEBUG.
type unreadyLog struct {
	mu       sync.Mutex
	cause    string
	at       time.Time
	starting bool             // the first ErrNotLoaded was said
	now      func() time.Time // time.Now; tests inject a clock
}

// unreadyRepeat is how long a cause's warning stands before a 503 of the
// same cause warns again.
const unreadyRepeat = 10 * time.Minute

func (u *unreadyLog) log(ctx context.Context, log *slog.Logger, path string, err error) {
	if errors.Is(err, ErrNotLoaded) {
		u.mu.Lock()
		said := u.starting
		u.starting = true
		u.mu.Unlock()
		if !said {
			log.InfoContext(ctx, "not ready yet: answering 503 until the first snapshot of the shop is loaded "+
				"(said once; /readyz says why while it is not)", "path", path)
			return
		}
		log.DebugContext(ctx, "not ready yet; 503", "path", path)
		return
	}
	cause := err.Error()
	now := time.Now
	if u.now != nil {
		now = u.now
	}
	t := now()
	u.mu.Lock()
	warn := cause != u.cause || t.Sub(u.at) >= unreadyRepeat
	if warn {
		u.cause, u.at = cause, t
	}
	u.mu.Unlock()
	if warn {
		log.WarnContext(ctx, "catalog unavailable; answering 503 until it is back (logged once per cause)",
			"path", path, "err", err)
		return
	}
	log.DebugContext(ctx, "catalog unavailable; 503", "path", path, "err", err)
}

// writeBody writes v as a 200 of another JSON media type.
func (s *server) writeBody(w http.ResponseWriter, r *http.Request, mediaType string, v any) error {
	w.Header().Set("Content-Type", mediaType)
	return s.writeJSON(w, r, http.StatusOK, v)
}

// writeJSON encodes v and writes it with the status. The body is encoded
// before anything is sent, so an encoding failure can still become a 500.
func (s *server) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) error {
	buf := getBuffer()
	defer putBuffer(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false) // text stays readable: "UI & HUD", not "UI \u0026 HUD"
	if err := enc.Encode(v); err != nil {
		return err
	}
	h := w.Header()
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json; charset=UTF-8")
	}
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(buf.Bytes())
	return err
}
