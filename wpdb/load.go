package wpdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"catalogd/catalog"
	"catalogd/wpopt"
)

var _ catalog.Source = (*DB)(nil)

// children records the _children list of every grouped product among ids
// (their meta is in rows) and reads the children not read yet, known
// marking those that are: a draft child still moves its group's modified
// time, and a child that is not a published product is in no other read.
func (tx *Tx) children(ctx context.Context, r catalog.Reads, ids []int64, known map[int64]bool, rows *catalog.ProductRows) error {
	var more []int64
	for _, id := range ids {
		raw := rows.Meta.First(id, catalog.MetaChildren)
		if raw == "" {
			continue
		}
		kids, err := wpopt.ParseIDList(raw)
		if err != nil {
			// A damaged _children leaves the group empty, as
			// wp_parse_id_list(false) would.
			kids = nil
		}
		rows.Children[id] = kids
		for _, k := range kids {
			if !known[k] {
				known[k] = true
				more = append(more, k)
			}
		}
	}
	for part := range slices.Chunk(more, chunk) {
		posts, err := tx.Posts(ctx, part, false)
		if err != nil {
			return err
		}
		rows.Related = append(rows.Related, posts...)
		if err := tx.postDetails(ctx, r, part, rows); err != nil {
			return err
		}
	}
	return nil
}

// LoadShop reads the whole shop as it stood at one instant, under the load
// deadline (the whole load's, and each statement's): settings, terms, and
// every published product. With more than one stream (Options.LoadStreams)
// it reads on that many connections at once, each in a transaction whose
// snapshot is the same instant (load_streams.go); with one, or when
// commits keep falling between the streams' openings, in one read-only
// transaction.
func (db *DB) LoadShop(ctx context.Context, r catalog.Reads) (*catalog.ShopRows, error) {
	var rows *catalog.ShopRows
	ctx, cost := withCost(ctx)
	err := db.underLoadDeadline(ctx, "the whole read of the shop", func(ctx context.Context) error {
		var err error
		rows, err = db.loadShop(ctx, r)
		return err
	})
	if rows != nil {
		rows.Cost = time.Duration(cost.Load())
	}
	return rows, classify(err)
}

// loadShop is LoadShop under its deadline: on the streams, else in one
// transaction.
func (db *DB) loadShop(ctx context.Context, r catalog.Reads) (*catalog.ShopRows, error) {
	if db.streams > 1 && !db.noSnapshots.Load() {
		rows, err := db.loadStreamed(ctx, r, db.streams)
		switch {
		case errors.Is(err, errNoInstant):
			slog.InfoContext(ctx, "wpdb: commits fell between the load's streams at every try; reading in one transaction",
				"streams", db.streams, "tries", snapshotTries)
		case errors.Is(err, errNoSnapshots):
			// Said once: every later load reads in one transaction.
			db.noSnapshots.Store(true)
			slog.InfoContext(ctx, "wpdb: the server cannot open the load's streams at one instant; "+
				"every whole load reads in one transaction", "err", err)
		default:
			return rows, err
		}
	}
	// A feed's baseline, when one asks (baseline.go): what it reads
	// before the transaction, the rest in it.
	br, err := db.beginBaseline(ctx)
	if err != nil {
		return nil, err
	}
	var rows *catalog.ShopRows
	err = db.view(ctx, db.load, func(ctx context.Context, tx *Tx) error {
		tx.stmt = db.load // one deadline for the one consistent read
		if err := br.clock(ctx, tx); err != nil {
			return err
		}
		var err error
		rows, err = tx.loadShop(ctx, r, br)
		return err
	})
	if err != nil {
		return nil, err
	}
	br.deliver()
	return rows, nil
}

