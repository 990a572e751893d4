package wpdb

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"catalogd/internal/wpdbtest"
	"catalogd/internal/wpfixture"
)

// Every statement the gate read sends the server is counted, at the first
// read (where MariaDB answers that it has no
// information_schema_stats_expiry) and after, and that answer is no
// errored query: the statements the session executed (its Questions)
// equal those the DB counted.
func TestPostsUpdatedCountsEveryStatement(t *testing.T) {
	t.Parallel()
	s := wpdbtest.NewShop("wp_")
	s.Add(wpfixture.Product{Title: "Radar", RegularPrice: "20"})
	var errs atomic.Int64
	db, _ := openShopWith(t, s, Options{Prefix: s.Prefix, Observe: func(_ time.Duration, err error) {
		if err != nil {
			errs.Add(1)
		}
	}})
	for read := range 3 {
		view(t, db, func(ctx context.Context, tx *Tx) error {
			questions := func() int64 {
				t.Helper()
				var st struct {
					Name string `db:"Variable_name"`
					N    int64  `db:"Value"`
				}
				if err := tx.tx.GetContext(ctx, &st, `SHOW SESSION STATUS LIKE 'Questions'`); err != nil {
					t.Fatalf("read Questions: %v", err)
				}
				return st.N
			}
			q0 := questions()
			q1 := questions()
			self := q1 - q0 // the SHOW's own count
			n0 := db.Queries()
			_, _, ok, err := tx.PostsUpdated(ctx)
			if err != nil {
				return err
			}
			if !ok {
				t.Errorf("read %d: no UPDATE_TIME row for wp_posts", read)
			}
			if sent, counted := questions()-q1-self, db.Queries()-n0; sent != counted {
				t.Errorf("read %d: %d statements sent, %d counted", read, sent, counted)
			}
			return nil
		})
	}
	if n := errs.Load(); n != 0 {
		t.Errorf("%d errored queries observed, want none", n)
	}
}
