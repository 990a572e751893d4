package wpdb_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"catalogd/api"
	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
)

// The operations of issue 12 ("The operations that must show"), each
// performed on the database as WordPress and WooCommerce write it
// (wpfixture.Ops), and what an anonymous visitor sees afterwards, through
// the catalog's public API, once the change feed reported it and the
// catalog applied it.

// opsShop is the shop the operations run on: one product (or category)
// per operation, so that each check is about its own operation, and two
// scheduled products, one going live by cron and one far in the future
// that stays scheduled (it freezes MAX(post_modified_gmt)).
type opsShop struct {
	shop                    *wpfixture.Shop
	bundle, standaloneVar   int64
	kitA                    int64
	priceEdit, stocky       int64
	trashy, drafty, privy   int64
	doomed, soon, hideme    int64
	pictured, summary       int64
	picture                 int64 // pictured's image, once replaced
	mover, framed, delta    int64
	radar, soldOut, farAway int64
}

func newOpsShop(objectCache bool) *opsShop {
	s := wpfixture.New("wp_", "https://shop.example")
	now := s.Now
	o := &opsShop{shop: s}
	s.Category("Alpha", "alpha", "", 1)
	s.Category("Beta", "beta", "", 2)
	s.Category("Gamma", "gamma", "", 3)
	s.Category("Delta", "delta", "alpha", 0)
	add := func(p wpfixture.Product) int64 {
		if len(p.Categories) == 0 {
			p.Categories = []string{"alpha"}
		}
		if p.RegularPrice == "" && p.Type == "" {
			p.RegularPrice = "10"
		}
		return s.Add(p)
	}
	o.radar = add(wpfixture.Product{Title: "Radar", Frameworks: []string{"esx"}})
	o.priceEdit = add(wpfixture.Product{Title: "Price Edit"})
	o.bundle = add(wpfixture.Product{Title: "Bundle", Type: "variable", Variations: []wpfixture.Variation{
		{Framework: "esx", RegularPrice: "10"}, {Framework: "standalone", RegularPrice: "8"}}})
	o.standaloneVar = o.bundle + 2
	o.kitA = add(wpfixture.Product{Title: "Kit A", RegularPrice: "4"})
	kitB := add(wpfixture.Product{Title: "Kit B", RegularPrice: "6"})
	add(wpfixture.Product{Title: "Kit", Type: "grouped", Children: []int64{o.kitA, kitB}})
	stored := func(v string) *string { return &v }
	add(wpfixture.Product{Title: "Sale Start", SalePrice: "7", SaleFrom: now.Add(-time.Hour), StoredPrice: stored("10")})
	add(wpfixture.Product{Title: "Sale End", SalePrice: "6", SaleFrom: now.Add(-48 * time.Hour), SaleTo: now.Add(-time.Hour),
		StoredPrice: stored("6")})
	one := 1
	o.stocky = add(wpfixture.Product{Title: "Stocky", Stock: &one})
	o.trashy = add(wpfixture.Product{Title: "Trashy"})
	o.drafty = add(wpfixture.Product{Title: "Drafty"})
	o.privy = add(wpfixture.Product{Title: "Privy"})
	o.doomed = add(wpfixture.Product{Title: "Doomed"})
	o.soon = add(wpfixture.Product{Title: "Soon", Status: "future", Date: now.Add(time.Hour)})
	o.farAway = add(wpfixture.Product{Title: "Far Away", Status: "future", Date: now.Add(60 * 24 * time.Hour)})
	o.hideme = add(wpfixture.Product{Title: "Hide Me"})
	o.pictured = add(wpfixture.Product{Title: "Pictured", Image: "2026/11/old.jpg"})
	o.summary = add(wpfixture.Product{Title: "Summary", Excerpt: "<p>Old summary</p>"})
	o.mover = add(wpfixture.Product{Title: "Mover"})
	o.framed = add(wpfixture.Product{Title: "Framed", Frameworks: []string{"esx"}})
	o.delta = add(wpfixture.Product{Title: "Delta Thing", Categories: []string{"delta"}})
	add(wpfixture.Product{Title: "Beta Thing", Categories: []string{"beta"}})
	add(wpfixture.Product{Title: "Gamma Thing", Categories: []string{"gamma"}})
	o.soldOut = add(wpfixture.Product{Title: "Sold Out", StockStatus: "outofstock"})
	if !objectCache {
		wpfixture.SeedTransients(s, now, o.bundle, o.radar, o.stocky)
	}
	return o
}

