package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestGCPercent(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		name              string
		base              int
		floor, room, live uint64
		want              int
	}{
		// The demo: 3 MB live. The percent is capped so that the runtime's
		// minimum heap (4 MB at 100) stays within live+floor.
		{name: "small heap", base: 50, floor: 16 * mb, live: 3 * mb, want: 475},
		{name: "tiny heap", base: 50, floor: 16 * mb, live: 1, want: 400},
		// 20 MB live: 80% gives 16 MB of headroom.
		{name: "middle", base: 50, floor: 16 * mb, live: 20 * mb, want: 80},
		// From twice the floor on, the base percent gives more.
		{name: "twice the floor", base: 50, floor: 16 * mb, live: 32 * mb, want: 50},
		{name: "large heap", base: 50, floor: 16 * mb, live: 300 * mb, want: 50},
		{name: "no floor", base: 50, floor: 0, live: 3 * mb, want: 50},
		// Serving, with room: a heap up to the room grows by what it holds,
		// one past it by the room, one past twice the room by the base.
		{name: "room, small heap", base: 50, floor: 16 * mb, room: 128 * mb, live: 3 * mb, want: 475},
		{name: "room, 100k shop", base: 50, floor: 16 * mb, room: 128 * mb, live: 100 * mb, want: 100},
		{name: "room, past it", base: 50, floor: 16 * mb, room: 128 * mb, live: 200 * mb, want: 64},
		{name: "room, a million products", base: 50, floor: 16 * mb, room: 128 * mb, live: 900 * mb, want: 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := percentFor(tc.base, tc.floor, tc.room, tc.live)
			if got != tc.want {
				t.Fatalf("percentFor(%d, %d, %d, %d) = %d, want %d", tc.base, tc.floor, tc.room, tc.live, got, tc.want)
			}
			if got == tc.base {
				return
			}
			// The heap goal the runtime derives: live grown by the percent,
			// and at least its minimum heap scaled by it. A raised percent
			// gives the floor, give or take rounding, and not much more.
			goal := max(tc.live+tc.live*uint64(got)/100, 4*mb*uint64(got)/100)
			if want := tc.live + max(tc.floor, min(tc.live, tc.room)); goal < want-want/64 || goal > want+want/8 {
				t.Errorf("heap goal %d bytes at %d%%, want about live+headroom, %d", goal, got, want)
			}
		})
	}
}

// gogc is the collector's percent, read without setting it.
func gogc(t *testing.T) int64 {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// TestGCTuner checks that the tuner raises the percent for a small heap
// after a collection, and that once stopped it leaves the base percent set
// and tunes no more.
func TestGCTuner(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	tuner := newTuner(50, 1<<30, 0) // a floor far above this test's live heap
	if p := gogc(t); p != 50 {
		t.Fatalf("percent %d after start, want the base 50", p)
	}
	tuner.tune()
	// The first tuning reads the last collection's live heap; the next
	// follow collections. Poll: a cleanup runs some time after its cycle.
	deadline := time.Now().Add(10 * time.Second)
	for gogc(t) <= 50 {
		if time.Now().After(deadline) {
			tuner.stop()
			t.Fatal("the tuner never raised the percent above the base for a small heap")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	tuner.stop()
	if p := gogc(t); p != 50 {
		t.Errorf("after stop the percent is %d, want the base 50", p)
	}
	tuner.tune() // as a cleanup armed before stop would
	if p := gogc(t); p != 50 {
		t.Errorf("a tuning after stop set the percent to %d", p)
	}
}

// TestGCTunerLoading checks that a whole load gets no more than the floor
// of headroom, at once, and that the room comes back when it ends.
func TestGCTunerLoading(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	ballast := make([]*[1 << 20]byte, 16) // live heap enough for the room to give 100%
	for i := range ballast {
		ballast[i] = new([1 << 20]byte)
	}
	runtime.GC()
	tuner := newTuner(50, 0, 1<<40)
	defer tuner.stop()
	tuner.tune()
	if p := gogc(t); p != 100 {
		t.Fatalf("serving: percent %d, want 100 (as much headroom as the heap holds)", p)
	}
	done := tuner.loading()
	if p := gogc(t); p != 50 {
		t.Errorf("loading: percent %d, want the base 50", p)
	}
	nested := tuner.loading() // a second load at once keeps the base until both end
	done()
	done() // a second call changes nothing
	if p := gogc(t); p != 50 {
		t.Errorf("one of two loads ended: percent %d, want the base 50", p)
	}
	nested()
	if p := gogc(t); p != 100 {
		t.Errorf("loads ended: percent %d, want 100 again", p)
	}
	runtime.KeepAlive(ballast)
}
