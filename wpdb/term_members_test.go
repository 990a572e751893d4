package wpdb

import (
	"context"
	"slices"
	"testing"
)

func TestTermMembers(t *testing.T) {
	t.Parallel()
	p := newProductShop()
	db, _ := openShop(t, p.shop)
	view(t, db, func(ctx context.Context, tx *Tx) error {
		ms, err := tx.TermMembers(ctx, []int64{p.alpha, p.esx})
		if err != nil {
			return err
		}
		got := map[int64][]int64{}
		for _, m := range ms {
			got[m.TTID] = append(got[m.TTID], m.ObjectID)
		}
		// Every relationship of the terms, unpublished posts included:
		// the snapshot keeps the published ones.
		alpha := sortedIDs(got[p.alpha])
		for _, id := range []int64{p.radar, p.badge, p.draft, p.private, p.pending, p.trashed, p.future} {
			if !slices.Contains(alpha, id) {
				t.Errorf("alpha members %v lack %d", alpha, id)
			}
		}
		if esx := sortedIDs(got[p.esx]); !slices.Contains(esx, p.radar) || !slices.Contains(esx, p.bundle) {
			t.Errorf("esx members = %v, want radar and bundle among them", esx)
		}
		if _, ok := got[p.beta]; ok {
			t.Error("a term not asked for is returned")
		}
		return nil
	})
}