// underLoadDeadline runs read under the load deadline (Options.LoadTimeout)
// and, when that deadline rather than the caller's cut it, says so and
// names the setting that raises it. A shop too large for the deadline
// fails the same way at every try, and "context deadline exceeded" alone
// reads like a database that is away; what is the read, for the message.
func (db *DB) underLoadDeadline(ctx context.Context, what string, read func(ctx context.Context) error) error {
	lctx, cancel := context.WithTimeout(ctx, db.load)
	defer cancel()
	err := read(lctx)
	if err == nil || ctx.Err() != nil || !errors.Is(lctx.Err(), context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("wpdb: %s passed its deadline of %s; if the shop is this slow to read, "+
		"raise --db-load-timeout (CATALOG_DB_LOAD_TIMEOUT): %w", what, db.load, err)
}

// classify marks the failures that mean the database could not be reached
// as catalog.ErrUnavailable.
func classify(err error) error {
	if err != nil && IsUnavailable(err) {
		return fmt.Errorf("%w: %w", catalog.ErrUnavailable, err)
	}
	return err
}

// loadShop reads the whole shop in the transaction, and the baseline br
// asks for (nil: none).
func (tx *Tx) loadShop(ctx context.Context, r catalog.Reads, br *baselineRead) (*catalog.ShopRows, error) {
	rows := &catalog.ShopRows{}
	if err := tx.loadSettings(ctx, r, rows); err != nil {
		return nil, err
	}
	products, err := tx.loadPublished(ctx, r, rows.Tables, br)
	if err != nil {
		return nil, err
	}
	rows.Products = *products
	return rows, nil
}

// loadSettings reads what the products' fields depend on into rows:
// options, attribute orders, plugins, the optional tables, terms, their
// members, translations.
func (tx *Tx) loadSettings(ctx context.Context, r catalog.Reads, rows *catalog.ShopRows) error {
	var err error
	if rows.Options, err = tx.Options(ctx, r.Options); err != nil {
		return err
	}
	// Every registered attribute, when asked for, in the one statement
	// that reads the named ones' order too.
	if r.AttributeTaxonomies {
		if rows.AttributeTaxonomies, err = tx.AttributeTaxonomies(ctx); err != nil {
			return err
		}
		rows.OrderBy = attributeOrderBy(rows.AttributeTaxonomies, r.Attributes)
	} else if rows.OrderBy, err = tx.AttributeOrderBy(ctx, r.Attributes); err != nil {
		return err
	}
	rows.NetworkPlugins, err = tx.NetworkPlugins(ctx)
	if errors.Is(err, ErrDenied) {
		// Most likely a single site whose catalogd user may read the
		// site's tables only: take it as one, and say so.
		rows.NetworkNote = fmt.Sprintf("network plugins not read (%v); a network-activated plugin is missed", err)
		err = nil
	}
	if err != nil {
		return err
	}
	if rows.Tables, rows.Unreadable, err = tx.tables(ctx, r.Tables); err != nil {
		return err
	}
	if rows.Terms, err = tx.Terms(ctx, r.Taxonomies, r.TaxonomyLike()); err != nil {
		return err
	}
	var memberTerms []int64
	for _, t := range rows.Terms {
		if slices.Contains(r.MemberTaxonomies, t.Taxonomy) {
			memberTerms = append(memberTerms, t.TTID)
		}
	}
	if rows.Members, err = tx.TermMembers(ctx, memberTerms); err != nil {
		return err
	}
	if rows.Tables[catalog.TableWPMLLanguages] {
		if rows.WPMLLanguages, err = tx.WPMLLanguages(ctx); err != nil {
			return err
		}
	}
	if rows.Tables[catalog.TableWPMLTranslations] {
		if rows.WPMLTerms, err = tx.WPMLTerms(ctx); err != nil {
			return err
		}
	}
	trpTables := rows.Tables[catalog.TableTRPSlugOriginals] && rows.Tables[catalog.TableTRPSlugTranslations]
	rows.TranslatedSlugs, err = tx.TranslatedSlugs(ctx, trpTables)
	return err
}

// newPublishedRows is an empty ProductRows for a whole load.
func newPublishedRows() *catalog.ProductRows {
	return &catalog.ProductRows{Children: map[int64][]int64{}, WPML: map[int64]catalog.WPMLElement{},
		Groups: map[int64]map[string]int64{}}
}

// loadPublished reads every published product and what its fields need,
// one statement per kind of row whatever the shop's size: reading them a
// chunk of IDs at a time would cost hundreds of statements, and index
// lookups into a postmeta table of millions of rows cost the server
// several times one pass over it (docs/performance.md#a-whole-load-start-up-and-the-safety-re-read).
// With br it reads a feed's baseline too.
func (tx *Tx) loadPublished(ctx context.Context, r catalog.Reads, tables map[string]bool, br *baselineRead) (*catalog.ProductRows, error) {
	rows := newPublishedRows()
	if err := tx.productPosts(ctx, rows, br); err != nil {
		return nil, err
	}
	var err error
	if rows.Terms, err = tx.PublishedRelationships(ctx); err != nil {
		return nil, err
	}
	br.finish(rows)
	known := knownPosts(rows)
	meta, err := tx.MetaByKey(ctx, r.MetaKeys, metaWanted(known))
	if err != nil {
		return nil, err
	}
	if err := tx.finishPublished(ctx, r, tables, rows, known, meta); err != nil {
		return nil, err
	}
	return rows, nil
}

// knownPosts is the set of the products and variations read.
func knownPosts(rows *catalog.ProductRows) map[int64]bool {
	known := make(map[int64]bool, len(rows.Posts)+len(rows.Related))
	for _, p := range rows.Posts {
		known[p.ID] = true
	}
	for _, p := range rows.Related {
		known[p.ID] = true
	}
	return known
}

// metaWanted accepts the meta of every product and variation read.
// Images' files are kept for any post (the products' meta names the
// thumbnails only in this same pass) and dropped by finishPublished when
// no product shows them.
func metaWanted(known map[int64]bool) func(id int64, key string) bool {
	return func(id int64, key string) bool {
		return known[id] || key == catalog.MetaAttachedFile
	}
}

// finishPublished keeps the meta of the products, their variations and
// the images they show, and reads what depends on the products and their
// meta: grouped products' children, translation groups.
func (tx *Tx) finishPublished(ctx context.Context, r catalog.Reads, tables map[string]bool,
	rows *catalog.ProductRows, known map[int64]bool, meta catalog.Meta) error {
	images := map[int64]bool{}
	for _, p := range rows.Posts {
		if th, err := strconv.ParseInt(meta.First(p.ID, catalog.MetaThumbnail), 10, 64); err == nil && th > 0 {
			images[th] = true
		}
	}
	for id := range meta {
		if !known[id] && !images[id] {
			delete(meta, id)
		}
	}
	rows.Meta = meta
	ids := make([]int64, len(rows.Posts))
	for i, p := range rows.Posts {
		ids[i] = p.ID
	}
	if err := tx.children(ctx, r, ids, known, rows); err != nil {
		return err
	}
	var err error
	if tables[catalog.TableWPMLTranslations] {
		if rows.WPML, err = tx.WPMLAllPosts(ctx); err != nil {
			return err
		}
	}
	if rows.Groups, err = tx.PolylangAllGroups(ctx); err != nil {
		return err
	}
	dropBare(rows.Meta, r.MetaLists)
	return nil
}

// tables reports which of the optional tables exist and can be read, and
// why those the user may not read cannot (MySQL answers "denied" whether
// or not such a table exists).
func (tx *Tx) tables(ctx context.Context, names []string) (map[string]bool, map[string]string, error) {
	out := make(map[string]bool, len(names))
	denied := map[string]string{}
	for _, name := range names {
		ok, err := tx.HasTable(ctx, name)
		if errors.Is(err, ErrDenied) {
			denied[name] = err.Error()
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		out[name] = ok
	}
	return out, denied, nil
}
