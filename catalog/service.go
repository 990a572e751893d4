package catalog

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Config is what the catalog needs beyond the database.
type Config struct {
	// SiteURL overrides the home option as the origin of every URL.
	SiteURL string
	// UploadsURL overrides the uploads base URL derived from the options,
	// for sites that move uploads with PHP constants.
	UploadsURL string
	// DevelopersURL is the developer page the index links, if any.
	DevelopersURL string
	// SitemapURL overrides the sitemap the index links: "" finds the one
	// the shop serves (sitemap.go), SitemapNone links none.
	SitemapURL string
	// Language is the language served on a multilingual shop (WPML or
	// Polylang code); empty: the translation plugin's default language.
	Language string
	// Now is the clock sales are evaluated against; time.Now by default.
	Now Clock
	// OnBuild, when set, is told every whole snapshot swapped in and how
	// long reading and building it took.
	OnBuild func(s *Snapshot, took time.Duration)
	// OnLoad, when set, is told a whole read of the shop begins, and its
	// result when it ended (built or failed): a load makes several times
	// the snapshot in garbage, which catalogd's collector tuning heeds.
	OnLoad func() (done func())
}

// withDefaults fills in the defaults.
func (cfg Config) withDefaults() Config {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return cfg
}

// Catalog implements Service from snapshots of the shop a Source reads.
type Catalog struct {
	src Source
	cfg Config
	log *slog.Logger

	cur     atomic.Pointer[Snapshot]
	loadMu  sync.Mutex // one load or refresh at a time
	version atomic.Uint64
	seen    seen

	lastLoad atomic.Pointer[loadOutcome]
	// wholeEvery is the interval Follow keeps between whole reads, as it
	// last set it (WholeReadInterval).
	wholeEvery atomic.Int64

	firstMu sync.Mutex
	first   *firstLoad // the load requests wait for while there is no snapshot
}

// firstLoad is a load that requests without a snapshot share.
type firstLoad struct {
	done chan struct{}
	err  error
}

var _ Service = (*Catalog)(nil)

// New returns the catalog of the shop src reads. Nothing is read until the
// first request, Ready, Reload or Watch.
func New(src Source, cfg Config) *Catalog {
	return &Catalog{src: src, cfg: cfg.withDefaults(), log: slog.Default()}
}

// Snapshot returns the current snapshot. While there is none (at start),
// the callers share one load and wait for it as long as
// their context allows; the load itself runs to its own deadline, so that
// a caller giving up does not waste it.
func (c *Catalog) Snapshot(ctx context.Context) (*Snapshot, error) {
	if s := c.cur.Load(); s != nil {
		return s, nil
	}
	c.firstMu.Lock()
	f := c.first
	if f == nil {
		f = &firstLoad{done: make(chan struct{})}
		c.first = f
		go func() {
			_, f.err = c.reload(context.WithoutCancel(ctx))
			c.firstMu.Lock()
			c.first = nil // the next caller without a snapshot tries again
			c.firstMu.Unlock()
			close(f.done)
		}()
	}
	c.firstMu.Unlock()
	select {
	case <-f.done:
		if f.err != nil {
			return nil, domainError(f.err)
		}
		return c.cur.Load(), nil // the load swapped it in
	case <-ctx.Done():
		return nil, domainError(ctx.Err())
	}
}

// Reload reads the whole shop again and swaps the new snapshot in; until it
// is built, requests are answered from the old one. A failed reload keeps
// the old one.
func (c *Catalog) Reload(ctx context.Context) error {
	_, err := c.reload(ctx)
	return domainError(err)
}

func (c *Catalog) reload(ctx context.Context) (*Snapshot, error) {
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	s, err := c.load(ctx)
	if err != nil {
		return nil, err
	}
	c.lastSeen(c.cfg.Now()) // the first load starts the clocks of Modified
	if old := c.cur.Load(); old != nil {
		go s.warm(old)
	}
	c.swap(s)
	if c.cfg.OnBuild != nil {
		c.cfg.OnBuild(s, s.took)
	}
	return s, nil
}

