package poll

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/internal/wpdbtest"
	"catalogd/internal/wpfixture"
	"catalogd/wpdb"
)

// testClock is a clock the test moves by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// pollShop is a shop with a simple product, a variable one with two
// variations, and a product scheduled ten years ahead (its
// post_modified_gmt is its date, as wp_insert_post stores it).
type pollShop struct {
	shop                 *wpfixture.Shop
	radar, gun, var1     int64
	var2, future, cuffs  int64
	withTransientVersion bool
}

func newPollShop(withTransientVersion bool) *pollShop {
	s := wpdbtest.NewShop("wp_")
	p := &pollShop{shop: s, withTransientVersion: withTransientVersion}
	s.Category("Alpha", "alpha", "", 0)
	s.Category("Beta", "beta", "", 1)
	p.radar = s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "20", Categories: []string{"alpha"}})
	p.gun = s.Add(wpfixture.Product{Title: "Gun Shop", Type: "variable", Categories: []string{"beta"},
		Variations: []wpfixture.Variation{{Framework: "esx", RegularPrice: "10"}, {Framework: "qbox", RegularPrice: "15"}}})
	p.var1, p.var2 = p.gun+1, p.gun+2
	p.future = s.Add(wpfixture.Product{Title: "Coming Soon", Status: "future", RegularPrice: "3",
		Date: wpdbtest.Now.Add(10 * 365 * 24 * time.Hour)})
	p.cuffs = s.Add(wpfixture.Product{Title: "Cuffs", RegularPrice: "5", Categories: []string{"alpha"}})
	if withTransientVersion {
		// Without an object cache WooCommerce keeps its cache versions here;
		// with Redis or Memcached they never reach the table.
		s.SetOption("_transient_product-transient-version", "1763726400")
	}
	return p
}

// startPoller opens the shop and starts a poller on it with the clock,
// then reads the whole shop, as the follower does after Start: that load
// delivers the scan's baseline, adopted here as the first round would.
func startPoller(t *testing.T, shop *wpfixture.Shop, clock *testClock, onPoll func(Stats)) (*Poller, *sql.DB) {
	t.Helper()
	return startPollerWith(t, shop, clock, onPoll, wpdb.Options{Prefix: shop.Prefix}, Options{})
}

// startPollerWith is startPoller on a DB opened with o, its poller tuned
// by po (whose clock and OnPoll it sets).
func startPollerWith(t *testing.T, shop *wpfixture.Shop, clock *testClock, onPoll func(Stats), o wpdb.Options, po Options) (*Poller, *sql.DB) {
	t.Helper()
	db, raw := openShopWith(t, shop, o)
	po.Now, po.OnPoll = clock.Now, onPoll
	p := New(db, catalog.ShopReads, po)
	if err := p.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	if _, err := db.LoadShop(context.Background(), catalog.ShopReads); err != nil {
		t.Fatalf("LoadShop: %v", err)
	}
	if !p.scanBaselined(context.Background()) {
		t.Fatal("the load delivered no scan baseline")
	}
	return p, raw
}

// describe renders changes for comparison: "option*" for a change of
// everything of kind option, "product[1 2]" for products.
func describe(changes []catalog.Change) []string {
	var out []string
	for _, c := range changes {
		switch {
		case c.All:
			out = append(out, c.Kind+"*")
		default:
			ids := slices.Clone(c.Products)
			slices.Sort(ids)
			out = append(out, fmt.Sprintf("%s%v", c.Kind, slices.Compact(ids)))
		}
	}
	slices.Sort(out)
	return out
}

func products(ids ...int64) string {
	slices.Sort(ids)
	return fmt.Sprintf("product%v", ids)
}

const bumpTransientVersion = `INSERT INTO wp_options (option_name, option_value, autoload)
	VALUES ('_transient_product-transient-version', '1763726401', 'yes')
	ON DUPLICATE KEY UPDATE option_value = option_value + 1`

