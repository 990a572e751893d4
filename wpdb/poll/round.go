package poll

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"time"

	"catalogd/catalog"
	"catalogd/wpdb"
)

// The poll feed's cheap round: every Interval, a few reads through indexes
// whose cost does not grow with the shop (options, terms, the highest post
// ID, the scheduled and the fresh products; see Poller), compared with the
// last round's. Its reads of the posts table are in posts.go, of the
// options in options.go, of the terms in terms.go.

// Limits of the set of new, unpublished products each round re-reads.
const (
	freshMax = 1000
	freshAge = 24 * time.Hour
)

// freshPost is a product created since Start, not yet published.
type freshPost struct {
	status, modified string
	seen             time.Time
}

// pollOnce runs one cheap round, and the scan when it is due, and returns
// what they saw changed.
func (p *Poller) pollOnce(ctx context.Context) []catalog.Change {
	if !p.started {
		if err := p.baseline(ctx); err != nil {
			return nil
		}
		return []catalog.Change{{All: true, Kind: catalog.KindResync}}
	}
	changes, err := p.round(ctx, false)
	if err != nil {
		return nil
	}
	if p.scanBaselined(ctx) && p.detectDue() {
		ids, err := p.detect(ctx)
		if err == nil && len(ids) > 0 {
			changes = append(changes, catalog.Change{Products: ids, Kind: catalog.KindProduct})
		}
	}
	return append(changes, p.recheck(p.o.Now())...)
}

// roundState is what one cheap round read.
type roundState struct {
	updated      string // wp_posts' UPDATE_TIME; "" when the server has none
	options      map[string]string
	terms, attrs string
	maxID        int64
	created      []productRow // posts with IDs above the last round's highest
	future       map[int64]bool
	left         []productRow // posts that left the scheduled set, still present
	fresh        []productRow // the fresh posts, still present
	index        string       // the baseline's: the index on post_modified_gmt (delta.go)
}

// round runs one cheap round. On the baseline it only records what it read.
func (p *Poller) round(ctx context.Context, baseline bool) ([]catalog.Change, error) {
	var s roundState
	var leftIDs []int64
	start := time.Now()
	err := p.db.View(ctx, func(ctx context.Context, tx *wpdb.Tx) error {
		var err error
		if s.updated, _, _, err = tx.PostsUpdated(ctx); err != nil {
			return err
		}
		if s.options, err = optionSums(ctx, tx, p.reads.Options); err != nil {
			return err
		}
		if s.terms, s.attrs, err = termSums(ctx, tx, p.reads.Taxonomies, p.reads.TaxonomyLike(), p.reads.MemberTaxonomies); err != nil {
			return err
		}
		if s.maxID, err = tx.MaxPostID(ctx, nil); err != nil {
			return err
		}
		if !baseline && s.maxID > p.maxID {
			if s.created, err = productsByIDRange(ctx, tx, p.maxID, s.maxID); err != nil {
				return err
			}
		}
		ids, err := scheduledProducts(ctx, tx)
		if err != nil {
			return err
		}
		s.future = make(map[int64]bool, len(ids))
		for _, id := range ids {
			s.future[id] = true
		}
		if baseline {
			s.index, err = modifiedIndex(ctx, tx)
			return err
		}
		for id := range p.future {
			if !s.future[id] {
				leftIDs = append(leftIDs, id)
			}
		}
		if s.left, err = productsByID(ctx, tx, leftIDs); err != nil {
			return err
		}
		s.fresh, err = productsByID(ctx, tx, slices.Collect(maps.Keys(p.fresh)))
		return err
	})
	cost := time.Since(start)
	if err != nil {
		p.failed(ctx, Stats{DBTime: cost}, err)
		return nil, err
	}
	// The round's cost with the gate reads since the last one (gateOnce).
	spent := cost + p.gateSpent
	p.gateSpent = 0
	if baseline || p.roundCost == 0 {
		p.roundCost = spent
	} else {
		p.roundCost = (3*p.roundCost + spent) / 4
	}
	p.roundUpdated = s.updated
	if baseline {
		p.noteIndex(ctx, s.index)
	}
	changes := p.apply(s, leftIDs, baseline)
	p.o.OnPoll(Stats{DBTime: cost, Period: p.period, Changes: len(changes)})
	return changes, nil
}

// apply records what a round read as the new baseline and returns what
// changed since the last.
func (p *Poller) apply(s roundState, leftIDs []int64, baseline bool) []catalog.Change {
	now := p.o.Now()
	if baseline {
		p.options, p.terms, p.attrs, p.maxID, p.future = s.options, s.terms, s.attrs, s.maxID, s.future
		p.fresh = map[int64]freshPost{}
		return nil
	}
	var changes []catalog.Change
	if !maps.Equal(s.options, p.options) {
		changes = append(changes, catalog.Change{All: true, Kind: catalog.KindOption})
	}
	if s.terms != p.terms {
		changes = append(changes, catalog.Change{All: true, Kind: catalog.KindTerm})
	}
	if s.attrs != p.attrs {
		changes = append(changes, catalog.Change{All: true, Kind: catalog.KindTable})
	}
	var ids []int64
	// Scheduled posts gone live (or trashed, drafted, deleted); and new
	// posts that joined the set (a draft scheduled), which nobody shows yet
	// but cost one read.
	present := map[int64]bool{}
	for _, r := range s.left {
		present[r.ID] = true
		ids = append(ids, r.ids()...)
	}
	for _, id := range leftIDs {
		if !present[id] {
			ids = append(ids, id)
		}
	}
	for id := range s.future {
		if !p.future[id] {
			ids = append(ids, id)
		}
	}
	// The fresh posts: published, or edited, or deleted.
	present = map[int64]bool{}
	for _, r := range s.fresh {
		present[r.ID] = true
		f := p.fresh[r.ID]
		if r.Status != f.status || r.Modified != f.modified {
			ids = append(ids, r.ID)
		}
		if !unpublished(r.Status) || now.Sub(f.seen) > freshAge {
			delete(p.fresh, r.ID)
			continue
		}
		p.fresh[r.ID] = freshPost{status: r.Status, modified: r.Modified, seen: f.seen}
	}
	for id := range p.fresh {
		if !present[id] {
			ids = append(ids, id)
			delete(p.fresh, id)
		}
	}
	// The posts created since the last round; a product not yet
	// published joins the fresh ones.
	for _, r := range s.created {
		ids = append(ids, r.ids()...)
		if r.Type == "product" && unpublished(r.Status) {
			p.fresh[r.ID] = freshPost{status: r.Status, modified: r.Modified, seen: now}
		}
	}
	if over := len(p.fresh) - freshMax; over > 0 { // an import: the oldest go
		for _, id := range slices.Sorted(maps.Keys(p.fresh))[:over] {
			delete(p.fresh, id)
		}
	}
	if len(ids) > 0 {
		slices.Sort(ids)
		changes = append(changes, catalog.Change{Products: slices.Compact(ids), Kind: catalog.KindProduct})
	}
	p.options, p.terms, p.attrs, p.maxID, p.future = s.options, s.terms, s.attrs, s.maxID, s.future
	for _, c := range changes {
		slog.Debug("poll: shop changed", "kind", c.Kind, "all", c.All, "products", len(c.Products))
	}
	return changes
}

// unpublished says whether a new product's status is one the admin
// publishes later from the same row.
func unpublished(status string) bool {
	return status == "auto-draft" || status == "draft" || status == "pending"
}
