package logwriter

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"catalogd/internal/proctest"
)

// Every line written reaches the output whole, each writer's lines in their
// order, by Close at the latest; lines written after Close follow them.
func TestLogWriterKeepsEveryLine(t *testing.T) {
	out := &proctest.SyncBuffer{}
	w := New(out)
	const writers, lines = 8, 2000
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				fmt.Fprintf(w, "writer=%d line=%d %s\n", g, i, strings.Repeat("x", i%300))
			}
		}()
	}
	wg.Wait()
	w.Close()
	fmt.Fprintf(w, "after close\n")

	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != writers*lines+1 {
		t.Fatalf("%d lines out, want %d", len(got), writers*lines+1)
	}
	next := make([]int, writers)
	for _, l := range got[:len(got)-1] {
		var g, i int
		if _, err := fmt.Sscanf(l, "writer=%d line=%d", &g, &i); err != nil || i != next[g] ||
			!strings.HasSuffix(l, " "+strings.Repeat("x", i%300)) {
			t.Fatalf("line %q out of order or torn (want line %d of writer %d)", l, next[g], g)
		}
		next[g]++
	}
	if got[len(got)-1] != "after close" {
		t.Errorf("last line %q, want the one written after Close", got[len(got)-1])
	}
}

// A line goes out on its own, without Close, soon after it is written.
func TestLogWriterWritesWithoutClose(t *testing.T) {
	out := &proctest.SyncBuffer{}
	w := New(out)
	defer w.Close()
	fmt.Fprintf(w, "one line\n")
	deadline := time.Now().Add(5 * time.Second)
	for out.String() != "one line\n" {
		if time.Now().After(deadline) {
			t.Fatalf("after 5s the output holds %q", out.String())
		}
		time.Sleep(time.Millisecond)
	}
}

// Lines written through Sync are out when Write returns, after the batched
// lines written before them: the output keeps the order of logging.
func TestLogWriterSyncKeepsOrder(t *testing.T) {
	out := &proctest.SyncBuffer{}
	w := New(out)
	defer w.Close()
	var want strings.Builder
	for i := range 500 {
		line := fmt.Sprintf("access %d\n", i)
		if i%7 == 0 {
			line = fmt.Sprintf("error %d\n", i)
			fmt.Fprint(w.Sync(), line)
			want.WriteString(line)
			if got := out.String(); got != want.String() {
				t.Fatalf("after the synchronous line %d the output is\n%s\nwant\n%s", i, got, want.String())
			}
			continue
		}
		fmt.Fprint(w, line)
		want.WriteString(line)
	}
}
