package poll

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"catalogd/internal/wpdbtest"
	"catalogd/wpdb"
)

// The delta reads, through the owner's index on post_modified_gmt, the
// product posts saved within its window, and reports those that differ
// from what the poller knows, in four statements whatever the shop's size
// (the transaction, the gate, the clock, the saved posts). What moves no
// modified time within the window (a permanent delete, a status written
// alone, a save from a clock further behind than the window) it leaves to
// the full scan behind it, which comes every MaxScan.
func TestPollDeltaSees(t *testing.T) {
	t.Parallel()
	ps := newPollShop(false)
	ps.shop.IndexPostModified()
	clock := &testClock{t: wpdbtest.Now}
	var deltas, fulls int
	p, raw := startPoller(t, ps.shop, clock, func(s Stats) {
		if s.Delta {
			deltas++
		} else if s.Scan {
			fulls++
		}
	})
	if p.index != "catalogd_post_modified_gmt" {
		t.Fatalf("the poller found index %q, want catalogd_post_modified_gmt", p.index)
	}
	id := fmt.Sprint
	// saved is the posts row's write of a WooCommerce save, on a web
	// server whose clock stands skew off the database's.
	saved := func(post int64, skew string) string {
		return `UPDATE wp_posts SET post_modified = UTC_TIMESTAMP() + INTERVAL ` + skew + `,
			post_modified_gmt = UTC_TIMESTAMP() + INTERVAL ` + skew + ` WHERE ID = ` + id(post)
	}
	tests := []struct {
		name  string
		edits []string
		full  bool // only the full scan sees it
		want  []int64
	}{
		{"nothing", nil, false, nil},
		{"a price edited in the admin", []string{
			`UPDATE wp_postmeta SET meta_value = '25' WHERE meta_key IN ('_regular_price', '_price') AND post_id = ` + id(ps.radar),
			saved(ps.radar, "0 SECOND")}, false, []int64{ps.radar}},
		{"a variation sold out by an order", []string{
			`UPDATE wp_postmeta SET meta_value = 'outofstock' WHERE meta_key = '_stock_status' AND post_id = ` + id(ps.var1),
			saved(ps.var1, "1 SECOND")}, false, []int64{ps.gun, ps.var1}},
		{"a save from a web server 9 minutes behind", []string{saved(ps.cuffs, "-9 MINUTE")}, false, []int64{ps.cuffs}},
		{"a product trashed", []string{`UPDATE wp_posts SET post_status = 'trash', post_name = 'radar__trashed' WHERE ID = ` + id(ps.radar),
			saved(ps.radar, "2 SECOND")}, false, []int64{ps.radar}},
		{"a save from a web server 30 minutes behind", []string{saved(ps.cuffs, "-30 MINUTE")}, true, []int64{ps.cuffs}},
		{"a status written alone", []string{`UPDATE wp_posts SET post_status = 'private' WHERE ID = ` + id(ps.cuffs)},
			true, []int64{ps.cuffs}},
		{"a variable product deleted permanently", []string{
			`DELETE FROM wp_posts WHERE ID IN (` + id(ps.gun) + `, ` + id(ps.var1) + `, ` + id(ps.var2) + `)`},
			true, []int64{ps.gun, ps.var1, ps.var2}},
		{"nothing again", nil, false, nil},
	}
	for _, tt := range tests {
		wpdbtest.Exec(t, raw, tt.name, tt.edits...)
		before, d := p.db.Queries(), deltas
		got, err := p.detect(context.Background())
		if err != nil {
			t.Fatalf("%s: delta: %v", tt.name, err)
		}
		if deltas != d+1 {
			t.Fatalf("%s: the detection was no delta", tt.name)
		}
		if n := p.db.Queries() - before; n != 4 {
			t.Errorf("%s: the delta sent %d statements, want 4", tt.name, n)
		}
		// What the delta reports: the changes it saw (the products
		// still pending are recheck's to report again, settle.go).
		for _, w := range tt.want {
			if !tt.full && !slices.Contains(got, w) {
				t.Errorf("%s: the delta reported %v, want %d among them", tt.name, got, w)
			}
		}
		if !tt.full {
			continue
		}
		for _, w := range tt.want {
			if slices.Contains(got, w) {
				t.Errorf("%s: the delta reported %d: it moved no post_modified_gmt within the window", tt.name, w)
			}
		}
		// The full scan behind the delta comes every MaxScan.
		clock.Add(p.o.MaxScan)
		f := fulls
		got, err = p.detect(context.Background())
		if err != nil {
			t.Fatalf("%s: full scan: %v", tt.name, err)
		}
		if fulls != f+1 {
			t.Fatalf("%s: no full scan after MaxScan", tt.name)
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: the full scan reported %v, want %d among them", tt.name, got, w)
			}
		}
	}
}

