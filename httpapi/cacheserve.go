package httpapi

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// minGzip is the smallest body worth compressing.
const minGzip = 512

// gzipWriters are reused across entries: a gzip.Writer carries its
// compressor's tables, about a megabyte at any level, so one per response
// would make every miss (every request, with the cache off) allocate that
// much, and the collector, each cycle marking the whole snapshot, run
// often enough to slow a list page's tail.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed) // a valid level: no error
	return zw
}}

// gzipped returns the entry's gzip copy, making it at the first call: at
// gzip's fastest level (on a catalog's JSON it is within a few percent of
// the best, at a fraction of the time), and only for bodies worth it and
// small enough to be cached. A cached entry's count grows by the copy
// (recount).
func (c *Cache) gzipped(key string, e *entry) []byte {
	if e.gzDone.Load() {
		return e.gz
	}
	e.gzOnce.Do(func() {
		defer e.gzDone.Store(true)
		if len(e.body) < minGzip || int64(len(e.body)) > c.cfg.MaxEntryBytes {
			return
		}
		buf := getBuffer()
		zw := gzipWriters.Get().(*gzip.Writer)
		zw.Reset(buf)
		_, _ = zw.Write(e.body)
		_ = zw.Close()
		zw.Reset(nil) // holds no buffer while pooled
		gzipWriters.Put(zw)
		if e.lent != nil {
			// An entry served and dropped keeps the buffer until release.
			e.gz = buf.Bytes()
			e.lent = append(e.lent, buf)
		} else {
			e.gz = bytes.Clone(buf.Bytes()) // not the buffer's spare capacity
			putBuffer(buf)
		}
		e.gzEtagH = []string{e.gzEtag}
		e.gzLenH = []string{strconv.Itoa(len(e.gz))}
		c.recount(key, e)
	})
	return e.gz
}

// serve writes a finished response: 304 when the client holds it, the gzip
// copy when the client takes gzip. A 200's Cache-Control is made here, at
// every serve, as its lifetimes shrink toward the response's expiry; a
// stale copy gets no-store (its change is logged for purging). It follows
// http.ServeContent's rules (If-None-Match wins over If-Modified-Since,
// compared to the second; a 304 drops Content-Encoding; HEAD gets GET's
// headers) but is not it: ServeContent serves 200s only (a cached 400 or
// 404 is served here too), matches If-None-Match exactly (here either
// encoding's bytes part matches: matchesETag), answers Range and If-Match,
// which the contract lacks, drops Content-Length from a gzipped body and
// Content-Type and Last-Modified from a 304. now is the time it is served
// at; zero: read the clock (after a fill, which takes time).
func (c *Cache) serve(w http.ResponseWriter, r *http.Request, key string, e *entry, state cacheState, cc *cacheControl, now time.Time) {
	h := w.Header()
	for _, f := range e.fields {
		// The entry holds the handler's own fields; the middleware set the
		// common ones before it. A field both set (Link: the server's
		// rel="service-desc" beside a list's paging links) is a list, and
		// is combined (RFC 9110 §5.3), once per entry: the middleware's
		// value is the same shared slice at every request.
		v := f.value
		if common, ok := h[f.name]; ok {
			v = e.merge(f, common)
		}
		h[f.name] = v
	}
	h["X-Cache"] = cacheStates[state]
	h["Vary"] = hdrVary
	body, etag, length := e.body, e.etagH, e.lenH
	if len(e.body) >= minGzip && acceptsGzip(r) {
		if gz := c.gzipped(key, e); gz != nil {
			body, etag, length = gz, e.gzEtagH, e.gzLenH
			h["Content-Encoding"] = hdrGzip
		}
	}
	h["Etag"] = etag
	if e.status == http.StatusOK {
		if state == stateStale {
			h["Cache-Control"] = hdrNoStore
		} else {
			if !e.until.IsZero() && now.IsZero() {
				now = c.now()
			}
			h["Cache-Control"] = cc.header(e.until, now)
		}
		if e.lastModH != nil {
			h["Last-Modified"] = e.lastModH
		}
	}
	// A 400 or 404 carries its tag too: a change to the lists purges it.
	for _, f := range e.tagFields {
		h[f.name] = f.value
	}
	if e.status == http.StatusOK && notModified(r, e) {
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h["Content-Length"] = length
	w.WriteHeader(e.status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// merge is f's value after common, made at the first hit and kept while
// the middleware sets the same common value (it is one shared slice per
// server). The copy keeps the shared slices intact.
func (e *entry) merge(f headerField, common []string) []string {
	if m := e.merged.Load(); m != nil && m.name == f.name && sameSlice(m.common, common) {
		return m.value
	}
	v := append(common[:len(common):len(common)], f.value...)
	e.merged.Store(&mergedField{name: f.name, common: common, value: v})
	return v
}

// sameSlice reports whether a and b are the very same slice.
func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// cacheState is how a response was served, told in X-Cache.
type cacheState int

const (
	stateHit cacheState = iota
	stateMiss
	stateStale
)

// cacheStates are the X-Cache values, and below other constant header
// values, shared read-only.
var (
	cacheStates = [...][]string{stateHit: {"HIT"}, stateMiss: {"MISS"}, stateStale: {"STALE"}}
	hdrVary     = []string{"Accept-Encoding"}
	hdrGzip     = []string{"gzip"}
)

// notModified reports whether a GET or HEAD may be answered 304 (RFC 9110
// §13.2.2): If-None-Match decides when sent, whatever If-Modified-Since
// says; otherwise If-Modified-Since against the response's Last-Modified, to
// the second (an unparseable date is ignored, as the RFC asks).
func notModified(r *http.Request, e *entry) bool {
	if inm := headerValue(r.Header, "If-None-Match"); inm != "" {
		return matchesETag(inm, e.etag, e.gzEtag)
	}
	if e.lastModH == nil || r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	ims := headerValue(r.Header, "If-Modified-Since")
	if ims == "" {
		return false
	}
	t, err := http.ParseTime(ims)
	return err == nil && !e.lastMod.After(t)
}

// matchesETag reports whether an If-None-Match list names the response, in
// either of its encodings, etag or gz (weak comparison, as RFC 9110 asks
// for it). A tag of another snapshot matches when its bytes' part does: the
// client holds these very bytes, and the 304 hands it the current tag.
func matchesETag(inm, etag, gz string) bool {
	if inm == "" {
		return false
	}
	etag, gz = bytesTag(etag), bytesTag(gz)
	for _, t := range strings.Split(inm, ",") {
		t = bytesTag(strings.TrimPrefix(strings.TrimSpace(t), "W/"))
		if t == "*" || t == etag || t == gz {
			return true
		}
	}
	return false
}

// bytesTag is an entity tag without its snapshot part: "s12-<hash>" is
// "<hash>" (quotes kept).
func bytesTag(t string) string {
	if !strings.HasPrefix(t, `"s`) {
		return t
	}
	i := 2
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 2 || i >= len(t) || t[i] != '-' {
		return t
	}
	return `"` + t[i+1:]
}

// headerValue is h.Get(key) for a key in canonical form, which it does not
// canonicalize again: net/http has stored the request's fields so, and a
// hit reads a few of them.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
