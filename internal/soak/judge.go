package soak

import (
	"fmt"
	"time"
)

// Tally counts answers.
type Tally struct {
	Total, OK, NotModified, Client4xx int64
	Cold503, Warm503, S500, Other5xx  int64
	Transport                         int64
	Hit, Miss, Stale                  int64
}

func (t *Tally) add(a result) {
	t.Total++
	switch {
	case a.err != nil:
		t.Transport++
	case a.status == 304:
		t.NotModified++
	case a.status < 300:
		t.OK++
	case a.status < 500:
		t.Client4xx++
	case a.status == 503 && !a.hadCopy:
		t.Cold503++
	case a.status == 503:
		t.Warm503++
	case a.status == 500:
		t.S500++
	default:
		t.Other5xx++
	}
	switch a.cache {
	case "HIT":
		t.Hit++
	case "MISS":
		t.Miss++
	case "STALE":
		t.Stale++
	}
}

// judge tallies the answers inside and outside the fault windows and
// records the violations.
func (rep *Report) judge(results []result) {
	o := rep.Options
	inside := func(r result) bool {
		for _, w := range rep.Windows {
			if r.done >= w[0] && r.sent <= w[1]+o.Grace {
				return true
			}
		}
		return false
	}
	bad := func(format string, args ...any) {
		if len(rep.Examples) < 10 {
			rep.Examples = append(rep.Examples, fmt.Sprintf(format, args...))
		}
	}
	for _, r := range results {
		in := inside(r)
		rep.All.add(r)
		if in {
			rep.Inside.add(r)
		} else {
			rep.Outside.add(r)
		}
		switch {
		case r.err == nil && r.status == 500:
			bad("%v %s: 500 %s", r.sent.Round(time.Millisecond), r.url, r.body)
		case r.err == nil && r.status >= 500 && r.status != 503:
			bad("%v %s: %d %s", r.sent.Round(time.Millisecond), r.url, r.status, r.body)
		case r.err == nil && r.status == 503 && !r.retryAfterSet:
			bad("%v %s: 503 without Retry-After", r.sent.Round(time.Millisecond), r.url)
		case in:
		case r.err != nil:
			bad("%v %s: %v", r.sent.Round(time.Millisecond), r.url, r.err)
		case r.status == 503 && r.hadCopy:
			bad("%v %s: 503 outside a fault window though a copy was cached", r.sent.Round(time.Millisecond), r.url)
		}
	}
	all := rep.All
	if all.S500 > 0 {
		rep.Violations = append(rep.Violations, fmt.Sprintf("%d answers were 500", all.S500))
	}
	if all.Other5xx > 0 {
		rep.Violations = append(rep.Violations, fmt.Sprintf("%d answers were a 5xx other than 503", all.Other5xx))
	}
	if n := rep.Outside.Warm503; n > 0 {
		rep.Violations = append(rep.Violations, fmt.Sprintf("%d 503s outside the fault windows for keys with a cached copy", n))
	}
	if n := rep.Outside.Transport; n > 0 {
		rep.Violations = append(rep.Violations, fmt.Sprintf("%d transport errors outside the fault windows", n))
	}
	// Once the catalog is loaded, its answers come from memory: a database
	// outage changes none of them, so a 503 during one is a regression.
	if n := rep.Inside.Cold503 + rep.Inside.Warm503; n > 0 && len(rep.Windows) > 0 {
		rep.Violations = append(rep.Violations, fmt.Sprintf("%d 503s during the faults: answers come from the snapshot in memory", n))
	}
	if g := rep.IdleGoroutinesAfter; g > rep.IdleGoroutinesBefore+o.GoroutineSlack {
		rep.Violations = append(rep.Violations, fmt.Sprintf("goroutines did not end flat: %.0f idle before the load, %.0f after",
			rep.IdleGoroutinesBefore, g))
	}
	// The RSS baseline: the first sample after the first fault cycle, when
	// the cache is warm and the pool has been through one outage.
	for _, s := range rep.Samples {
		if len(rep.Windows) == 0 || s.At >= rep.Windows[0][1]+o.Grace {
			rep.RSSBaseline = s.RSSMiB
			break
		}
	}
	if limit := rep.RSSBaseline*(1+o.RSSGrowth) + o.RSSSlackMiB; rep.RSSBaseline > 0 && rep.RSSAfter > limit {
		rep.Violations = append(rep.Violations, fmt.Sprintf("RSS did not end flat: %.1f MiB after the first fault cycle, %.1f MiB at the end (limit %.1f)",
			rep.RSSBaseline, rep.RSSAfter, limit))
	}
}
