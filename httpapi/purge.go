package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"catalogd/catalog"
)

// Purge tags name what a cacheable response shows, so that a CDN or
// Varnish can drop exactly the responses a change touches: one tag per
// product ({ns}-product-{post ID}) and category ({ns}-category-{term ID})
// shown, and one per kind of response ({ns}-index, {ns}-categories,
// {ns}-list, {ns}-product, {ns}-docs). IDs, not slugs: short, and stable
// when a slug is edited. They go out as Cache-Tag (Cloudflare, comma
// separated) and Surrogate-Key (Fastly, Varnish xkey; space separated).

// tagKinds are the kind suffixes, one per kind of response.
var tagKinds = []string{"index", "categories", "list", "product", "docs"}

// KindTags are the namespace's kind tags: together they purge every
// response catalogd serves. The edge purger sends them when it cannot know
// what changed (at start, after the change feed lost its place).
func KindTags(ns string) []string {
	out := make([]string, 0, len(tagKinds))
	for _, k := range tagKinds {
		out = append(out, ns+"-"+k)
	}
	return out
}

// tagger builds the tags of the namespace.
type tagger struct{ ns string }

func (tg tagger) kind(k string) string { return tg.ns + "-" + k }

func (tg tagger) product(id int64) string {
	return tg.ns + "-product-" + strconv.FormatInt(id, 10)
}

func (tg tagger) category(id int64) string {
	return tg.ns + "-category-" + strconv.FormatInt(id, 10)
}

// tagSet collects tags once each, in order.
type tagSet struct {
	seen map[string]bool
	list []string
}

func (s *tagSet) add(tag string) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if !s.seen[tag] {
		s.seen[tag] = true
		s.list = append(s.list, tag)
	}
}

func (tg tagger) addProduct(s *tagSet, p *catalog.Product) {
	s.add(tg.product(p.ID))
	for _, c := range p.CategoryIDs {
		s.add(tg.category(c))
	}
}

// listTags: the kind, the category filtered on, every product and category
// shown.
func (tg tagger) listTags(l *catalog.ProductList) []string {
	var s tagSet
	s.add(tg.kind("list"))
	if l.CategoryID != 0 {
		s.add(tg.category(l.CategoryID))
	}
	for i := range l.Items {
		tg.addProduct(&s, &l.Items[i])
	}
	return s.list
}

func (tg tagger) productTags(p *catalog.Product) []string {
	var s tagSet
	s.add(tg.kind("product"))
	tg.addProduct(&s, p)
	return s.list
}

func (tg tagger) categoryTags(l *catalog.CategoryList) []string {
	var s tagSet
	s.add(tg.kind("categories"))
	for _, c := range l.Items {
		s.add(tg.category(c.ID))
	}
	return s.list
}

// Change is one change of the shop catalogd saw, and the purge tags of
// every response it invalidated.
type Change struct {
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	Tags []string  `json:"tags"`
}

// maxChanges bounds the change log: a purge job polling every few minutes
// never falls behind it; one that does is told to purge everything.
const maxChanges = 256

// changeLog is a ring of the last changes, and counts of the tags
// invalidated by kind, for the metrics.
type changeLog struct {
	mu   sync.Mutex
	ring []Change // oldest first, at most maxChanges
	// base is this run's first cursor: the microseconds of the log's first
	// use, so that a cursor from an earlier run (or a made-up one) is below
	// it and answers complete:false — changes made while catalogd was down
	// are known to no one. last is the seq of the newest change, base while
	// there is none.
	base, last uint64

	products, categories, kinds atomic.Int64
}

func (l *changeLog) record(now time.Time, tags []string, ns string) {
	for _, t := range tags {
		switch rest := strings.TrimPrefix(t, ns+"-"); {
		case strings.HasPrefix(rest, "product-"):
			l.products.Add(1)
		case strings.HasPrefix(rest, "category-"):
			l.categories.Add(1)
		default:
			l.kinds.Add(1)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.start()
	l.last++
	if len(l.ring) == maxChanges {
		l.ring = append(l.ring[:0], l.ring[1:]...)
	}
	l.ring = append(l.ring, Change{Seq: l.last, Time: now.UTC(), Tags: tags})
}

// changesPage is the /changes answer.
type changesPage struct {
	// Next is the cursor to send as since next time.
	Next uint64 `json:"next"`
	// Complete is false when changes after since are no longer (or not)
	// known: the log overflowed, or since is from another run of catalogd.
	// Purge everything then.
	Complete bool     `json:"complete"`
	Changes  []Change `json:"changes"`
}

// start sets this run's base at the log's first use; l.mu is held.
func (l *changeLog) start() {
	if l.base == 0 {
		l.base = uint64(time.Now().UnixMicro())
		l.last = l.base
	}
}

// since answers the changes after seq; absent (ok false), this run's
// changes and the cursor.
func (l *changeLog) since(seq uint64, ok bool) changesPage {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.start()
	if !ok {
		seq = l.base
	}
	p := changesPage{Next: l.last, Complete: true, Changes: []Change{}}
	switch {
	case seq < l.base || seq > l.last: // another run's cursor, or none of ours
		p.Complete = false
	case len(l.ring) > 0 && seq+1 < l.ring[0].Seq:
		p.Complete = false
	}
	for _, c := range l.ring {
		if c.Seq > seq {
			p.Changes = append(p.Changes, c)
		}
	}
	return p
}

// ChangesHandler serves the change log for an operator's purge job, on the
// admin listener: GET /changes?since=<next of the last answer> returns the
// changes after that cursor, oldest first, with the purge tags each
// invalidated. catalogd pushes nothing; the job polls.
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
		_ = json.NewEncoder(w).Encode(c.changes.since(seq, s != ""))
	})
}
