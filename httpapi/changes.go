package httpapi

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Change is one change of the shop catalogd saw, and the purge tags of
// every response it invalidated that no later change named again.
type Change struct {
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	Tags []string  `json:"tags"`
}

// maxChangeBytes bounds the change log by the size of its JSON, not by a
// count of changes: a tag named again moves to the newest change, so the
// log holds each tag once, and only past this are the oldest changes
// dropped. Each change counts changeOverhead and each tag tagBytes: a
// megabyte holds some 10 000 changes of a product each (more than
// three minutes at 50 changes a second, each to another product), and, on
// a shop of fewer products than that, every product — so a purge job
// polling every minute never falls behind at 50 changes a second. One that
// does is told to purge everything (complete: false).
const maxChangeBytes = 1 << 20

// changeOverhead is a change's JSON besides its tags:
// {"seq":1795944654123457,"time":"2026-11-23T09:31:14.337706276Z","tags":[]},
const changeOverhead = 80

// tagBytes is a tag's share of the JSON: its quotes and comma.
func tagBytes(t string) int { return len(t) + 3 }

// changeLog is the recent changes coalesced by tag, and counts of the tags
// named by kind, for the metrics.
type changeLog struct {
	mu sync.Mutex
	// changes are oldest first, by seq. A change whose tags were all
	// named again later is dead (live 0) and skipped; dead ones are
	// removed once they are half of the slice.
	changes []*loggedChange
	dead    int
	// newest is, for each tag held, the newest change naming it.
	newest map[string]*loggedChange
	// bytes is the JSON size of the live changes; maxBytes its bound (0:
	// maxChangeBytes).
	bytes, maxBytes int
	// base is this run's first cursor: the microseconds of the log's first
	// use, so that a cursor from an earlier run (or a made-up one) is below
	// it and answers complete:false — changes made while catalogd was down
	// are known to no one. last is the seq of the newest change, base while
	// there is none. lost is the seq of the newest change dropped for
	// room: a cursor below it missed tags.
	base, last, lost uint64

	products, kinds atomic.Int64
}

// loggedChange is one change held; tags may hold tags named again later
// (newest tells), pruned when they are the larger part.
type loggedChange struct {
	seq  uint64
	time time.Time
	tags []string
	live int
}

func (l *changeLog) record(now time.Time, tags []string, ns string) {
	for _, t := range tags {
		if strings.HasPrefix(strings.TrimPrefix(t, ns+"-"), "product-") {
			l.products.Add(1)
		} else {
			l.kinds.Add(1)
		}
	}
	if len(tags) == 0 {
		return // nothing to purge
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.start(now)
	l.last++
	c := &loggedChange{seq: l.last, time: now.UTC()}
	l.bytes += changeOverhead
	for _, t := range tags {
		old := l.newest[t]
		if old == c {
			continue
		}
		if old != nil {
			l.unlink(old, t)
		}
		l.newest[t] = c
		c.tags = append(c.tags, t)
		c.live++
		l.bytes += tagBytes(t)
	}
	l.changes = append(l.changes, c)
	l.evict()
	if l.dead > 16 && l.dead*2 > len(l.changes) {
		kept := l.changes[:0]
		for _, c := range l.changes {
			if c.live > 0 {
				kept = append(kept, c)
			}
		}
		clear(l.changes[len(kept):])
		l.changes, l.dead = kept, 0
	}
}

// unlink takes tag t from change c, which a newer change names it in;
// l.mu is held.
func (l *changeLog) unlink(c *loggedChange, t string) {
	c.live--
	l.bytes -= tagBytes(t)
	if c.live == 0 {
		l.bytes -= changeOverhead
		l.dead++
		c.tags = nil
		return
	}
	if c.live*2 < len(c.tags) {
		// Most of its tags moved on: keep the memory in step with the
		// bytes counted. t is still mapped to c here; skip it.
		kept := make([]string, 0, c.live)
		for _, x := range c.tags {
			if x != t && l.newest[x] == c {
				kept = append(kept, x)
			}
		}
		c.tags = kept
	}
}

// evict drops the oldest changes while the log is over its bound, keeping
// the newest; l.mu is held.
func (l *changeLog) evict() {
	limit := l.maxBytes
	if limit <= 0 {
		limit = maxChangeBytes
	}
	for i := 0; l.bytes > limit && i < len(l.changes)-1; i++ {
		c := l.changes[i]
		if c.live == 0 {
			continue
		}
		for _, t := range c.tags {
			if l.newest[t] == c {
				delete(l.newest, t)
				l.bytes -= tagBytes(t)
			}
		}
		l.bytes -= changeOverhead
		c.live, c.tags = 0, nil
		l.dead++
		l.lost = c.seq
	}
}

// changesPage is the /changes answer.
type changesPage struct {
	// Next is the cursor to send as since next time.
	Next uint64 `json:"next"`
	// Complete is false when changes after since are no longer (or not)
	// known: the log dropped some for room, or since is from another run
	// of catalogd. Purge everything then.
	Complete bool     `json:"complete"`
	Changes  []Change `json:"changes"`
}

// start sets this run's base at the log's first use; l.mu is held.
func (l *changeLog) start(now time.Time) {
	if l.base == 0 {
		l.base = uint64(now.UnixMicro())
		l.last = l.base
		l.newest = map[string]*loggedChange{}
	}
}

// since answers the changes after seq, each with the tags no later change
// named; absent (ok false), this run's changes and the cursor.
func (l *changeLog) since(now time.Time, seq uint64, ok bool) changesPage {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.start(now)
	if !ok {
		seq = l.base
	}
	p := changesPage{Next: l.last, Complete: true, Changes: []Change{}}
	if seq < l.base || seq > l.last || seq < l.lost {
		// Another run's cursor, none of ours, or older than what the log
		// dropped.
		p.Complete = false
	}
	i := sort.Search(len(l.changes), func(i int) bool { return l.changes[i].seq > seq })
	for _, c := range l.changes[i:] {
		if c.live == 0 {
			continue
		}
		tags := make([]string, 0, c.live)
		for _, t := range c.tags {
			if l.newest[t] == c {
				tags = append(tags, t)
			}
		}
		p.Changes = append(p.Changes, Change{Seq: c.seq, Time: c.time, Tags: tags})
	}
	return p
}

// ChangesHandler serves the change log on the admin listener, for
// operators who purge their own way (catalogd purges the edge caches it is
// configured with itself, package purge): GET /changes?since=<next of the
// last answer> returns the changes after that cursor, oldest first, with
// the purge tags each invalidated; a tag named again shows only at its
// newest change.
func (c *Cache) ChangesHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.Header().Set("Cache-Control", "no-store")
		var seq uint64
		s := r.URL.Query().Get("since")
		if s != "" {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				w.WriteHeader(http.StatusBadRequest)
				_ = json.NewEncoder(w).Encode(map[string]string{
					"error": "since must be a whole number: the next of the previous answer (leave it out at first)."})
				return
			}
			seq = n
		}
		_ = json.NewEncoder(w).Encode(c.changes.since(c.now(), seq, s != ""))
	})
}