// Each change the cheap round watches shows at the next round, and only
// those: the round reads options, terms, the attribute table, the highest
// post ID, the scheduled products and the new drafts, never the product
// rows as a whole. Every case runs with and without WooCommerce's
// transient version rows in wp_options (present without an object cache,
// absent under Redis or Memcached): nothing depends on them. The cases
// apply one after the other.
func TestPollRoundSees(t *testing.T) {
	t.Parallel()
	for _, withVersion := range []bool{true, false} {
		t.Run(fmt.Sprintf("transient version in wp_options: %v", withVersion), func(t *testing.T) {
			t.Parallel()
			ps := newPollShop(withVersion)
			clock := &testClock{t: wpdbtest.Now}
			p, raw := startPoller(t, ps.shop, clock, nil)
			var maxID int64
			wpdbtest.RawScalar(t, raw, &maxID, `SELECT MAX(ID) FROM wp_posts`)
			draft, newVar := maxID+3, maxID+4 // IDs the cases below create

			tests := []struct {
				name  string
				edits []string
				want  []string
			}{
				{"nothing", nil, nil},
				// Every product save and order bumps it; when it is in the
				// table it is no signal of its own (the scan sees the save).
				{"the product transient version bumped", []string{bumpTransientVersion}, nil},
				{"the currency changed", []string{`INSERT INTO wp_options (option_name, option_value, autoload)
					VALUES ('woocommerce_currency', 'EUR', 'yes') ON DUPLICATE KEY UPDATE option_value = 'EUR'`}, []string{"option*"}},
				{"a translation plugin's option added", []string{`INSERT INTO wp_options (option_name, option_value, autoload)
					VALUES ('polylang', 'a:0:{}', 'yes')`}, []string{"option*"}},
				{"the hide-out-of-stock option deleted", []string{`DELETE FROM wp_options WHERE option_name = 'woocommerce_hide_out_of_stock_items'`}, []string{"option*"}},
				{"a category renamed", []string{`UPDATE wp_terms SET name = 'Alpha Gear' WHERE slug = 'alpha'`}, []string{"term*"}},
				{"a category re-parented", []string{`UPDATE wp_term_taxonomy tt JOIN wp_terms t ON t.term_id = tt.term_id
					SET tt.parent = (SELECT term_id FROM wp_terms WHERE slug = 'alpha') WHERE t.slug = 'beta'`}, []string{"term*"}},
				{"a category re-ordered", []string{`UPDATE wp_termmeta tm JOIN wp_terms t ON t.term_id = tm.term_id
					SET tm.meta_value = '7' WHERE t.slug = 'beta' AND tm.meta_key = 'order'`}, []string{"term*"}},
				// wp_update_term_count at a publish or trash: a product's
				// change, which the posts show; not the whole shop's.
				{"a term count updated alone", []string{`UPDATE wp_term_taxonomy SET count = count + 1 WHERE taxonomy IN ('product_cat', 'product_visibility', 'product_type')`}, nil},
				{"an attribute's order changed", []string{`INSERT INTO wp_woocommerce_attribute_taxonomies
					(attribute_name, attribute_label, attribute_type, attribute_orderby, attribute_public) VALUES ('color', 'Color', 'select', 'menu_order', 0)`}, []string{"table*"}},
				// wp_publish_post from WordPress's cron: the status alone.
				{"the scheduled product goes live", []string{`UPDATE wp_posts SET post_status = 'publish' WHERE ID = ` + fmt.Sprint(ps.future)}, []string{products(ps.future)}},
				{"a page published", []string{wpdbtest.InsertPost("page", "publish", "about", 0)}, nil},
				{"a product published", []string{wpdbtest.InsertPost("product", "publish", "new-radar", 0)}, []string{products(maxID + 2)}},
				// The admin's "Add new" stores an auto-draft; publishing it
				// later updates that row (status and modified time).
				{"a product's auto-draft created", []string{wpdbtest.InsertPost("product", "auto-draft", "", 0)}, []string{products(draft)}},
				{"nothing again", nil, nil},
				{"a variation added", []string{wpdbtest.InsertPost("product_variation", "publish", "gun-shop-red", ps.gun)}, []string{products(newVar, ps.gun)}},
				{"the auto-draft published", []string{`UPDATE wp_posts SET post_status = 'publish', post_name = 'fresh',
					post_modified_gmt = UTC_TIMESTAMP() + INTERVAL 1 SECOND WHERE ID = ` + fmt.Sprint(draft)}, []string{products(draft)}},
				{"a product scheduled", []string{`UPDATE wp_posts SET post_status = 'future' WHERE ID = ` + fmt.Sprint(ps.cuffs)}, []string{products(ps.cuffs)}},
				{"the scheduled product deleted", []string{`DELETE FROM wp_posts WHERE ID = ` + fmt.Sprint(ps.cuffs)}, []string{products(ps.cuffs)}},
				{"a settings-looking transient set", []string{`INSERT INTO wp_options (option_name, option_value, autoload)
					VALUES ('_transient_wc_term_counts', 'a:0:{}', 'no')`}, nil},
				{"nothing at last", nil, nil},
			}
			for _, tt := range tests {
				wpdbtest.Exec(t, raw, tt.name, tt.edits...)
				changes, err := p.round(context.Background(), false)
				if err != nil {
					t.Fatalf("%s: round: %v", tt.name, err)
				}
				if got := describe(changes); !slices.Equal(got, tt.want) {
					t.Errorf("%s: changes %v, want %v", tt.name, got, tt.want)
				}
			}
		})
	}
}