// Refresh re-reads the products with the IDs (and the grouped products
// listing them) and swaps in a snapshot that shares everything else with
// the current one: Apply, for changes no feed reported. Without a current
// snapshot it loads the whole shop.
func (c *Catalog) Refresh(ctx context.Context, ids ...int64) error {
	_, err := c.Apply(ctx, Change{Products: ids, Kind: KindProduct})
	return err
}

// refresh swaps in a snapshot with the products re-read, and returns it and
// the products it re-read (ids and those whose resources show them).
func (c *Catalog) refresh(ctx context.Context, ids []int64) (*Snapshot, []int64, error) {
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	old := c.cur.Load() // set: Apply reads the whole shop while there is none
	ids = old.Affected(ids)
	rows, err := c.src.LoadProducts(ctx, ShopReads, ids)
	if err != nil {
		return nil, nil, domainError(err)
	}
	s := old.With(rows, ids, c.version.Add(1), c.cfg)
	c.swap(s)
	return s, ids, nil
}

// load reads and builds a whole snapshot.
func (c *Catalog) load(ctx context.Context) (*Snapshot, error) {
	if c.cfg.OnLoad != nil {
		defer c.cfg.OnLoad()()
	}
	start := time.Now()
	rows, err := c.src.LoadShop(ctx, ShopReads)
	if err != nil {
		return nil, err
	}
	read := time.Since(start)
	s, err := Build(rows, c.cfg, c.version.Add(1), c.cfg.Now())
	if err != nil {
		return nil, err
	}
	c.log.DebugContext(ctx, "snapshot built", "version", s.Version, "products", len(s.served),
		"read", read, "build", time.Since(start)-read)
	s.took = time.Since(start)
	return s, nil
}

// swap makes s current, logging what the shop's storage holds that
// WordPress overlooks when it differs from the last snapshot's.
func (c *Catalog) swap(s *Snapshot) {
	old := c.cur.Load()
	if old == nil || !slices.Equal(old.Warnings, s.Warnings) {
		for _, w := range s.Warnings {
			c.log.Warn(w)
		}
	}
	c.cur.Store(s)
}

// domainError turns a failure to load into the domain's errors.
func domainError(err error) error {
	var ce *Error
	switch {
	case err == nil || errors.As(err, &ce):
		return err
	case errors.Is(err, ErrUnavailable) || errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded) || errors.As(err, new(*LanguageError)):
		// A configured language the site lacks (seen when the database came
		// back after start-up) is the operator's to fix, like a denied
		// table: the catalog cannot be served, /readyz says why.
		return &Error{Kind: EUNAVAILABLE, Reason: "unavailable",
			Message: "The catalog database is not reachable right now.", Err: err}
	default:
		return &Error{Kind: EINTERNAL, Reason: "internal_error",
			Message: "The catalog could not be read.", Err: err}
	}
}

// ErrUnavailable marks a Source's failure to reach its storage (as opposed
// to storage that answers wrongly): a 503, not a 500.
var ErrUnavailable = errors.New("storage unavailable")

// LanguageInfo is what the catalog found about the shop's languages.
type LanguageInfo struct {
	Plugin   string // the translation plugin WordPress loads; "" when none
	Language string // the language served on a multilingual shop
	Products int    // the published products served
	// Ignored are translation plugins' leftovers (settings of a plugin that
	// is not active, or that lacks its tables), one line each.
	Ignored []string
}

// Languages reports the translation plugin found, the language served and
// the leftovers ignored.
func (c *Catalog) Languages(ctx context.Context) (LanguageInfo, error) {
	snap, err := c.Snapshot(ctx)
	if err != nil {
		return LanguageInfo{}, err
	}
	sh := snap.sh
	return LanguageInfo{Plugin: sh.plugin, Language: sh.language, Ignored: sh.ignored, Products: len(snap.served)}, nil
}

// Ready reports whether the catalog can be served: a snapshot is loaded, or
// loads now. A database that answers with every table is not enough: a
// plugin's damaged tables or a language the site lacks leave every endpoint
// failing.
func (c *Catalog) Ready(ctx context.Context) error {
	_, err := c.Snapshot(ctx)
	return err
}