// feedOp is one operation and what a visitor sees after it.
type feedOp struct {
	name string
	// cheap: a poll's cheap round sees it (an option, a term's name,
	// parent or order, a scheduled product leaving the future set, a new
	// post); else only the full scan does (post_modified_gmt or the status
	// of an existing product moved).
	cheap bool
	// logOnly: only the binary log shows it (no posts row moves); polling
	// shows it at the whole read every ten minutes, which the test does
	// not wait for.
	logOnly bool
	// unmodified: the operation moves no post_modified_gmt (a row
	// deleted), so the delta through an index on it does not see it; the
	// full scan behind the delta does.
	unmodified bool
	do         func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error
	// check returns nil when the visitor sees the operation's effect, else
	// what they see instead.
	check func(ctx context.Context, cat *catalog.Catalog, s *opsShop) error
}

// feedOps are the operations, in the order they run on one shop.
var feedOps = []feedOp{
	{name: "admin price edit", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.EditPrice(ctx, s.priceEdit, "12", "")
	}, check: price("price-edit", "12.00")},
	{name: "variation price", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.EditVariationPrice(ctx, s.standaloneVar, "5", "")
	}, check: price("bundle", "5.00")},
	// A grouped child's save leaves the grouped product's own _price rows
	// as they were (WooCommerce syncs a post_parent only), so the check is
	// on what the children give: the grouped regular price. (The catalog's
	// grouped price still comes from those stale rows: 4.00 with a regular
	// price of 3.00 after this edit, where the storefront's
	// WC_Product_Grouped::get_price_html shows the children's 3.00–6.00.)
	{name: "grouped child price", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.EditPrice(ctx, s.kitA, "3", "")
	}, check: regularPrice("kit", "3.00")},
	{name: "scheduled sale starts", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return started(o.StartSales(ctx))
	}, check: price("sale-start", "7.00")},
	{name: "scheduled sale ends", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return started(o.EndSales(ctx))
	}, check: price("sale-end", "10.00")},
	{name: "order reduces stock to 0", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.OrderReducesStock(ctx, s.stocky, 1)
	}, check: inStock("stocky", false)},
	{name: "refund restores stock", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.RefundRestoresStock(ctx, s.stocky, 1)
	}, check: inStock("stocky", true)},
	{name: "trash", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.Trash(ctx, s.trashy)
	}, check: gone("trashy")},
	{name: "restore from trash", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.Untrash(ctx, s.trashy)
	}, check: listed("trashy", "")},
	{name: "draft", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SetStatus(ctx, s.drafty, "draft")
	}, check: gone("drafty")},
	{name: "private", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SetStatus(ctx, s.privy, "private")
	}, check: gone("privy")},
	{name: "permanent delete", unmodified: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.DeletePermanently(ctx, s.doomed)
	}, check: gone("doomed")},
	{name: "scheduled product goes live", cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.PublishFuture(ctx, s.soon)
	}, check: listed("soon", "")},
	{name: "catalog visibility hidden", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SetCatalogVisibility(ctx, s.hideme, "hidden")
	}, check: unlisted("hide-me")},
	{name: "featured image replaced", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		att, err := o.ReplaceImage(ctx, s.pictured, "2026/11/new.jpg")
		s.picture = att
		return err
	}, check: image("pictured", "/2026/11/new.jpg")},
	{name: "image edited in the media library", logOnly: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.EditImageFile(ctx, s.picture, "2026/11/new-e1764072000.jpg")
	}, check: image("pictured", "/2026/11/new-e1764072000.jpg")},
	{name: "short description edited", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.EditExcerpt(ctx, s.summary, "<p>Brand new summary</p>")
	}, check: summary("summary", "Brand new summary")},
	{name: "moved to another category", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SetCategories(ctx, s.mover, "gamma")
	}, check: listed("mover", "gamma")},
	{name: "category renamed", cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.RenameCategory(ctx, "beta", "Beta & Co")
	}, check: category("beta", func(c api.Category) error {
		return want("name", c.Name, "Beta & Co")
	})},
	{name: "category re-parented", cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.ReparentCategory(ctx, "delta", "gamma")
	}, check: category("delta", func(c api.Category) error {
		if c.Parent == nil {
			return want("parent", "<none>", "gamma")
		}
		return want("parent", *c.Parent, "gamma")
	})},
	{name: "categories re-ordered", cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.MoveCategoryBefore(ctx, "gamma", "alpha")
	}, check: categoryBefore("gamma", "alpha")},
	{name: "framework term added", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SetFrameworks(ctx, s.framed, false, "esx", "qbox")
	}, check: listedIn("framed", api.ListQuery{Framework: "qbox"})},
	{name: "new product published", cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		_, err := o.PublishNew(ctx, wpfixture.NewProduct{Title: "Fresh Product", RegularPrice: "9",
			Excerpt: "<p>Fresh</p>", Categories: []string{"beta"}})
		return err
	}, check: listed("fresh-product", "beta")},
	{name: "currency", cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SaveSettings(ctx, [2]string{"woocommerce_currency", "EUR"})
	}, check: func(ctx context.Context, cat *catalog.Catalog, s *opsShop) error {
		ix, err := cat.Index(ctx)
		if err != nil {
			return err
		}
		return want("currency", ix.Currency, "EUR")
	}},
	{name: "decimals", cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SaveSettings(ctx, [2]string{"woocommerce_currency", "EUR"}, [2]string{"woocommerce_price_num_decimals", "3"})
	}, check: price("radar", "10.000")},
	{name: "hide out of stock", cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SaveSettings(ctx, [2]string{"woocommerce_hide_out_of_stock_items", "yes"})
	}, check: unlisted("sold-out")},
	{name: "permalinks", cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SavePermalinks(ctx, "shop-item")
	}, check: product("radar", func(p *catalog.Product) error {
		if !strings.Contains(p.URL, "/shop-item/radar/") {
			return fmt.Errorf("url %s, want …/shop-item/radar/", p.URL)
		}
		return nil
	})},
}

