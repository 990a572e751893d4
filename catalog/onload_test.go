package catalog

import (
	"testing"
	"time"
)

// TestOnLoad: OnLoad is told of every whole read of the shop, its end
// included whether it built a snapshot or failed, and of nothing else (a
// product re-read is no load): catalogd keeps the collector's headroom low
// for exactly that long.
func TestOnLoad(t *testing.T) {
	st := newStore()
	id := st.add(product{Slug: "a", Title: "A", Regular: "5"})
	src := &fakeSource{st: st}
	var begun, ended, endedAtBuild int
	c := New(src, Config{Now: func() time.Time { return t0 },
		OnLoad: func() func() {
			begun++
			if begun != ended+1 {
				t.Errorf("load %d began before load %d ended", begun, ended)
			}
			return func() { ended++ }
		},
		OnBuild: func(*Snapshot, time.Duration) { endedAtBuild = ended }})
	if err := c.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	if begun != 1 || ended != 1 || endedAtBuild != 1 {
		t.Errorf("after a load: begun %d, ended %d (%d when built), want 1, 1, 1", begun, ended, endedAtBuild)
	}
	if err := c.Refresh(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if begun != 1 {
		t.Errorf("a product re-read counted as a load: begun %d", begun)
	}
	src.do(func(*store) { src.down = true })
	if err := c.Reload(t.Context()); err == nil {
		t.Fatalf("reload with the database away: %v, want an error", err)
	}
	if begun != 2 || ended != 2 {
		t.Errorf("after a failed load: begun %d, ended %d, want 2, 2", begun, ended)
	}
}