// The full scan sees every change of a product or variation post that
// moves its post_modified_gmt or status, and its permanent deletion, also
// while a product scheduled ten years ahead (whose post_modified_gmt lies
// in the future) is present. A variation's change is its parent's too.
func TestPollScanSees(t *testing.T) {
	t.Parallel()
	ps := newPollShop(false)
	// A product far up the ID range: the scan reads the table in slices
	// of the primary key.
	const far = 3*scanSlice + 1
	wpdbtest.RawPost(ps.shop, far, "product", "publish", "far-away")
	p, raw := startPoller(t, ps.shop, &testClock{t: wpdbtest.Now}, nil)
	id := fmt.Sprint
	// saved is what WC_Product_Data_Store_CPT::update() writes to the post
	// at any save: its modified time, here a fixed instant long before the
	// scheduled product's.
	saved := func(post int64, at string) string {
		return `UPDATE wp_posts SET post_modified = '` + at + `', post_modified_gmt = '` + at + `' WHERE ID = ` + id(post)
	}
	tests := []struct {
		name  string
		edits []string
		want  []int64
	}{
		{"nothing", nil, nil},
		{"a price edited in the admin", []string{
			`UPDATE wp_postmeta SET meta_value = '25' WHERE meta_key IN ('_regular_price', '_price') AND post_id = ` + id(ps.radar),
			saved(ps.radar, "2026-11-22 10:00:00")}, []int64{ps.radar}},
		{"a second edit of it", []string{saved(ps.radar, "2026-11-22 10:05:00")}, []int64{ps.radar}},
		// wc_update_product_stock on a variation that manages its stock.
		{"a variation sold out by an order", []string{
			`UPDATE wp_postmeta SET meta_value = 'outofstock' WHERE meta_key = '_stock_status' AND post_id = ` + id(ps.var1),
			saved(ps.var1, "2026-11-22 10:06:00")}, []int64{ps.gun, ps.var1}},
		{"a product three slices up edited", []string{saved(far, "2026-11-22 10:06:30")}, []int64{far}},
		{"a product trashed", []string{`UPDATE wp_posts SET post_status = 'trash', post_name = 'radar__trashed' WHERE ID = ` + id(ps.radar),
			saved(ps.radar, "2026-11-22 10:07:00")}, []int64{ps.radar}},
		{"a product deleted permanently", []string{`DELETE FROM wp_postmeta WHERE post_id = ` + id(ps.radar),
			`DELETE FROM wp_posts WHERE ID = ` + id(ps.radar)}, []int64{ps.radar}},
		{"a variable product and its variations deleted", []string{
			`DELETE FROM wp_posts WHERE ID IN (` + id(ps.gun) + `, ` + id(ps.var1) + `, ` + id(ps.var2) + `)`},
			[]int64{ps.gun, ps.var1, ps.var2}},
		{"nothing again", nil, nil},
	}
	for _, tt := range tests {
		wpdbtest.Exec(t, raw, tt.name, tt.edits...)
		before := p.db.Queries()
		got, err := p.scan(context.Background())
		if err != nil {
			t.Fatalf("%s: scan: %v", tt.name, err)
		}
		wpdbtest.AssertIDs(t, tt.name, got, wpdbtest.SortedIDs(tt.want))
		// The transaction, the gate, the highest ID with the database's
		// clock, the indexes on post_modified_gmt, and the four slices
		// up to the far product.
		if got, want := p.db.Queries()-before, int64(4+4); got != want {
			t.Errorf("%s: the scan sent %d statements, want %d", tt.name, got, want)
		}
	}
}