// runOps runs every operation on a shop loaded with and without transient
// rows in wp_options (ObjectCache false and true), each with the feed
// newFeed returns: Start before the catalog's first read, then Follow. Each
// operation's check must fail before it and hold within window(op) after
// it; window is called once per operation, right after it is done (a test
// may move its feed's clock there).
func runOps(t *testing.T, newFeed func(t *testing.T, db *wpdb.DB, dsn string) catalog.Feed, window func(op feedOp) time.Duration) {
	t.Helper()
	runOpsOn(t, testdb.Load, newFeed, window)
}

// runOpsOn is runOps on the database load creates (testdb.Load: the
// shared test server; the binary log feed needs its private server).
func runOpsOn(t *testing.T, load func(testing.TB, *wpfixture.Shop) (string, *sql.DB),
	newFeed func(t *testing.T, db *wpdb.DB, dsn string) catalog.Feed, window func(op feedOp) time.Duration) {
	t.Helper()
	for _, objectCache := range []bool{false, true} {
		t.Run(fmt.Sprintf("object_cache=%v", objectCache), func(t *testing.T) {
			s := newOpsShop(objectCache)
			dsn, raw := load(t, s.shop)
			db, err := wpdb.Open(dsn, wpdb.Options{Prefix: s.shop.Prefix})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			ctx, cancel := context.WithCancel(context.Background())
			feed := newFeed(t, db, dsn)
			if err := feed.Start(ctx); err != nil {
				cancel()
				t.Fatalf("%s: Start: %v", feed.Name(), err)
			}
			cat := catalog.New(db, catalog.Config{})
			followed := make(chan error, 1)
			go func() { followed <- cat.Follow(ctx, feed, nil) }()
			t.Cleanup(func() {
				cancel()
				if err := <-followed; err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("Follow: %v", err)
				}
			})
			waitFor(t, "the first snapshot", 10*time.Second, func() error {
				_, err := cat.Index(ctx)
				return err
			})
			ops := &wpfixture.Ops{DB: raw, Prefix: s.shop.Prefix, ObjectCache: objectCache}
			transientsBefore := transientRows(t, raw)
			sighted, _ := feed.(catalog.Sighted)
			for _, op := range feedOps {
				if t.Failed() {
					return // the shop's state is not what the next ops expect
				}
				if op.logOnly && (sighted == nil || !sighted.SeesEverything()) {
					continue
				}
				t.Run(strings.ReplaceAll(op.name, " ", "_"), func(t *testing.T) {
					if err := op.check(ctx, cat, s); err == nil {
						t.Fatalf("the check holds before the operation: it proves nothing")
					}
					if err := op.do(ctx, ops, s); err != nil {
						t.Fatalf("operation: %v", err)
					}
					waitFor(t, "the visitor to see it", window(op), func() error { return op.check(ctx, cat, s) })
				})
			}
			// The knob did what it says: transients in wp_options moved
			// without an object cache, and none appeared with one.
			after := transientRows(t, raw)
			if objectCache && len(after) > 0 {
				t.Errorf("object cache: transient rows in wp_options: %v", after)
			}
			if !objectCache && slices.Equal(after, transientsBefore) {
				t.Errorf("no object cache: the transient rows did not change (%v)", after)
			}
		})
	}
}

