package binlog

import (
	"testing"

	"catalogd/catalog"
	"catalogd/internal/testdb"
	"catalogd/internal/wpdbtest"
	"catalogd/wpdb"
)

// A category's language changed through Polylang's term form shows: the
// binary log feed reads the relationship as a term's, not a post's, and
// reports a change to the terms.
func TestBinlogFeedCategoryLanguage(t *testing.T) {
	server := testdb.BinlogServer(t)
	p := wpdbtest.NewPolylang()
	dsn, raw := testdb.LoadOn(t, server, p.Shop)
	db, err := wpdb.Open(dsn, wpdb.Options{Prefix: "wp_"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := &feedHarness{raw: raw, db: db, dsn: dsn}
	h.run(t, dsn, Options{}, nil)
	h.exec(t, false, p.MoveCategoryToGerman())
	expect(t, h.next(t), catalog.Change{All: true, Kind: catalog.KindTerm})
}
