package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// gcHeadroom is the least the heap may grow between two collections. With
// GOGC=50 alone a small shop's heap (the demo's is 3 MB live) was collected
// after every 1.5 MB allocated. A request allocates about 6 KB in net/http
// (the request, the response's header map and its copy), so under load the
// collector ran some 60 times a second and took a fifth of the server's
// time; a static net/http server, with less live heap, collected a third as
// often and marked a tenth of it: a cached hit cost 46–52 µs of CPU against
// its 36–41, and the cached throughput was 0.75× its. With a floor of 16 MB
// a collection comes every few thousand requests (32–37 µs of CPU a hit),
// for some 16 MB more RSS (the demo's 39 MB under load, from 23). From a
// live heap of twice the floor on (a shop of some 30 000 products) GOGC=50
// gives more headroom than the floor, which changes nothing there.
const gcHeadroom = 16 << 20

// gcTuner keeps the collector's percent at base while the live heap is
// large, and raises it while the live heap is small, so that the heap may
// grow by at least floor bytes before the next collection. It reads the
// live heap after every collection (a cleanup on an object made for each
// cycle: the runtime has no hook of its own) and sets the percent when it
// moves by more than an eighth.
type gcTuner struct {
	base  int
	floor uint64

	mu      sync.Mutex
	stopped bool
	percent int // the percent set
	sample  []metrics.Sample
}

// keepGCHeadroom sets the collector's percent to base and keeps the heap's
// headroom at least floor bytes until stop, which sets base again.
func keepGCHeadroom(base int, floor uint64) (stop func()) {
	t := newGCTuner(base, floor)
	t.tune()
	return t.stop
}

func newGCTuner(base int, floor uint64) *gcTuner {
	debug.SetGCPercent(base)
	return &gcTuner{base: base, floor: floor, percent: base,
		sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
}

// stop sets the base percent again; a cleanup armed before tunes nothing.
func (t *gcTuner) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
	debug.SetGCPercent(t.base)
}

// gcCycle is the object whose collection tells that a cycle ended; not
// tiny, so that it has a block of its own and its cleanup runs.
type gcCycle struct{ _ [32]byte }

// tune sets the percent for the live heap the last collection left, then
// waits for the next collection.
func (t *gcTuner) tune() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	metrics.Read(t.sample)
	if v := t.sample[0].Value; v.Kind() == metrics.KindUint64 && v.Uint64() > 0 {
		p := gcPercent(t.base, t.floor, v.Uint64())
		if d := p - t.percent; d > t.percent/8 || -d > t.percent/8 {
			debug.SetGCPercent(p)
			t.percent = p
		}
	}
	runtime.AddCleanup(new(gcCycle), (*gcTuner).tune, t)
}

// gcPercent is the percent that lets a heap of live bytes grow by at
// least floor bytes, and never less than base. The runtime also collects
// no heap smaller than 4 MB scaled by the percent: it is kept below live
// plus floor, so that a tiny heap is not given more than the floor.
func gcPercent(base int, floor, live uint64) int {
	const minHeap = 4 << 20 // the runtime's heapMinimum at GOGC=100
	p := (floor*100 + live - 1) / live
	p = min(p, (live+floor)*100/minHeap)
	return max(base, int(min(p, 1<<20)))
}