// transientRows lists the transient options with their values.
func transientRows(t *testing.T, raw *sql.DB) []string {
	t.Helper()
	rows, err := raw.Query(`SELECT CONCAT(option_name, '=', option_value) FROM wp_options WHERE option_name LIKE '\\_transient\\_%' ORDER BY option_name`)
	if err != nil {
		t.Fatalf("transients: %v", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatalf("transients: %v", err)
		}
		out = append(out, s)
	}
	return out
}

// waitFor polls cond until it returns nil, failing the test with cond's
// last answer when within has passed.
func waitFor(t *testing.T, what string, within time.Duration, cond func() error) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(within)
	for {
		err := cond()
		if err == nil {
			t.Logf("%s: after %v", what, time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s: %v", within, what, err)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, not waiting for behaviour
	}
}

// tickFeed is a test-only feed: "everything changed" every 50 ms. It
// proves the harness and the checks until the real feeds are plugged in.
type tickFeed struct{}

func (tickFeed) Name() string                    { return "tick" }
func (tickFeed) Start(ctx context.Context) error { return nil }
func (tickFeed) Run(ctx context.Context, report func(catalog.Change)) error {
	tk := time.NewTicker(50 * time.Millisecond)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tk.C:
			report(catalog.Change{All: true, Kind: catalog.KindOption})
		}
	}
}

func TestFeedOpsTick(t *testing.T) {
	runOps(t, func(*testing.T, *wpdb.DB, string) catalog.Feed { return tickFeed{} },
		func(feedOp) time.Duration { return 2 * time.Second })
}

// Poll mode: a cheap round every pollInterval; the full scan only when the
// poller's own clock (PollOptions.Now, which schedules the scans) says its
// period has passed. The test holds that clock still, so a cheap operation
// must show through the cheap rounds alone, and moves it one scan period
// on after each operation the op table says only the scan sees: both
// halves of the split are checked, deterministically, without waiting a
// real scan period.
const (
	pollInterval = 100 * time.Millisecond
	pollScan     = time.Hour       // the scan period (MaxScan, with a budget too small to bring it sooner)
	applySlack   = 5 * time.Second // the deadline for Follow reading and swapping the snapshot, on a busy machine
)

