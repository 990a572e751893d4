package nametable

import (
	"strconv"
	"sync"
	"testing"
)

// TestTable: the names given first keep their codes, a new name gets the
// next code on first sight, on every goroutine alike, codes name their
// names, and a full table gives no code to a name it lacks while keeping
// those it has.
func TestTable(t *testing.T) {
	tbl := New[uint8](4, "a", "b")
	for c, name := range []string{"a", "b"} {
		if got, ok := tbl.Code(name); !ok || got != uint8(c) || tbl.Name(got) != name {
			t.Errorf("%s has code %d (%v) named %q, want %d", name, got, ok, tbl.Name(got), c)
		}
	}
	var wg sync.WaitGroup
	codes := make([]uint8, 8)
	for i := range codes {
		wg.Go(func() { codes[i], _ = tbl.Code(string([]byte("new"))) })
	}
	wg.Wait()
	for _, c := range codes {
		if c != 2 {
			t.Fatalf("new has codes %v, want 2 on every goroutine", codes)
		}
	}
	if c, ok := tbl.Code("d"); !ok || c != 3 {
		t.Fatalf("d: code %d (%v), want 3, the last", c, ok)
	}
	for i := range 2 {
		if c, ok := tbl.Code("past" + strconv.Itoa(i)); ok {
			t.Errorf("a name past the limit got code %d", c)
		}
	}
	if c, ok := tbl.Code("new"); !ok || c != 2 {
		t.Errorf("new's code moved to %d (%v) once the table filled", c, ok)
	}
	if tbl.Len() != 4 || tbl.Name(200) != "" {
		t.Errorf("Len %d, Name(200) %q: want 4 and none", tbl.Len(), tbl.Name(200))
	}
}
