package binlog

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/go-mysql-org/go-mysql/replication"

	"catalogd/catalog"
	"catalogd/wpdb"
)

// A statement's verb is found behind the comments a client or the server
// puts before it, so DDL and DML logged as statements are recognised.
func TestStatementVerb(t *testing.T) {
	tests := []struct {
		q        string
		ddl, dml bool
	}{
		{"ALTER TABLE wp_posts ADD COLUMN x INT", true, false},
		{"/* wp-cli */ ALTER TABLE wp_posts ADD COLUMN x INT", true, false},
		{"/*!40000 ALTER TABLE `wp_posts` DISABLE KEYS */", true, false},
		{"-- migrate\nCREATE INDEX i ON wp_postmeta (meta_key)", true, false},
		{"# note\n  DROP TABLE wp_old", true, false},
		{"\n\t/* a */ /* b */ truncate wp_options", true, false},
		{"/* wc */ UPDATE wp_postmeta SET meta_value = '1'", false, true},
		{"insert into wp_posts values (1)", false, true},
		{"(DELETE FROM wp_posts)", false, true},
		{"BEGIN", false, false},
		{"SAVEPOINT s1", false, false},
		{"/* unterminated comment", false, false},
	}
	for _, tt := range tests {
		if got := isDDL(tt.q); got != tt.ddl {
			t.Errorf("isDDL(%q) = %v, want %v", tt.q, got, tt.ddl)
		}
		if got := isDML(tt.q); got != tt.dml {
			t.Errorf("isDML(%q) = %v, want %v", tt.q, got, tt.dml)
		}
	}
}

// A transaction MySQL 8.0.20+ logs compressed (binlog_transaction_compression)
// arrives as one TRANSACTION_PAYLOAD_EVENT whose events go-mysql decodes
// (its own tests cover the decompression); the feed reads them as it reads
// an uncompressed transaction's, and a tagged GTID (MySQL 8.4) begins one
// as an untagged GTID does.
func TestBinlogFeedCompressedTransaction(t *testing.T) {
	b := &Binlog{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	b.m = newBinlogMapper("shop", "wp_", catalog.ShopReads)
	b.m.cols = map[string]tableColumns{"wp_postmeta": {count: 4,
		pos: map[string]int{"meta_id": 0, "post_id": 1, "meta_key": 2, "meta_value": 3}}}
	b.m.terms = map[int64]bool{}
	table := &replication.TableMapEvent{Schema: []byte("shop"), Table: []byte("wp_postmeta"), ColumnCount: 4}
	rows := func(typ replication.EventType, r ...[]any) *replication.BinlogEvent {
		return &replication.BinlogEvent{Header: &replication.EventHeader{EventType: typ},
			Event: &replication.RowsEvent{Table: table, ColumnCount: 4, Rows: r}}
	}
	payload := &replication.BinlogEvent{Header: &replication.EventHeader{EventType: replication.TRANSACTION_PAYLOAD_EVENT, LogPos: 900},
		Event: &replication.TransactionPayloadEvent{CompressionType: replication.ZSTD, Events: []*replication.BinlogEvent{
			{Header: &replication.EventHeader{EventType: replication.QUERY_EVENT}, Event: &replication.QueryEvent{Query: []byte("BEGIN")}},
			{Header: &replication.EventHeader{EventType: replication.TABLE_MAP_EVENT}, Event: table},
			rows(replication.UPDATE_ROWS_EVENTv2,
				[]any{int64(1), int64(41), "_price", "10"}, []any{int64(1), int64(41), "_price", "12"}),
			rows(replication.WRITE_ROWS_EVENTv2, []any{int64(2), int64(42), "_edit_lock", "x"}),
			{Header: &replication.EventHeader{EventType: replication.XID_EVENT}, Event: &replication.XIDEvent{}},
		}}}
	tagged := &replication.BinlogEvent{Header: &replication.EventHeader{EventType: replication.GTID_TAGGED_LOG_EVENT},
		Event: &replication.GtidTaggedLogEvent{GTIDEvent: replication.GTIDEvent{ImmediateCommitTimestamp: 1700000000000000}}}

	var got []catalog.Change
	pos := binlogPosition{}
	txn := &binlogTxn{}
	for _, ev := range []*replication.BinlogEvent{tagged, payload} {
		if err := b.handle(context.Background(), ev, &pos, txn, catalog.ChangeFunc(func(c catalog.Change) { got = append(got, c) })); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 1 || len(got[0].Posts) != 1 || got[0].Posts[0] != 41 || got[0].All {
		t.Fatalf("changes = %+v, want one naming post 41 (the _price row; _edit_lock is not read)", got)
	}
	if want := int64(1700000000); got[0].Committed.Unix() != want {
		t.Errorf("committed at %v, want the tagged GTID's commit time %d", got[0].Committed, want)
	}
}

// Every table catalogd reads (wpdb.ReadTables) means something to the
// feed: a table without a role would have its row events ignored.
func TestEveryReadTableHasARole(t *testing.T) {
	for _, table := range wpdb.ReadTables {
		if roleOf[table] == 0 {
			t.Errorf("table %s: no role", table)
		}
	}
}