func TestFeedOpsPoll(t *testing.T) {
	var offset atomic.Int64 // how far the poller's clock is ahead of the wall clock
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	runOps(t, func(t *testing.T, db *wpdb.DB, dsn string) catalog.Feed {
		return wpdb.NewPoller(db, catalog.ShopReads, wpdb.PollOptions{Interval: pollInterval, Budget: 1e-9,
			MaxScan: pollScan, Now: clock})
	}, func(op feedOp) time.Duration {
		// Called once the operation is done: the scan period passes for
		// what only the scan sees.
		if !op.cheap {
			offset.Add(int64(pollScan))
		}
		return pollInterval + applySlack
	})
}

// Poll mode on a shop whose owner gave wp_posts an index on
// post_modified_gmt: the delta finds the edits through it. The poller's
// clock is held still (the full scan behind the delta never comes) but
// for an operation that moves no post_modified_gmt (a permanent delete),
// after which it moves on by the full scan's period (MaxScan, the budget
// being ample): a whole-read-only poller shows none of them within the
// window.
func TestFeedOpsPollIndexed(t *testing.T) {
	var offset atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	load := func(t testing.TB, s *wpfixture.Shop) (string, *sql.DB) {
		s.IndexPostModified()
		return testdb.Load(t, s)
	}
	var deltas, fulls atomic.Int64
	count := func(s wpdb.PollStats) {
		switch {
		case s.Err != nil: // a read that failed (a busy machine's timeout) is tried again
		case s.Delta:
			deltas.Add(1)
		case s.Scan:
			fulls.Add(1)
		}
	}
	runOpsOn(t, load, func(t *testing.T, db *wpdb.DB, dsn string) catalog.Feed {
		return wpdb.NewPoller(db, catalog.ShopReads, wpdb.PollOptions{Interval: pollInterval, MaxScan: pollScan,
			Now: clock, OnPoll: count})
	}, func(op feedOp) time.Duration {
		if op.unmodified {
			offset.Add(int64(pollScan))
		}
		return pollInterval + applySlack
	})
	// One full scan a shop (with and without an object cache): the
	// permanent delete's. Everything else was the deltas'.
	if deltas.Load() == 0 || fulls.Load() > 2 {
		t.Errorf("%d deltas and %d full scans, want deltas and 2 full scans at most", deltas.Load(), fulls.Load())
	}
}