// A save in the very second the last scan read its row keeps the
// modified time that scan saw (post_modified_gmt counts seconds): the
// next scan reads that product again anyway.
func TestPollScanSameSecondSave(t *testing.T) {
	t.Parallel()
	ps := newPollShop(false)
	p, raw := startPoller(t, ps.shop, &testClock{t: wpdbtest.Now}, nil)
	wpdbtest.Exec(t, raw, "save", `UPDATE wp_posts SET post_modified_gmt = UTC_TIMESTAMP() WHERE ID = `+fmt.Sprint(ps.radar))
	got, err := p.scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wpdbtest.AssertIDs(t, "first scan", got, []int64{ps.radar})
	// The second save, in the same second: only its meta moves.
	wpdbtest.Exec(t, raw, "save again", `UPDATE wp_postmeta SET meta_value = '30' WHERE meta_key = '_price' AND post_id = `+fmt.Sprint(ps.radar))
	got, err = p.scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wpdbtest.AssertIDs(t, "second scan", got, []int64{ps.radar})
}

// The scan is gated by wp_posts' UPDATE_TIME: a quiet shop is not
// scanned however long it stays quiet (up to MaxScan); an edit opens the
// gate and is scanned at the next round, its cost paid from the budget
// banked meanwhile; with the bucket empty it waits until the budget has
// paid for it. The clock is the test's; the database's own clock only
// decides when the load's last write is old enough to close the gate.
func TestPollScanGate(t *testing.T) {
	t.Parallel()
	ps := newPollShop(false)
	clock := &testClock{t: wpdbtest.Now}
	var stats []Stats
	p, raw := startPoller(t, ps.shop, clock, func(s Stats) { stats = append(stats, s) })
	if !p.gateWorks {
		t.Fatal("the server shows no UPDATE_TIME for wp_posts: no gate")
	}
	scanned := func() bool {
		for _, s := range stats {
			if s.Scan {
				return true
			}
		}
		return false
	}
	round := func() []catalog.Change {
		t.Helper()
		stats = nil
		clock.Add(p.o.Interval)
		return p.pollOnce(context.Background())
	}
	reported := func(changes []catalog.Change, id int64) bool {
		return slices.ContainsFunc(changes, func(c catalog.Change) bool { return slices.Contains(c.Products, id) })
	}
	// The shop was just loaded: the gate stays open until a scan reads
	// an UPDATE_TIME older than the database's second, and the poller
	// waits maxOpenTxn for a transaction begun in the load's second.
	deadline := time.Now().Add(15 * time.Second)
	for {
		clock.Add(maxOpenTxn)
		if round(); !scanned() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the gate is still open 15 s after the load")
		}
		time.Sleep(100 * time.Millisecond) // polling a condition, with a deadline
	}
	// Quiet for many scan periods: no scan.
	for range 20 {
		if got := round(); got != nil || scanned() {
			t.Fatalf("a quiet shop: changes %v, stats %+v; want a cheap round alone", describe(got), stats)
		}
	}

	edit := func(id int64, title string) {
		wpdbtest.Exec(t, raw, "edit", `UPDATE wp_posts SET post_title = '`+title+`', post_modified_gmt = UTC_TIMESTAMP() WHERE ID = `+fmt.Sprint(id))
	}
	edit(ps.radar, "Radar 2")
	if got, want := describe(round()), []string{products(ps.radar)}; !slices.Equal(got, want) || !scanned() {
		t.Fatalf("the round after an edit: changes %v, stats %+v; want %v from a scan", got, stats, want)
	}

	// Between rounds, the gate read alone starts the scan; the metrics
	// tell it from a cheap round.
	edit(ps.radar, "Radar 2b")
	stats = nil
	if got, want := describe(p.gateOnce(context.Background())), []string{products(ps.radar)}; !slices.Equal(got, want) || !scanned() {
		t.Fatalf("the gate read after an edit: changes %v, stats %+v; want %v from a scan", got, stats, want)
	}
	if len(stats) != 2 || !stats[0].Gate || stats[0].Scan || stats[1].Gate || !stats[1].Scan {
		t.Errorf("the gate read after an edit: stats %+v, want a gate read, then a scan", stats)
	}

	// The bucket spent: the next edit (of another product) waits until
	// the budget pays for its scan; the rounds meanwhile report only the
	// last edit again (settle.go).
	round()
	p.tokens = 0
	p.scanCost = 50 * time.Millisecond // what a larger shop's scan costs
	edit(ps.cuffs, "Cuffs 3")
	if got := round(); reported(got, ps.cuffs) || scanned() {
		t.Fatalf("with the bucket empty: changes %v, stats %+v; want no scan yet", describe(got), stats)
	}
	clock.Add(time.Duration(float64(p.scanCost) / (p.o.Budget / 2))) // at the slowest the bucket fills
	if got := round(); !reported(got, ps.cuffs) || !scanned() {
		t.Fatalf("once the budget paid for the scan: changes %v, stats %+v; want %d from a scan", describe(got), stats, ps.cuffs)
	}

	// Every MaxScan the scan runs anyway.
	for round(); scanned(); round() {
		if time.Now().After(deadline.Add(10 * time.Second)) {
			t.Fatal("the gate did not close after the edits")
		}
		time.Sleep(100 * time.Millisecond) // polling a condition, with a deadline
	}
	clock.Add(p.o.MaxScan)
	if round(); !scanned() {
		t.Errorf("after MaxScan without a change: stats %+v, want a scan", stats)
	}
}