// An index dropped under the poller fails one delta: the full scan is the
// detection from then on, and it reports what the delta missed.
func TestPollDeltaIndexDropped(t *testing.T) {
	t.Parallel()
	ps := newPollShop(false)
	ps.shop.IndexPostModified()
	p, raw := startPoller(t, ps.shop, &testClock{t: wpdbtest.Now}, nil)
	wpdbtest.Exec(t, raw, "drop the index and save", `ALTER TABLE wp_posts DROP INDEX catalogd_post_modified_gmt`,
		`UPDATE wp_posts SET post_modified_gmt = UTC_TIMESTAMP() WHERE ID = `+fmt.Sprint(ps.radar))
	if _, err := p.detect(context.Background()); err == nil {
		t.Fatal("a delta through a dropped index did not fail")
	}
	got, err := p.detect(context.Background())
	if err != nil {
		t.Fatalf("the detection after: %v", err)
	}
	if !slices.Contains(got, ps.radar) {
		t.Errorf("the full scan reported %v, want %d among them", got, ps.radar)
	}
	if p.index != "" {
		t.Errorf("the poller still uses index %q", p.index)
	}
}

// A product saved lately (pending: settle.go) is reported again,
// without a detection, each time the time since it was seen has doubled:
// 2, 4, 8, 16, 32 and 64 s after, six times in its minute, however often
// the poller ticks (a quarter second here: a delta at every tick would
// have reported it 240 times) and however rarely a detection runs.
func TestPendingReportedAtDoublings(t *testing.T) {
	t.Parallel()
	p := &Poller{}
	saved := wpdbtest.Now.UTC().Format(time.DateTime)
	p.rows = map[int64]scanState{7: {modified: packTime(saved)}}
	p.addPending(p.rows, []int64{7}, false, saved, wpdbtest.Now)
	if _, ok := p.pending[7]; !ok {
		t.Fatal("the product saved now is not pending")
	}
	var got []time.Duration
	for d := 250 * time.Millisecond; d <= 2*maxOpenTxn; d += 250 * time.Millisecond {
		for _, c := range p.recheck(wpdbtest.Now.Add(d)) {
			if slices.Contains(c.Products, 7) {
				got = append(got, d)
			}
		}
	}
	want := []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second, 64 * time.Second}
	if !slices.Equal(got, want) {
		t.Errorf("reported again at %v after it was seen, want %v", got, want)
	}
	if _, ok := p.pending[7]; ok {
		t.Error("still pending after its last report")
	}
}

// An index the server was told to ignore (MariaDB's IGNORED) is no index
// to read through: FORCE INDEX would refuse it, so the poller does not
// take it, and scans.
func TestPollIgnoredIndex(t *testing.T) {
	t.Parallel()
	ps := newPollShop(false)
	ps.shop.IndexPostModified()
	db, raw := openShopWith(t, ps.shop, wpdb.Options{Prefix: "wp_"})
	if _, err := raw.Exec(`ALTER TABLE wp_posts ALTER INDEX catalogd_post_modified_gmt IGNORED`); err != nil {
		t.Fatalf("ALTER INDEX … IGNORED (MariaDB 10.6+): %v", err)
	}
	found := func() string {
		t.Helper()
		var index string
		view(t, db, func(ctx context.Context, tx *wpdb.Tx) error {
			var err error
			index, err = modifiedIndex(ctx, tx)
			return err
		})
		return index
	}
	if index := found(); index != "" {
		t.Errorf("the poller takes the ignored index %q", index)
	}
	if _, err := raw.Exec(`ALTER TABLE wp_posts ALTER INDEX catalogd_post_modified_gmt NOT IGNORED`); err != nil {
		t.Fatal(err)
	}
	if index := found(); index != "catalogd_post_modified_gmt" {
		t.Errorf("the poller finds index %q once it is no longer ignored, want catalogd_post_modified_gmt", index)
	}
}