// Binlog mode, on the private server with a binary log: every operation
// shows, polled for with a deadline of 5 s, ample on a busy machine (make
// bench measures the lag itself: about a second at most). The feed has each change read again a moment later
// (BinlogOptions.Confirm), as MariaDB streams a transaction before its
// commit is visible to other sessions.
func TestFeedOpsBinlog(t *testing.T) {
	srv := testdb.BinlogServer(t)
	runOpsOn(t, func(t testing.TB, s *wpfixture.Shop) (string, *sql.DB) { return testdb.LoadOn(t, srv, s) },
		func(t *testing.T, db *wpdb.DB, dsn string) catalog.Feed {
			b, err := wpdb.NewBinlog(db, dsn, catalog.ShopReads, wpdb.BinlogOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, func(feedOp) time.Duration { return 5 * time.Second })
}

// --- checks ---

func product(slug string, f func(*catalog.Product) error) func(context.Context, *catalog.Catalog, *opsShop) error {
	return func(ctx context.Context, cat *catalog.Catalog, _ *opsShop) error {
		p, err := cat.Product(ctx, slug)
		if err != nil {
			return err
		}
		return f(p)
	}
}

func price(slug, wantPrice string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return product(slug, func(p *catalog.Product) error { return want("price", str(p.Price), wantPrice) })
}

func regularPrice(slug, wantPrice string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return product(slug, func(p *catalog.Product) error { return want("regular_price", str(p.RegularPrice), wantPrice) })
}

func inStock(slug string, in bool) func(context.Context, *catalog.Catalog, *opsShop) error {
	return product(slug, func(p *catalog.Product) error { return want("in_stock", fmt.Sprint(p.InStock), fmt.Sprint(in)) })
}

func image(slug, suffix string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return product(slug, func(p *catalog.Product) error {
		if p.Image == nil || !strings.HasSuffix(*p.Image, suffix) {
			return fmt.Errorf("image %s, want …%s", str(p.Image), suffix)
		}
		return nil
	})
}

func summary(slug, text string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return product(slug, func(p *catalog.Product) error {
		if !strings.Contains(p.Summary, text) {
			return fmt.Errorf("summary %q, want %q in it", p.Summary, text)
		}
		return nil
	})
}

// gone: the product is served neither alone nor in the list.
func gone(slug string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return func(ctx context.Context, cat *catalog.Catalog, _ *opsShop) error {
		_, err := cat.Product(ctx, slug)
		var ce *catalog.Error
		if !errors.As(err, &ce) || ce.Kind != catalog.ENOTFOUND {
			return fmt.Errorf("Product(%q): %v, want not found", slug, err)
		}
		return unlisted(slug)(ctx, cat, nil)
	}
}

// listed: the product is served, and in the list (of the category, if any).
func listed(slug, category string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return func(ctx context.Context, cat *catalog.Catalog, s *opsShop) error {
		if _, err := cat.Product(ctx, slug); err != nil {
			return err
		}
		return listedIn(slug, api.ListQuery{Category: category})(ctx, cat, s)
	}
}

func listedIn(slug string, q api.ListQuery) func(context.Context, *catalog.Catalog, *opsShop) error {
	return func(ctx context.Context, cat *catalog.Catalog, _ *opsShop) error {
		slugs, err := list(ctx, cat, q)
		if err != nil {
			return err
		}
		if !slices.Contains(slugs, slug) {
			return fmt.Errorf("%q not in the list %+v: %v", slug, q, slugs)
		}
		return nil
	}
}

func unlisted(slug string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return func(ctx context.Context, cat *catalog.Catalog, _ *opsShop) error {
		slugs, err := list(ctx, cat, api.ListQuery{})
		if err != nil {
			return err
		}
		if slices.Contains(slugs, slug) {
			return fmt.Errorf("%q still listed", slug)
		}
		return nil
	}
}

func list(ctx context.Context, cat *catalog.Catalog, q api.ListQuery) ([]string, error) {
	q.PerPage = api.MaxPerPage
	var out []string
	for q.Page = 1; ; q.Page++ {
		l, err := cat.Products(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, p := range l.Products {
			out = append(out, p.Slug)
		}
		if q.Page >= l.TotalPages {
			return out, nil
		}
	}
}

func category(slug string, f func(api.Category) error) func(context.Context, *catalog.Catalog, *opsShop) error {
	return func(ctx context.Context, cat *catalog.Catalog, _ *opsShop) error {
		l, err := cat.Categories(ctx)
		if err != nil {
			return err
		}
		for _, c := range l.Categories {
			if c.Slug == slug {
				return f(c)
			}
		}
		return fmt.Errorf("no category %q", slug)
	}
}

func categoryBefore(first, second string) func(context.Context, *catalog.Catalog, *opsShop) error {
	return func(ctx context.Context, cat *catalog.Catalog, _ *opsShop) error {
		l, err := cat.Categories(ctx)
		if err != nil {
			return err
		}
		var order []string
		for _, c := range l.Categories {
			order = append(order, c.Slug)
		}
		i, j := slices.Index(order, first), slices.Index(order, second)
		if i < 0 || j < 0 || i > j {
			return fmt.Errorf("categories in the order %v, want %s before %s", order, first, second)
		}
		return nil
	}
}

func started(ids []int64, err error) error {
	if err == nil && len(ids) == 0 {
		return errors.New("no product was due")
	}
	return err
}

func want(what, got, wanted string) error {
	if got != wanted {
		return fmt.Errorf("%s %q, want %q", what, got, wanted)
	}
	return nil
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}
