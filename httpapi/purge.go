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
// Varnish can drop exactly the responses a change touches. A tag is sent
// only where a purge needs it:
//
//   - every response names its kind ({ns}-index, {ns}-categories,
//     {ns}-list, {ns}-product, {ns}-docs), which a change to the lists
//     (a product entering or leaving them) or to a term or setting purges;
//   - a product page and a list page also name each product they show
//     ({ns}-product-{post ID}: IDs, not slugs, short and stable when a slug
//     is edited), which a change to that product purges;
//   - a 400 or 404 names {ns}-miss, which a change to the lists purges: a
//     product just published is no longer missing at the edge.
//
// No response names its categories: a category's name, slug, order or
// count only changes with a term (every kind is purged then) or with a
// product entering, leaving or moving (the lists' kinds, and the
// product's own tag, are purged then).
//
// The tags go out in one header, chosen for the CDN configured: Surrogate-Key
// (Fastly, Varnish xkey; space-separated) or Cache-Tag (Cloudflare; comma
// separated); both only when asked. A response whose tags would not fit
// tagBudget (a list of 100 products with long IDs or a long namespace)
// names its kind and {ns}-overflow instead, which every product change
// purges: nothing is left unpurgeable.

// tagKinds are the kind suffixes: one per kind of response, miss for the
// 400s and 404s, overflow for the responses whose tags did not fit.
var tagKinds = []string{"index", "categories", "list", "product", "docs", "miss", "overflow"}

// TagHeader chooses the purge tag header(s) a response carries.
type TagHeader int

const (
	// TagSurrogateKey sends Surrogate-Key (Fastly, Varnish xkey).
	TagSurrogateKey TagHeader = iota
	// TagCacheTag sends Cache-Tag (Cloudflare).
	TagCacheTag
	// TagBoth sends both, each within half the budget.
	TagBoth
)

// tagBudget bounds the bytes of purge tag headers one response carries,
// both headers together when both are sent. Every header of a response
// must pass nginx's default proxy_buffer_size (4 KB, the status line and
// all headers together), Apache's ResponseFieldSize (8190 bytes per
// field) and Varnish's http_resp_hdr_len (8 KB per field) and http_resp_size
// (32 KB); catalogd's other headers take about 1 KB. 2 KB holds a list of
// 100 products with six-digit IDs under the default namespace (2 009
// bytes), the largest page the API serves.
const tagBudget = 2048

// tagger builds the tags of the namespace.
type tagger struct {
	ns string
	// fields is how many headers carry the tags: 2 for TagBoth.
	fields int
}

func (tg tagger) kind(k string) string { return tg.ns + "-" + k }

func (tg tagger) product(id int64) string {
	return tg.ns + "-product-" + strconv.FormatInt(id, 10)
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

// fit returns tags (the kind first) when their header(s) fit tagBudget,
// else the kind and the overflow tag, which every product change names.
func (tg tagger) fit(tags []string) []string {
	n := len(tags) - 1 // the separators
	for _, t := range tags {
		n += len(t)
	}
	if n*max(tg.fields, 1) <= tagBudget {
		return tags
	}
	return []string{tags[0], tg.kind("overflow")}
}

// listTags: the kind and every product shown. The category filtered on
// needs no tag: a term change purges every list by its kind.
func (tg tagger) listTags(l *catalog.ProductList) []string {
	tags := make([]string, 0, 1+len(l.Items))
	tags = append(tags, tg.kind("list"))
	for i := range l.Items {
		tags = append(tags, tg.product(l.Items[i].ID))
	}
	return tg.fit(tags)
}

func (tg tagger) productTags(p *catalog.Product) []string {
	return []string{tg.kind("product"), tg.product(p.ID)}
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
