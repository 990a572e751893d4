package wpdb

import (
	"context"
	"slices"
	"testing"

	"catalogd/internal/wpdbtest"
)

func TestTermMembers(t *testing.T) {
	t.Parallel()
	p := wpdbtest.NewProducts()
	db, _ := openShop(t, p.Shop)
	view(t, db, func(ctx context.Context, tx *Tx) error {
		ms, err := tx.TermMembers(ctx, []int64{p.Alpha, p.ESX})
		if err != nil {
			return err
		}
		got := map[int64][]int64{}
		for _, m := range ms {
			got[m.TTID] = append(got[m.TTID], m.ObjectID)
		}
		// Every relationship of the terms, unpublished posts included:
		// the snapshot keeps the published ones.
		alpha := wpdbtest.SortedIDs(got[p.Alpha])
		for _, id := range []int64{p.Radar, p.Badge, p.Draft, p.Private, p.Pending, p.Trashed, p.Future} {
			if !slices.Contains(alpha, id) {
				t.Errorf("alpha members %v lack %d", alpha, id)
			}
		}
		if esx := wpdbtest.SortedIDs(got[p.ESX]); !slices.Contains(esx, p.Radar) || !slices.Contains(esx, p.Bundle) {
			t.Errorf("esx members = %v, want radar and bundle among them", esx)
		}
		if _, ok := got[p.Beta]; ok {
			t.Error("a term not asked for is returned")
		}
		return nil
	})
}
