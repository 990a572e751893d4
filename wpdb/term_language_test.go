package wpdb

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"catalogd/catalog"
	"catalogd/internal/testdb"
)

// moveCategoryToGerman is what Polylang writes when the term form sets a
// category's language: the category's term_language relationship (whose
// object_id is the category's term_id) moves to the German term.
func moveCategoryToGerman(p *polylangShop) string {
	cat := p.shop.TermRef("product_cat", "alpha")
	en, de := p.shop.TermRef("term_language", "pll_en").TTID, p.shop.TermRef("term_language", "pll_de").TTID
	return fmt.Sprintf("UPDATE wp_term_relationships SET term_taxonomy_id = %d WHERE object_id = %d AND term_taxonomy_id = %d",
		de, cat.TermID, en)
}

// A category's language changed through Polylang's term form shows: the
// binary log feed reads the relationship as a term's, not a post's, and
// reports a change to the terms.
func TestBinlogFeedCategoryLanguage(t *testing.T) {
	server := testdb.BinlogServer(t)
	p := newPolylangShop()
	dsn, raw := testdb.LoadOn(t, server, p.shop)
	db, err := Open(dsn, Options{Prefix: "wp_"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := &feedHarness{raw: raw, db: db, dsn: dsn}
	h.run(t, dsn, BinlogOptions{}, nil)
	h.exec(t, false, moveCategoryToGerman(p))
	expect(t, h.next(t), catalog.Change{All: true, Kind: catalog.KindTerm})
}

// The poller's cheap round sees a category's language changed through
// Polylang's term form.
func TestPollCategoryLanguage(t *testing.T) {
	t.Parallel()
	p := newPolylangShop()
	poller, raw := startPoller(t, p.shop, &testClock{t: testNow}, nil)
	exec(t, raw, "category to German", moveCategoryToGerman(p))
	if got, want := describe(poller.pollOnce(context.Background())), []string{"term*"}; !slices.Equal(got, want) {
		t.Errorf("changes = %v, want %v", got, want)
	}
}
