package catalog

import (
	"context"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"catalogd/wpdb"
)

// population is what the catalog keeps in memory between changes of the
// shop: its settings and terms, the published products (of the language
// served), and for every category, framework and visibility term which of
// them carry it, as bitsets over their positions.
// The product list, its filters and counts, the category counts and the
// index are computed from it in microseconds instead of counting through
// the database at every request; the products' own data is still read per
// request. It is rebuilt when the change poller sees the shop change (every
// option the settings come from is in the change signature), and when it is
// older than maxPopulationAge.
type population struct {
	sh    *shop  // the shop's settings it was built with
	t     *terms // and its terms
	built time.Time
	ids   []int64 // published product IDs, ascending
	all   bitset  // every position
	terms map[int64]bitset
}

type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int) { b[i/64] |= 1 << (uint(i) % 64) }
func (b bitset) count() (n int) {
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// and, or and andNot return new sets.
func (b bitset) and(o bitset) bitset {
	out := make(bitset, len(b))
	for i := range b {
		out[i] = b[i] & o[i]
	}
	return out
}

func (b bitset) andNot(o bitset) bitset {
	out := make(bitset, len(b))
	for i := range b {
		out[i] = b[i] &^ o[i]
	}
	return out
}

func (b bitset) orInto(o bitset) {
	for i := range b {
		b[i] |= o[i]
	}
}

// page returns the positions from the offset-th set bit on, at most limit.
func (b bitset) page(offset, limit int) []int {
	var out []int
	for wi, w := range b {
		n := bits.OnesCount64(w)
		if offset >= n {
			offset -= n
			continue
		}
		for w != 0 && len(out) < limit {
			tz := bits.TrailingZeros64(w)
			w &= w - 1
			if offset > 0 {
				offset--
				continue
			}
			out = append(out, wi*64+tz)
		}
		if len(out) >= limit {
			break
		}
	}
	return out
}

// maxPopulationAge bounds how long a population serves without a change
// the poller saw: edits it cannot see (raw SQL) show within this.
const maxPopulationAge = 10 * time.Minute

// populations keeps the current population and builds new ones, one at a
// time.
type populations struct {
	cur atomic.Pointer[population]
	mu  sync.Mutex // one build at a time
}

// get returns the population, building one with build when there is none
// fit to serve.
func (ps *populations) get(now time.Time, build func() (*population, error)) (*population, error) {
	if p := ps.cur.Load(); p != nil && now.Sub(p.built) < maxPopulationAge {
		return p, nil
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if p := ps.cur.Load(); p != nil && now.Sub(p.built) < maxPopulationAge {
		return p, nil
	}
	p, err := build()
	if err != nil {
		return nil, err
	}
	ps.cur.Store(p)
	return p, nil
}

// invalidate drops the population; the next request builds a new one.
func (ps *populations) invalidate() { ps.cur.Store(nil) }

// buildPopulation reads the published products and the members of every
// term the catalog filters on: two statements.
func buildPopulation(ctx context.Context, tx *wpdb.Tx, sh *shop, t *terms, now time.Time) (*population, error) {
	ids, err := tx.AllProductIDs(ctx, languageFilter(sh))
	if err != nil {
		return nil, err
	}
	var ttids []int64
	for tt := range t.catByTT {
		ttids = append(ttids, tt)
	}
	for tt := range t.fwByTT {
		ttids = append(ttids, tt)
	}
	for _, tt := range t.visibility {
		ttids = append(ttids, tt)
	}
	members, err := tx.TermMembers(ctx, ttids)
	if err != nil {
		return nil, err
	}
	p := &population{sh: sh, t: t, built: now, ids: ids,
		all: newBitset(len(ids)), terms: make(map[int64]bitset, len(ttids))}
	for i := range ids {
		p.all.set(i)
	}
	for _, m := range members {
		pos, ok := slices.BinarySearch(ids, m.ObjectID)
		if !ok {
			continue // not a published product (of this language)
		}
		b := p.terms[m.TTID]
		if b == nil {
			b = newBitset(len(ids))
			p.terms[m.TTID] = b
		}
		b.set(pos)
	}
	return p, nil
}

// union is the set of products carrying any of the terms.
func (p *population) union(ttids []int64) bitset {
	out := newBitset(len(p.ids))
	for _, tt := range ttids {
		if b := p.terms[tt]; b != nil {
			out.orInto(b)
		}
	}
	return out
}

// visible is the catalog-visible population: published, without the
// excluding visibility terms.
func (p *population) visible(exclusions []int64) bitset {
	return p.all.andNot(p.union(exclusions))
}
