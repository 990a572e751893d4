package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// descriptionKey carries a description from the handler to the cache, in
// the request's context.
type descriptionKey struct{}

// description is what a handler knows of its response and tells the cache
// (describe): what the response bytes alone do not say.
type description struct {
	version         uint64
	until, modified time.Time
	tags            []string
}

// describe tells the cache the response was computed from the catalog's
// snapshot version (its ETag says so; 0: from no snapshot), must not be
// served after until (the next sale start or end among its products; zero:
// not by the clock), was last modified at modified (zero: unknown), and
// shows what the purge tags name.
func describe(r *http.Request, version uint64, until, modified time.Time, tags []string) {
	if d, ok := r.Context().Value(descriptionKey{}).(*description); ok {
		d.version, d.until, d.modified, d.tags = version, until, modified, tags
	}
}

// recorder captures a handler's response.
type recorder struct {
	header http.Header
	status int
	body   *bytes.Buffer // pooled (getBuffer)
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}
func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(p)
}

// cacheable statuses: answers that stay true until the shop changes.
func cacheable(status int) bool {
	return status == http.StatusOK || status == http.StatusBadRequest || status == http.StatusNotFound
}

// middleware serves GET and HEAD from the cache, fills it, and writes every
// such response with its ETag, gzip and 304 handling. key names what a
// request means: requests with one key share one entry. The server hands
// the API's (apiKey); the cache knows nothing of the query.
func (c *Cache) middleware(next http.Handler, key func(*http.Request) string, cc *cacheControl) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		key := key(r)
		now := c.requestTime(w)
		cached, ok := c.get(key)
		if ok && c.fresh(cached, now) {
			c.stats.hits.Add(1)
			c.serve(w, r, key, cached, stateHit, cc, now)
			return
		}
		c.stats.misses.Add(1)
		// The generation is read before the handler reads the catalog: a fill
		// that overlaps an Invalidate stores its answer under the older
		// generation (stale at once), never as fresh. It is part of the
		// flight's key, so a request after a change never joins a fill
		// begun before it.
		gen, drops := c.gen.Load(), c.drops.Load()
		v, _, shared := c.group.Do(key+"\x00"+strconv.FormatUint(gen, 10)+"\x00"+strconv.FormatUint(drops, 10), func() (any, error) {
			return c.fill(next, r, key, gen, drops), nil
		})
		e := v.(*entry)
		if !shared && len(e.lent) > 0 { // shared first: a waiter's gzip may be adding to lent
			defer e.release()
		}
		if e.status >= 500 && ok && now.Sub(cached.stored) < c.cfg.StaleFor {
			// The catalog could not answer: a copy a little old beats an
			// error.
			c.stats.stale.Add(1)
			c.serve(w, r, key, cached, stateStale, cc, time.Time{})
			return
		}
		c.serve(w, r, key, e, stateMiss, cc, time.Time{})
	})
}

// requestTime is when the request came, by the cache's clock: the time the
// server's middleware read as it began (one clock read fewer per hit),
// unless the cache was given a clock of its own.
func (c *Cache) requestTime(w http.ResponseWriter) time.Time {
	if sw, ok := w.(*statusWriter); ok && c.cfg.Now == nil && !sw.start.IsZero() {
		return sw.start
	}
	return c.now()
}

// fill runs the handler once for the key, as a GET, and keeps the result
// when it may be cached, as of generation gen (read before the handler
// ran).
func (c *Cache) fill(next http.Handler, r *http.Request, key string, gen, drops uint64) *entry {
	d := &description{}
	// The fill is shared by every waiter: it must not end when the first
	// caller goes away, but keeps that caller's values.
	ctx := context.WithValue(context.WithoutCancel(r.Context()), descriptionKey{}, d)
	req := r.Clone(ctx)
	req.Method = http.MethodGet
	rec := &recorder{header: http.Header{}, body: getBuffer()}
	next.ServeHTTP(rec, req)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	now := c.now()
	freshUntil := now.Add(c.cfg.TTL)
	if !d.until.IsZero() && d.until.Before(freshUntil) {
		freshUntil = d.until
	}
	keep := c.cfg.TTL > 0 && cacheable(rec.status) && now.Before(freshUntil)
	var e *entry
	if keep {
		e = newEntry(rec.status, rec.header, bytes.Clone(rec.body.Bytes()), d.version, now) // a copy: the buffer goes back
		putBuffer(rec.body)
	} else {
		// Served and dropped (the cache is off, or the answer may not be
		// kept): the body stays in the pool's buffer, which goes back once
		// served (release). A copy would be most of a first request's
		// garbage with the cache off.
		e = newEntry(rec.status, rec.header, rec.body.Bytes(), d.version, now)
		e.lent = append(e.lent, rec.body)
	}
	e.gen, e.drops = gen, drops
	e.until = d.until
	if cacheable(e.status) {
		e.describe(d, now, c.tagHeader)
	}
	e.freshUntil = freshUntil
	if keep {
		c.put(key, e)
	}
	return e
}

// release gives the buffers an entry the cache does not keep borrowed
// back to the pool, once it is served. Only its one request may: an
// entry a flight shared (several requests served it, maybe still) is
// left to the collector.
func (e *entry) release() {
	for _, b := range e.lent {
		putBuffer(b)
	}
	e.lent, e.body, e.gz = nil, nil, nil
}

// newEntry keeps a response, which holds on to body. Its ETag names the
// snapshot it was computed from and a hash of its bytes ("s12-<hash>"): which state of the shop a
// client holds shows, while If-None-Match compares the bytes' part only
// (matchesETag), so a resource the last change left alone still answers
// 304.
func newEntry(status int, header http.Header, body []byte, version uint64, now time.Time) *entry {
	header.Del("Content-Length")
	e := &entry{status: status, body: body, stored: now, fields: make([]headerField, 0, len(header))}
	for k, v := range header {
		e.fields = append(e.fields, headerField{k, v})
	}
	sum := sha256.Sum256(body)
	tag := hex.EncodeToString(sum[:16])
	if version != 0 {
		tag = "s" + strconv.FormatUint(version, 10) + "-" + tag
	}
	e.etag = `"` + tag + `"`
	e.gzEtag = `"` + tag + `-gzip"`
	e.etagH = []string{e.etag}
	e.lenH = []string{strconv.Itoa(len(e.body))}
	return e
}

// describe prepares a response's Last-Modified and purge tag headers (h
// chooses which).
func (e *entry) describe(d *description, now time.Time, h TagHeader) {
	if !d.modified.IsZero() {
		e.lastMod = d.modified
		if e.lastMod.After(now) {
			e.lastMod = now // never in the future (RFC 9110 §8.8.2.1)
		}
		e.lastMod = e.lastMod.Truncate(time.Second)
		e.lastModH = []string{e.lastMod.UTC().Format(http.TimeFormat)}
	}
	if len(d.tags) > 0 {
		e.tags = d.tags
		if h == TagSurrogateKey || h == TagBoth {
			e.tagFields = append(e.tagFields, headerField{"Surrogate-Key", []string{strings.Join(d.tags, " ")}})
		}
		if h == TagCacheTag || h == TagBoth {
			e.tagFields = append(e.tagFields, headerField{"Cache-Tag", []string{strings.Join(d.tags, ",")}})
		}
	}
}
