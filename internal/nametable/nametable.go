// Package nametable numbers names (a post's status, a product's type) for
// the life of the process, so that structures kept for every post hold a
// small number where they held a string: a pointer word the garbage
// collector marks at every cycle.
package nametable

import (
	"strings"
	"sync"
)

// Table gives each name a code on first sight, in order from 0, never
// twice and never taken back, up to a limit. Safe for concurrent use:
// lookups share a read lock, and adding a name (rare) takes the lock.
type Table[C ~uint8 | ~uint16 | ~uint32] struct {
	limit int

	mu    sync.RWMutex
	names []string // by code
	codes map[string]C
}

// New returns a table that holds at most limit names, the names given
// first, with the codes 0, 1, ….
func New[C ~uint8 | ~uint16 | ~uint32](limit int, names ...string) *Table[C] {
	t := &Table[C]{limit: limit, codes: map[string]C{}}
	for _, n := range names {
		t.Code(n)
	}
	return t
}

// Code is the name's code; ok is false once the table is full and the
// name is not in it.
func (t *Table[C]) Code(name string) (c C, ok bool) {
	t.mu.RLock()
	c, ok = t.codes[name]
	t.mu.RUnlock()
	if ok {
		return c, true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.codes[name]; ok {
		return c, true
	}
	if len(t.names) >= t.limit {
		return 0, false
	}
	name = strings.Clone(name) // the caller's may be a driver's buffer, or a piece of a larger string
	c = C(len(t.names))
	t.names = append(t.names, name)
	t.codes[name] = c
	return c, true
}

// Name is the code's name; "" for a code the table did not give.
func (t *Table[C]) Name(c C) string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if int(c) < len(t.names) {
		return t.names[c]
	}
	return ""
}

// Len is the number of names held.
func (t *Table[C]) Len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.names)
}
