// Package gcfloor keeps the garbage collector's headroom between a floor
// and a room, for a heap that is mostly one long-lived value (catalogd's
// snapshot of the shop).
package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Base is the collector's percent while the live heap is large.
// catalogd's heap is mostly long-lived (the snapshot of the shop) and a
// request makes little garbage. Go's default GOGC=100 lets the heap grow
// to twice what is live before collecting: for a large shop much memory
// for little, and during a whole load, whose garbage is several times the
// snapshot, a much higher peak. So the base is 50, with a floor of
// headroom for a small heap (Headroom) and, while serving, as much
// headroom as the heap holds up to Room, for every collection marks the
// whole snapshot and slows the requests it overlaps. The figures:
// docs/performance.md#the-hit-path-and-first-requests.
const Base = 50

// Headroom is the least the heap may grow between two collections. With
// GOGC=50 alone a small shop's heap is collected after every megabyte or
// two allocated: under cached load the collector then runs dozens of times
// a second and takes much of the server's time, where a static net/http
// server's small heap leaves its collector idle. With the floor a
// collection comes every few thousand requests, for the floor's worth of
// RSS. From a live heap of twice the floor on, GOGC=50 gives more
// headroom than the floor, which changes nothing there.
const Headroom = 16 << 20

// Room is the most headroom a heap is given beyond its base percent:
// while the live heap is at most this large, it may grow by as much as it
// holds (Go's own GOGC=100) before the next collection. Every collection
// marks the whole snapshot, and on two cores a cycle takes both and slows
// the requests it overlaps: more headroom makes cycles rarer, for more
// memory. Past twice this the base percent gives more room than this, and
// a very large shop is held at 1.5 times its live heap.
const Room = 128 << 20

// tuner keeps the collector's percent at base while the live heap is
// large, and raises it while the live heap is small, so that the heap may
// grow by at least floor bytes before the next collection, and by as much
// as it holds up to room bytes. While a whole load runs (loading) it gives
// no more than floor: a load's garbage is several times the snapshot, and
// its peak is what the memory a host sets aside must hold. It reads the
// live heap after every collection (a cleanup on an object made for each
// cycle: the runtime has no hook of its own) and sets the percent when it
// moves by more than an eighth.
type tuner struct {
	base        int
	floor, room uint64

	mu      sync.Mutex
	stopped bool
	loads   int // whole loads running
	percent int // the percent set
	sample  []metrics.Sample
}

// Keep sets the collector's percent to base and keeps the heap's
// headroom between floor and room bytes until stop, which sets base
// again. loading tells it a whole load begins; it returns the func that
// tells the load ended.
func Keep(base int, floor, room uint64) (loading func() (done func()), stop func()) {
	t := newTuner(base, floor, room)
	t.tune()
	return t.loading, t.stop
}

func newTuner(base int, floor, room uint64) *tuner {
	debug.SetGCPercent(base)
	return &tuner{base: base, floor: floor, room: room, percent: base,
		sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
}

// stop sets the base percent again; a cleanup armed before tunes nothing.
func (t *tuner) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
	debug.SetGCPercent(t.base)
}

// loading lowers the headroom to the floor until done is called: at once,
// from the last collection's live heap, for the load is about to make
// garbage fast.
func (t *tuner) loading() (done func()) {
	t.mu.Lock()
	t.loads++
	t.set(true)
	t.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			t.loads--
			t.set(true)
		})
	}
}

// cycle is the object whose collection tells that a cycle ended; not
// tiny, so that it has a block of its own and its cleanup runs.
type cycle struct{ _ [32]byte }

// tune sets the percent for the live heap the last collection left, then
// waits for the next collection.
func (t *tuner) tune() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.set(false)
	runtime.AddCleanup(new(cycle), (*tuner).tune, t)
}

// set sets the percent for the last collection's live heap: when it moved
// by more than an eighth, or always. t.mu is held.
func (t *tuner) set(always bool) {
	if t.stopped {
		return
	}
	metrics.Read(t.sample)
	v := t.sample[0].Value
	if v.Kind() != metrics.KindUint64 || v.Uint64() == 0 {
		return
	}
	room := t.room
	if t.loads > 0 {
		room = 0
	}
	p := percentFor(t.base, t.floor, room, v.Uint64())
	if d := p - t.percent; always && d != 0 || d > t.percent/8 || -d > t.percent/8 {
		debug.SetGCPercent(p)
		t.percent = p
	}
}

// percentFor is the percent that lets a heap of live bytes grow by at
// least floor bytes, and by as much as it holds while that is at most room
// bytes; never less than base. The runtime also collects no heap smaller
// than 4 MB scaled by the percent: it is kept below live plus that
// headroom, so that a tiny heap is not given more than the floor.
func percentFor(base int, floor, room, live uint64) int {
	const minHeap = 4 << 20 // the runtime's heapMinimum at GOGC=100
	want := max(floor, min(live, room))
	p := (want*100 + live - 1) / live
	p = min(p, (live+want)*100/minHeap)
	return max(base, int(min(p, 1<<20)))
}
