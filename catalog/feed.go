package catalog

import (
	"context"
	"slices"
	"time"
)

// This file declares the change feed: what a source of the shop's changes
// (the binary log, wpdb/binlog, or polling, wpdb/poll) tells the catalog,
// and how changes that arrive while one is being applied are merged.

// Change is what the shop's change feed saw: which posts changed, or that
// anything may have.
type Change struct {
	// Posts changed: their row, meta, terms or lookup row. Only those the
	// snapshot shows matter (products, their variations and grouped
	// children); the others (orders, pages, drafts) cost no read.
	Posts []int64
	// Products are posts the feed knows to be products or variations from
	// their posts row: they are read again even when the snapshot does not
	// hold them (one just published, or scheduled and gone live).
	Products []int64
	// All: something every product may show changed (an option, a term,
	// the attribute table, a translation plugin's table, a lost binary log
	// position): the whole snapshot is read again.
	All bool
	// Kind says what kind of change it was, for the log and the metrics:
	// one of the Kind* constants.
	Kind string
	// Committed is when the change was committed, when the feed knows it
	// (the binary log's event time): the lag is measured from it.
	Committed time.Time
	// Confirm, when set, has the change read again that long after: the
	// feed may report a change before its commit is visible to other
	// sessions (a server sends a transaction's binary log events before
	// the storage engine's commit ends), so the first read may miss it.
	Confirm time.Duration
}

// Kinds of change.
const (
	KindProduct = "product" // a post, its meta or its terms
	KindTerm    = "term"    // a category, framework or visibility term
	KindOption  = "option"  // one of the options the catalog reads
	KindTable   = "table"   // the attribute table, a translation plugin's table
	KindResync  = "resync"  // the feed lost its place (binary log purged, failover)
	// KindReread is the catalog's own whole read (Follow): its first,
	// and the re-read of a snapshot grown old (wholeReadEvery). Unlike a
	// resync, it says nothing was lost: the read is diffed against the
	// snapshot served, and what differs is all that changed.
	KindReread = "reread"
)

// Feed is a source of the shop's changes.
type Feed interface {
	// Name is the source's name in logs, metrics and /readyz.
	Name() string
	// Start marks where the feed stands: every change committed after Start
	// returns is reported by Run, or is in the first whole read (LoadShop)
	// that begins after Start and everything committed after that read's
	// instant is reported (a Baseliner takes its baseline from that read,
	// in its snapshot). It is called before the first snapshot is read,
	// so a change made meanwhile is reported and read again, or in that
	// read, never missed.
	Start(ctx context.Context) error
	// Run reports changes to h until ctx ends. It returns ctx's error
	// when ctx ends, or the reason the feed cannot go on.
	Run(ctx context.Context, h ChangeHandler) error
}

// ChangeHandler is told each change a Feed reports, as go-mysql's canal
// names the handler of its events: the catalog's Follow, and what wraps
// it to count the changes. OnChange must not block for long.
type ChangeHandler interface {
	OnChange(Change)
}

// ChangeFunc is a function as a ChangeHandler.
type ChangeFunc func(Change)

// OnChange implements ChangeHandler.
func (f ChangeFunc) OnChange(c Change) { f(c) }

// Sighted is a Feed that can say it sees every change to what the catalog
// reads (the binary log, in row format: raw SQL on a meta key and an
// image's file included). While it does, the whole read that catches what
// a feed cannot see is only a check, made every sightedSnapshotAge rather
// than every maxSnapshotAge: a large shop's whole read costs the database
// seconds of a core and catalogd a load's memory peak.
type Sighted interface {
	SeesEverything() bool
}

// Baseliner is a Feed that takes the baseline it compares the shop with
// from a whole read of the shop rather than by a read of its own: a
// baseline read at a whole read's instant is exactly right (a change
// committed after that instant differs from it and is reported; one
// committed before is in the read), and the whole read reads most of it
// anyway. The poll feed is one (wpdb/poll): its baseline, every product
// post's state, would cost a scan of the posts table before the first
// load could begin. Its Start asks a BaselineSource (AskBaseline); each
// whole read (LoadShop) that begins after calls Baseline as it is about to
// open its snapshot, and the feed adopts the first Baseline handed over
// (Done); until then it waits.
type Baseliner interface {
	// Baseline says what the whole read about to open its snapshot takes
	// for the feed: nil when the feed wants nothing (it has its
	// baseline), or an error that fails the read.
	Baseline(ctx context.Context) (Baseline, error)
}

// Baseline is a Baseliner's part of one whole read, which calls Clock,
// then Posts, then, once the read succeeded, Done.
type Baseline interface {
	// Clock is told the database's UTC clock ("2006-01-02 15:04:05") as
	// the read's first statement in its snapshot read it: the read's
	// instant.
	Clock(utcNow string)
	// Posts is given every product and variation post as of that instant,
	// in slices: the published products and their variations the read
	// hands over, and the others, which it reads for the feed (their
	// texts left empty).
	Posts(posts ...[]Post)
	// Done hands the baseline over: the read succeeded.
	Done()
}

// BaselineSource is a Source whose whole reads take a Baseliner's
// baseline (wpdb's DB).
type BaselineSource interface {
	Source
	// AskBaseline has every whole read that begins from now on ask b (in
	// place of the one asked before, if any) until withdraw is called.
	AskBaseline(b Baseliner) (withdraw func())
}

// merge adds b to a: what is pending when b arrives. The earliest commit
// time stays, so that the lag measured is the longest.
func (a *Change) merge(b Change) {
	a.Posts = append(a.Posts, b.Posts...)
	a.Products = append(a.Products, b.Products...)
	a.All = a.All || b.All
	a.Confirm = max(a.Confirm, b.Confirm)
	// A whole read's kind wins, but a resync's stays: that the feed lost
	// its place is what the follower purges the edge by kind for.
	if a.Kind == "" || b.All && a.Kind != KindResync {
		a.Kind = b.Kind
	}
	if a.Committed.IsZero() || (!b.Committed.IsZero() && b.Committed.Before(a.Committed)) {
		a.Committed = b.Committed
	}
	slices.Sort(a.Posts)
	a.Posts = slices.Compact(a.Posts)
	slices.Sort(a.Products)
	a.Products = slices.Compact(a.Products)
}
