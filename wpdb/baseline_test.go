package wpdb

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpdbtest"
)

// baselineShop is wpdbtest's Products (products in every status, a
// disabled variation) with the variations a whole load does not read
// (Stray), opened with o; binlog puts it on the server with a binary log
// (testdb.BinlogServer).
func baselineShop(t *testing.T, o Options, noOrphans, binlog bool) (*wpdbtest.Products, *DB, *sql.DB) {
	t.Helper()
	ps := wpdbtest.NewProducts()
	o.Prefix = "wp_"
	var db *DB
	var raw *sql.DB
	if binlog {
		var dsn string
		dsn, raw = testdb.LoadOn(t, testdb.BinlogServer(t), ps.Shop)
		db = openDSN(t, dsn, o)
	} else {
		db, raw = openShopWith(t, ps.Shop, o)
	}
	wpdbtest.Exec(t, raw, "variations the load does not read", ps.Stray(noOrphans)...)
	return ps, db, raw
}

// postState is what a baseline holds of a post.
type postState struct {
	parent                int64
	typ, status, modified string
}

// productPostStates reads every product and variation post now.
func productPostStates(t *testing.T, raw *sql.DB) map[int64]postState {
	t.Helper()
	rows, err := raw.Query(`SELECT ID, post_parent, post_type, post_status, CAST(post_modified_gmt AS CHAR)
		FROM wp_posts WHERE post_type IN ('product', 'product_variation')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]postState{}
	for rows.Next() {
		var id int64
		var s postState
		if err := rows.Scan(&id, &s.parent, &s.typ, &s.status, &s.modified); err != nil {
			t.Fatal(err)
		}
		out[id] = s
	}
	return out
}

// recordingFeed is a catalog.Baseliner that takes a baseline of every
// load while want is set, and keeps those handed over.
type recordingFeed struct {
	mu      sync.Mutex
	want    bool
	atClock func() // run when a load tells its instant: its snapshot stands
	asked   int
	done    []*recorded
}

func (f *recordingFeed) Baseline(context.Context) (catalog.Baseline, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked++
	if !f.want {
		return nil, nil
	}
	return &recorded{f: f}, nil
}

// handed returns the baselines handed over since the last call.
func (f *recordingFeed) handed() []*recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.done
	f.done = nil
	return d
}

// recorded is one load's baseline for a recordingFeed.
type recorded struct {
	f     *recordingFeed
	now   string
	posts map[int64]postState
}

func (r *recorded) Clock(utcNow string) {
	r.now = utcNow
	if r.f.atClock != nil {
		r.f.atClock()
	}
}

func (r *recorded) Posts(posts ...[]catalog.Post) {
	r.posts = map[int64]postState{}
	for _, ps := range posts {
		for _, p := range ps {
			if _, ok := r.posts[p.ID]; ok {
				panic(fmt.Sprintf("post %d handed over twice", p.ID))
			}
			r.posts[p.ID] = postState{p.Parent, p.Type, p.Status, p.Modified}
		}
	}
}

func (r *recorded) Done() {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.f.done = append(r.f.done, r)
}

// A whole load hands the feed that asks every product and variation post
// as of its instant, whatever its status and parent, with the database's
// clock: on one stream and on several, and when commits between the
// streams' openings make it fall back to one transaction.
func TestLoadBaselineHasEveryProductPost(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		streams   int
		noInstant bool // a commit between every try's openings (binary log on): one transaction
		noOrphans bool
	}{
		{name: "one transaction", streams: 1},
		{name: "streams", streams: 3},
		{name: "streams, no instant", streams: 3, noInstant: true},
		{name: "streams, no orphans", streams: 3, noOrphans: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ps, db, raw := baselineShop(t, Options{LoadStreams: tt.streams}, tt.noOrphans, tt.noInstant)
			calls := 0
			if tt.noInstant {
				// A commit elsewhere on the server moves its binary log:
				// the streams' positions differ at every try.
				wpdbtest.Exec(t, raw, "a table to commit to", `CREATE TABLE bump (n INT)`)
				db.betweenOpenings = func(int) {
					calls++
					wpdbtest.Exec(t, raw, "commit", `INSERT INTO bump VALUES (1)`)
				}
			}
			feed := &recordingFeed{want: true}
			db.AskBaseline(feed)
			if _, err := db.LoadShop(context.Background(), catalog.ShopReads); err != nil {
				t.Fatal(err)
			}
			db.betweenOpenings = nil
			if tt.noInstant && calls < 2*snapshotTries {
				t.Fatalf("%d openings after the first, want %d: the load did not fall back to one transaction", calls, 2*snapshotTries)
			}
			handed := feed.handed()
			if len(handed) != 1 {
				t.Fatalf("%d baselines handed over, want 1", len(handed))
			}
			b := handed[0]
			want := productPostStates(t, raw)
			wpdbtest.SamePosts(t, b.posts, want, "handed over", "table")
			seen := map[string]bool{}
			for _, s := range b.posts {
				seen[s.status] = true
			}
			for _, st := range wpdbtest.Statuses {
				if !seen[st] {
					t.Errorf("no post of status %s in the baseline: the fixture lost its point", st)
				}
			}
			if _, ok := b.posts[ps.VarQBCore]; !ok {
				t.Errorf("the disabled variation %d is not in the baseline", ps.VarQBCore)
			}
			if b.now == "" {
				t.Error("the baseline has no clock")
			}
		})
	}
}

// The baseline is the load's instant: a save committed once the load told
// its clock (its snapshot stands) is not in it, on one transaction and on
// streams; nor is one committed between the first two streams' openings
// on a server that tells no binary log position (the streams are not
// opened again): the baseline is the first stream's snapshot, the
// earliest, so that the feed reports the save.
func TestLoadBaselineIsTheLoadsInstant(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		streams int
		between bool // commit between the first two openings, else at the clock
	}{
		{"one transaction", 1, false},
		{"streams", 3, false},
		{"streams, between openings", 3, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ps := wpdbtest.NewProducts()
			db, raw := openShopWith(t, ps.Shop, Options{Prefix: "wp_", LoadStreams: tt.streams})
			const saved = "2026-11-22 10:00:00"
			save := func() {
				wpdbtest.Exec(t, raw, "a save after the load's (first) snapshot",
					`UPDATE wp_posts SET post_modified_gmt = '`+saved+`' WHERE ID = `+fmt.Sprint(ps.Cuffs))
			}
			feed := &recordingFeed{want: true}
			if tt.between {
				db.betweenOpenings = func(i int) {
					if i == 1 {
						save()
					}
				}
			} else {
				feed.atClock = save
			}
			db.AskBaseline(feed)
			if _, err := db.LoadShop(context.Background(), catalog.ShopReads); err != nil {
				t.Fatal(err)
			}
			db.betweenOpenings = nil
			handed := feed.handed()
			if len(handed) != 1 {
				t.Fatalf("%d baselines handed over, want 1", len(handed))
			}
			if got := handed[0].posts[ps.Cuffs].modified; got == saved || got == "" {
				t.Errorf("the baseline's post %d: modified %q, want the one before the save", ps.Cuffs, got)
			}
			if got := productPostStates(t, raw)[ps.Cuffs].modified; got != saved {
				t.Fatalf("stored modified %q, want %q: the save was not made", got, saved)
			}
		})
	}
}

// A load no feed asks (the binary log feed's), or whose feed wants
// nothing (it has its baseline), sends not one statement more; one whose
// feed wants a baseline sends one, the clock (the posts' one pass reads
// the others with the rest). A withdrawn feed is not asked again.
func TestLoadBaselineOnlyWhenWanted(t *testing.T) {
	t.Parallel()
	for _, streams := range []int{1, 3} {
		t.Run(fmt.Sprint(streams, " streams"), func(t *testing.T) {
			t.Parallel()
			_, db, _ := baselineShop(t, Options{LoadStreams: streams}, true, false)
			load := func() int64 {
				t.Helper()
				before := db.Queries()
				if _, err := db.LoadShop(context.Background(), catalog.ShopReads); err != nil {
					t.Fatal(err)
				}
				return db.Queries() - before
			}
			plain := load()
			feed := &recordingFeed{}
			withdraw := db.AskBaseline(feed)
			if got := load(); got != plain || feed.asked != 1 {
				t.Errorf("a feed that wants nothing: %d statements, asked %d times; want %d, once", got, feed.asked, plain)
			}
			feed.want = true
			if got, want := load(), plain+1; got != want {
				t.Errorf("a feed that wants a baseline: %d statements, want %d", got, want)
			}
			if n := len(feed.handed()); n != 1 {
				t.Errorf("%d baselines handed over, want 1", n)
			}
			withdraw()
			if got := load(); got != plain || feed.asked != 2 {
				t.Errorf("withdrawn: %d statements, asked %d times; want %d, not again", got, feed.asked, plain)
			}
		})
	}
}
