package httpapi

import (
	"net/http"
	"sync"
	"time"
)

// statusWriter remembers the status written, and the X-Cache the response
// went out with: read after the header is written, net/http would clone
// the whole header to keep what was sent (the 304s and HEADs, whose header
// is written but not yet sent when the middleware logs them).
type statusWriter struct {
	http.ResponseWriter
	status int
	cache  string
	start  time.Time // when the middleware began the request
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
		w.cache = headerValue(w.ResponseWriter.Header(), "X-Cache")
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
		w.cache = headerValue(w.ResponseWriter.Header(), "X-Cache")
	}
	return w.ResponseWriter.Write(p)
}

// cacheState is the response's X-Cache, "" when it has none.
func (w *statusWriter) cacheState() string {
	if w.status == 0 {
		return headerValue(w.ResponseWriter.Header(), "X-Cache") // nothing written: no copy made
	}
	return w.cache
}

// statusWriters are reused: a request's writer is done with when the
// middleware has logged it, and a hit then allocates none.
var statusWriters = sync.Pool{New: func() any { return new(statusWriter) }}

func newStatusWriter(w http.ResponseWriter, start time.Time) *statusWriter {
	sw := statusWriters.Get().(*statusWriter)
	sw.ResponseWriter, sw.status, sw.cache, sw.start = w, 0, "", start
	return sw
}

// release hands sw back for another request; nothing may use it after.
func (w *statusWriter) release() {
	w.ResponseWriter = nil
	statusWriters.Put(w)
}
