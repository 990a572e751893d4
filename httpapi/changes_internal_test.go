package httpapi

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// A purge job polling /changes every minute, at 50 changes a second for a
// minute (3 000 changes, on a clock the test moves), never sees
// complete:false, and purges every tag changed since its last poll: tags
// named again coalesce into the newest change, and the log is bounded by
// bytes, not by a count of changes. Only changes that name more than a
// megabyte of tags no later change names again overflow it.
func TestChangeLogAFullMinuteAt50PerSecond(t *testing.T) {
	start := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		// tags of the i-th change
		change   func(i int) []string
		complete bool
	}{
		{"a stock change a save, among 10 000 products, the lists every tenth", func(i int) []string {
			tags := []string{fmt.Sprintf("shop-product-%d", 100000+(i*7919)%10000)}
			if i%10 == 0 {
				tags = append(tags, "shop-index", "shop-categories", "shop-list", "shop-docs")
			}
			return tags
		}, true},
		{"every change to another product, six-digit IDs", func(i int) []string {
			return []string{fmt.Sprintf("shop-product-%d", 100000+i)}
		}, true},
		{"a shop-wide change each time (1 000 tags, the most one names)", func(int) []string {
			tags := []string{"shop-index", "shop-categories", "shop-list", "shop-docs"}
			for p := range 996 {
				tags = append(tags, fmt.Sprintf("shop-product-%d", 100000+p))
			}
			return tags
		}, true},
		{"a shop-wide change every second, products in between", func(i int) []string {
			if i%50 == 0 {
				return []string{"shop-index", "shop-categories", "shop-list", "shop-product", "shop-docs"}
			}
			return []string{fmt.Sprintf("shop-product-%d", 100000+i)}
		}, true},
		// The bound: 20 tags never named before at every change, 3 000
		// changes, 1.6 MB: the oldest go, and the job is told.
		{"20 new tags at every change (past the bound)", func(i int) []string {
			var tags []string
			for k := range 20 {
				tags = append(tags, fmt.Sprintf("shop-category-%d", 1000000+i*20+k))
			}
			return tags
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l changeLog
			now := start
			cursor := l.since(now, 0, false).Next // the job's first poll
			want := map[string]bool{}
			for i := range 50 * 60 {
				for _, tag := range tt.change(i) {
					want[tag] = true
				}
				l.record(now, tt.change(i), "shop")
				now = now.Add(time.Second / 50)
			}
			p := l.since(now, cursor, true) // a minute later
			if p.Complete != tt.complete {
				t.Fatalf("complete = %v after a minute at 50 changes/s (%d bytes held), want %v", p.Complete, l.bytes, tt.complete)
			}
			got := map[string]bool{}
			var n int
			for _, c := range p.Changes {
				for _, tag := range c.Tags {
					if got[tag] {
						t.Errorf("tag %s listed twice", tag)
					}
					got[tag] = true
					n += tagBytes(tag)
				}
				n += changeOverhead
			}
			if tt.complete && len(got) != len(want) {
				t.Errorf("%d tags listed, want the %d changed", len(got), len(want))
			}
			if n != l.bytes || l.bytes > maxChangeBytes {
				t.Errorf("bytes counted %d, listed %d, bound %d", l.bytes, n, maxChangeBytes)
			}
			t.Logf("%d changes held, %d bytes", len(p.Changes), l.bytes)
		})
	}
}

// A tag named again moves to the newest change: a cursor between the two
// sees it once, at the newest; a change left with no tag is gone.
func TestChangeLogCoalesces(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	var l changeLog
	base := l.since(now, 0, false).Next
	l.record(now, []string{"a", "b"}, "shop")      // base+1
	l.record(now, []string{"c"}, "shop")           // base+2
	l.record(now, []string{"b", "c", "d"}, "shop") // base+3
	l.record(now, nil, "shop")                     // nothing: no change
	p := l.since(now, base, true)
	type ch struct {
		seq  uint64
		tags []string
	}
	var got []ch
	for _, c := range p.Changes {
		got = append(got, ch{c.Seq - base, c.Tags})
	}
	want := []ch{{1, []string{"a"}}, {3, []string{"b", "c", "d"}}}
	if !p.Complete || p.Next != base+3 || !slices.EqualFunc(got, want, func(a, b ch) bool { return a.seq == b.seq && slices.Equal(a.tags, b.tags) }) {
		t.Errorf("changes %v (next base+%d, complete %v), want %v", got, p.Next-base, p.Complete, want)
	}
	if p := l.since(now, base+2, true); len(p.Changes) != 1 || p.Changes[0].Seq != base+3 || !p.Complete {
		t.Errorf("since base+2: %+v", p)
	}
}

// Past the byte bound the oldest changes go, and only cursors older than
// what went are told complete:false.
func TestChangeLogDropsOldestPastTheBound(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	l := changeLog{maxBytes: 3 * (changeOverhead + tagBytes("shop-product-1"))}
	base := l.since(now, 0, false).Next
	for i := 1; i <= 5; i++ {
		l.record(now, []string{fmt.Sprintf("shop-product-%d", i)}, "shop")
	}
	for _, tt := range []struct {
		since    uint64
		complete bool
		n        int
	}{{base, false, 3}, {base + 1, false, 3}, {base + 2, true, 3}, {base + 3, true, 2}, {base + 5, true, 0}} {
		p := l.since(now, tt.since, true)
		if p.Complete != tt.complete || len(p.Changes) != tt.n {
			t.Errorf("since base+%d: complete %v with %d changes, want %v with %d", tt.since-base, p.Complete, len(p.Changes), tt.complete, tt.n)
		}
	}
	if l.bytes > l.maxBytes {
		t.Errorf("%d bytes held, bound %d", l.bytes, l.maxBytes)
	}
}
