package httpapi

import (
	"bytes"
	"sync"
)

// Every response the cache has not got is encoded, captured and gzipped
// through buffers that grow to the body's size. Fresh ones made each
// first request would leave several times the body as garbage, which
// paces the collector, whose every cycle marks the whole snapshot and
// slows the requests it overlaps. Pooled, they leave only the copies a
// response keeps.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer keeps a rare huge body (a sitemap, a list of a hundred
// long products) from pinning its buffer in the pool.
const maxPooledBuffer = 1 << 20

func getBuffer() *bytes.Buffer { return buffers.Get().(*bytes.Buffer) }

// putBuffer returns b to the pool; b must not be used after.
func putBuffer(b *bytes.Buffer) {
	if b.Cap() > maxPooledBuffer {
		return
	}
	b.Reset()
	buffers.Put(b)
}