// The gate reads between two rounds count with the round, not against
// the scan's bucket: paid from it, on a server slow to answer them (6 ms
// each was seen: more than the whole budget at four a round) they left
// nothing for the scan, and no edit showed for minutes. The scan keeps at
// least half the budget, however slow the gate reads grow.
func TestPollGateReadsCannotStarveTheScan(t *testing.T) {
	t.Parallel()
	ps := newPollShop(false)
	clock := &testClock{t: wpdbtest.Now}
	p, _ := startPoller(t, ps.shop, clock, nil)
	p.tokens, p.scanCost = 1, time.Hour // no scan runs: the bucket is all this test watches
	for range 12 {
		p.gateOnce(context.Background())
	}
	if p.tokens != 1 {
		t.Errorf("twelve gate reads took %.3f ms from the scan's bucket, want none", (1-p.tokens)*1000)
	}
	spent := p.gateSpent
	if spent <= 0 {
		t.Fatal("the gate reads' time was not counted")
	}
	if _, err := p.round(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if p.gateSpent != 0 || p.roundCost < spent/4 {
		t.Errorf("the round after the gate reads: round cost %v, gate reads %v carried over; want their %v in the round's", p.roundCost, p.gateSpent, spent)
	}
	p.roundCost = time.Second // gate reads of a very slow server
	if got := p.scanBudget(); got < p.o.Budget/2 {
		t.Errorf("scan budget %v under slow gate reads, want at least half of %v", got, p.o.Budget)
	}
}

// Under load the cheap rounds' database time grows; the scan keeps at
// least half the budget, so it does not starve behind them.
func TestPollScanBudgetUnderLoad(t *testing.T) {
	p := New(nil, catalog.ShopReads, Options{})
	for _, cost := range []time.Duration{0, 5 * time.Millisecond, 37 * time.Millisecond, time.Second} {
		p.roundCost = cost
		if got := p.scanBudget(); got < p.o.Budget/2 {
			t.Errorf("round cost %v: scan budget %v, want at least half of %v", cost, got, p.o.Budget)
		}
	}
}

// A round that cannot read the shop changes nothing: what changed while it
// failed shows at the next round that can.
func TestPollRoundFailureChangesNothing(t *testing.T) {
	t.Parallel()
	ps := newPollShop(false)
	var stats []Stats
	p, raw := startPoller(t, ps.shop, &testClock{t: wpdbtest.Now}, func(s Stats) { stats = append(stats, s) })
	wpdbtest.Exec(t, raw, "hide the options", `RENAME TABLE wp_options TO wp_options_away`)
	wpdbtest.Exec(t, raw, "change the currency", `UPDATE wp_options_away SET option_value = 'JPY' WHERE option_name = 'woocommerce_currency'`)
	stats = nil
	if got := p.pollOnce(context.Background()); got != nil {
		t.Errorf("failing round: changes %v, want none", describe(got))
	}
	if len(stats) != 1 || stats[0].Err == nil {
		t.Errorf("failing round: stats %+v, want one with its error", stats)
	}
	wpdbtest.Exec(t, raw, "bring them back", `RENAME TABLE wp_options_away TO wp_options`)
	if got, want := describe(p.pollOnce(context.Background())), []string{"option*"}; !slices.Equal(got, want) {
		t.Errorf("next round: changes %v, want %v", got, want)
	}
}

// Run reports what changed after Start, and returns when its context ends.
func TestPollRun(t *testing.T) {
	t.Parallel()
	ps := newPollShop(false)
	db, raw := openShop(t, ps.shop)
	p := New(db, catalog.ShopReads, Options{Interval: 20 * time.Millisecond})
	if p.Name() != "poll" {
		t.Errorf("Name() = %q", p.Name())
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	wpdbtest.Exec(t, raw, "publish", `UPDATE wp_posts SET post_status = 'publish' WHERE ID = `+fmt.Sprint(ps.future))
	got := make(chan catalog.Change, 16)
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, catalog.ChangeFunc(func(c catalog.Change) { got <- c })) }()
	select {
	case c := <-got:
		if !slices.Contains(c.Products, ps.future) {
			t.Errorf("reported %+v, want product %d", c, ps.future)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no change reported within 10 s")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}

// The scan's period spends at most the budget of one core on it: its cost
// over the budget, never shorter than the interval nor longer than the cap.
func TestScanPeriod(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		cost     time.Duration
		budget   float64
		interval time.Duration
		maxScan  time.Duration
		want     time.Duration
	}{
		{"100k products", 150 * time.Millisecond, 0.01, 2 * time.Second, 5 * time.Minute, 15 * time.Second},
		{"capped", 5 * time.Second, 0.01, 2 * time.Second, 5 * time.Minute, 5 * time.Minute},
		{"never below the interval", 5 * time.Millisecond, 0.01, 2 * time.Second, 5 * time.Minute, 2 * time.Second},
		{"a larger budget", 150 * time.Millisecond, 0.05, 2 * time.Second, 5 * time.Minute, 3 * time.Second},
		{"no budget", 150 * time.Millisecond, 0, 2 * time.Second, 5 * time.Minute, 5 * time.Minute},
	}
	for _, tt := range tests {
		if got := scanPeriod(tt.cost, tt.budget, tt.interval, tt.maxScan); got != tt.want {
			t.Errorf("%s: scanPeriod(%v, %v, %v, %v) = %v, want %v", tt.name, tt.cost, tt.budget, tt.interval, tt.maxScan, got, tt.want)
		}
	}
}

// The web server that writes post_modified_gmt stands 5 s behind the
// database. A save, a scan, and a second save in that same PHP second
// (only its meta moves): the next scan reads the product again, pending
// since the first scan saw it saved (settle.go).
func TestPollScanSameSecondSaveSkewedClock(t *testing.T) {
	t.Parallel()
	ps := newPollShop(false)
	p, raw := startPoller(t, ps.shop, &testClock{t: wpdbtest.Now}, nil)
	wpdbtest.Exec(t, raw, "save", `UPDATE wp_posts SET post_modified_gmt = UTC_TIMESTAMP() - INTERVAL 5 SECOND WHERE ID = `+fmt.Sprint(ps.radar))
	got, err := p.scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wpdbtest.AssertIDs(t, "first scan", got, []int64{ps.radar})
	wpdbtest.Exec(t, raw, "save again", `UPDATE wp_postmeta SET meta_value = '31' WHERE meta_key = '_price' AND post_id = `+fmt.Sprint(ps.radar))
	got, err = p.scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wpdbtest.AssertIDs(t, "second scan", got, []int64{ps.radar})
}

// Run's one ticker beats at Gate: each tick is one read, a cheap round
// at every Interval or a gate read alone between, never both (the round
// reads the gate too). The rounds keep Interval on average when Gate does
// not divide it, and after ticks were dropped they start again from the
// tick.
func TestPollSchedule(t *testing.T) {
	t.Parallel()
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tests := []struct {
		name           string
		interval, gate time.Duration
		ticks          []time.Duration // since Run started
		want           string          // R a round, g a gate read, per tick
	}{
		{"the default: Interval/4", ms(2000), ms(500),
			[]time.Duration{ms(500), ms(1000), ms(1500), ms(2000), ms(2500), ms(3000), ms(3500), ms(4000)}, "gggRgggR"},
		{"late ticks", ms(2000), ms(500),
			[]time.Duration{ms(510), ms(1003), ms(1520), ms(2001), ms(2490), ms(3010), ms(3502), ms(3999)}, "gggRgggR"},
		{"Gate = Interval: no gate reads", ms(2000), ms(2000),
			[]time.Duration{ms(2000), ms(4000), ms(6000)}, "RRR"},
		{"Gate does not divide Interval", ms(2000), ms(700),
			[]time.Duration{ms(700), ms(1400), ms(2100), ms(2800), ms(3500), ms(4200), ms(4900), ms(5600), ms(6300), ms(7000), ms(7700)},
			"ggRggRggRgR"},
		{"ticks dropped behind a slow round", ms(2000), ms(500),
			[]time.Duration{ms(2000), ms(9000), ms(9500), ms(10000), ms(10500), ms(11000)}, "RRgggR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := wpdbtest.Now
			s := schedule{interval: tt.interval, gate: tt.gate, next: start.Add(tt.interval)}
			var got []byte
			for _, d := range tt.ticks {
				if s.round(start.Add(d)) {
					got = append(got, 'R')
				} else {
					got = append(got, 'g')
				}
			}
			if string(got) != tt.want {
				t.Errorf("ticks %v: %s, want %s", tt.ticks, got, tt.want)
			}
		})
	}
}

// The poller's cheap round sees a category's language changed through
// Polylang's term form.
func TestPollCategoryLanguage(t *testing.T) {
	t.Parallel()
	p := wpdbtest.NewPolylang()
	poller, raw := startPoller(t, p.Shop, &testClock{t: wpdbtest.Now}, nil)
	wpdbtest.Exec(t, raw, "category to German", p.MoveCategoryToGerman())
	if got, want := describe(poller.pollOnce(context.Background())), []string{"term*"}; !slices.Equal(got, want) {
		t.Errorf("changes = %v, want %v", got, want)
	}
}
