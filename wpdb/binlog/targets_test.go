package binlog

import (
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"

	"catalogd/catalog"
	"catalogd/internal/testdb"
)

// A statement's targets are the tables it writes, not every name in its
// text; writes says whether one is a table the feed follows: run in the
// followed schema "shop" or in another, "percona".
func TestStatementWrites(t *testing.T) {
	t.Parallel()
	m := newBinlogMapper("shop", "wp_", catalog.ShopReads)
	tests := []struct {
		name, schema, q string
		want            bool
	}{
		{"pt-table-checksum's checksum of a chunk", "shop", "REPLACE INTO `percona`.`checksums` (db, tbl, chunk, chunk_index, " +
			"lower_boundary, upper_boundary, this_cnt, this_crc) SELECT 'shop', 'wp_posts', '1', NULL, NULL, NULL, COUNT(*) AS cnt, " +
			"COALESCE(LOWER(CONV(BIT_XOR(CAST(CRC32(CONCAT_WS('#', `ID`, `post_title`)) AS UNSIGNED)), 10, 16)), 0) AS crc " +
			"FROM `shop`.`wp_posts` FORCE INDEX(`PRIMARY`) WHERE ((`ID` >= '1')) /*checksum chunk*/", false},
		{"pt-table-checksum's master checksum", "shop", "UPDATE `percona`.`checksums` SET chunk_time = '0.002', master_crc = '1f', " +
			"master_cnt = '12' WHERE db = 'shop' AND tbl = 'wp_posts' AND chunk = '1'", false},
		{"a copy of the posts into another schema", "percona", "INSERT INTO archive SELECT * FROM shop.wp_posts", false},
		{"another schema's table updated from the posts", "shop",
			"UPDATE percona.checksums c JOIN wp_posts p ON p.ID = c.chunk SET c.this_cnt = p.ID", false},
		{"another schema's rows deleted by the posts", "shop",
			"DELETE c FROM percona.checksums AS c JOIN wp_posts p ON p.ID = c.chunk", false},
		{"the posts' name in a string", "shop", "INSERT INTO percona.notes (note) VALUES ('wp_posts changed')", false},
		{"a table not read", "shop", "INSERT INTO wp_actionscheduler_logs (log_id, message) VALUES (1, 'x')", false},
		{"a table of the schema copied elsewhere", "shop", "CREATE TABLE percona.posts_copy AS SELECT * FROM wp_posts", false},
		{"the posts updated", "shop", "UPDATE wp_posts SET post_title = 'x' WHERE ID = 1", true},
		{"the posts updated from another schema's session", "percona", "UPDATE shop.wp_posts SET post_title = 'x' WHERE ID = 1", true},
		{"the posts filled from another schema", "percona", "REPLACE INTO `shop`.`wp_posts` (ID, post_title) SELECT id, title FROM imports", true},
		{"the meta through an alias of a join", "shop",
			"UPDATE percona.checksums c JOIN wp_postmeta pm ON pm.post_id = c.chunk SET pm.meta_value = c.this_crc", true},
		{"an unqualified column of a join", "shop",
			"UPDATE percona.checksums c JOIN wp_postmeta pm ON pm.post_id = c.chunk SET meta_value = '1'", true},
		{"multi-table delete of the terms", "shop", "DELETE t FROM wp_terms t JOIN percona.gone g ON g.id = t.term_id", true},
		{"a comment before it", "shop", "/* wc-admin */ DELETE FROM wp_term_relationships WHERE object_id = 3", true},
		{"the same name in another schema", "percona", "UPDATE wp_posts SET post_title = 'x'", false},
		{"a schema change of the meta", "percona", "ALTER TABLE shop.wp_postmeta ADD COLUMN x INT", true},
		{"a table renamed to a read one", "shop", "RENAME TABLE wp_posts_new TO wp_posts", true},
		{"the shop's schema dropped", "percona", "DROP DATABASE shop", true},
		// MariaDB's executable comment hides the body from the parser:
		// the name in the text decides, as before.
		{"a body the parser cannot read", "shop", "/*M!100000 UPDATE wp_posts SET post_title = 'x' */", true},
	}
	for _, tt := range tests {
		if got := m.writes(tt.schema, tt.q); got != tt.want {
			t.Errorf("%s: writes(%q, %q) = %v, want %v", tt.name, tt.schema, tt.q, got, tt.want)
		}
	}
}

// pt-table-checksum sets its session's binlog_format to STATEMENT and
// checksums each table of the shop into its own schema: those
// statements read the shop's tables and write only another schema's, a
// plain table with no trigger, which the feed's user here may see, so
// the feed goes on following the log (no fallback to polling, no whole
// read), and reports nothing for them. A statement-logged write to the
// shop's own tables still ends it.
func TestBinlogFeedStatementsThatOnlyReadTheShop(t *testing.T) {
	tests := []struct {
		name  string
		stmts func(shop, other string, radar int64) []string
		blind bool
	}{
		{"eight checksums into another schema", func(shop, other string, radar int64) []string {
			var stmts []string
			for i, table := range [][2]string{{"wp_posts", "`ID`, `post_modified_gmt`"}, {"wp_postmeta", "`meta_id`, `meta_value`"},
				{"wp_options", "`option_id`, `option_value`"}, {"wp_term_relationships", "`object_id`, `term_taxonomy_id`"}} {
				stmts = append(stmts, fmt.Sprintf("REPLACE INTO `%[1]s`.`checksums` (db, tbl, chunk, this_cnt, this_crc) "+
					"SELECT '%[2]s', '%[3]s', %[4]d, COUNT(*) AS cnt, "+
					"COALESCE(LOWER(CONV(BIT_XOR(CAST(CRC32(CONCAT_WS('#', %[5]s)) AS UNSIGNED)), 10, 16)), 0) AS crc "+
					"FROM `%[2]s`.`%[3]s` /*checksum table*/", other, shop, table[0], i+1, table[1]),
					fmt.Sprintf("UPDATE `%s`.`checksums` SET master_crc = this_crc, master_cnt = this_cnt "+
						"WHERE db = '%s' AND tbl = '%s' AND chunk = %d", other, shop, table[0], i+1))
			}
			return stmts
		}, false},
		{"the posts filled from another schema", func(shop, other string, radar int64) []string {
			return []string{fmt.Sprintf("REPLACE INTO `%s`.`wp_posts` (ID, post_author, post_date, post_date_gmt, post_content, "+
				"post_title, post_excerpt, post_status, post_name, to_ping, pinged, post_modified, post_modified_gmt, "+
				"post_content_filtered, post_type) SELECT ID, post_author, post_date, post_date_gmt, post_content, "+
				"CONCAT(post_title, ' (restored)'), post_excerpt, post_status, post_name, to_ping, pinged, post_modified, "+
				"post_modified_gmt, post_content_filtered, post_type FROM `%s`.`wp_posts` WHERE ID = %d", shop, shop, radar)}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, p := newFeedShop(t)
			otherDSN := testdb.NewOn(t, testdb.BinlogServer(t))
			shopCfg, err := mysql.ParseDSN(h.dsn)
			if err != nil {
				t.Fatal(err)
			}
			otherCfg, err := mysql.ParseDSN(otherDSN)
			if err != nil {
				t.Fatal(err)
			}
			shop, other := shopCfg.DBName, otherCfg.DBName
			h.exec(t, false, fmt.Sprintf("CREATE TABLE `%s`.`checksums` (db CHAR(64), tbl CHAR(64), chunk INT, this_cnt INT, "+
				"this_crc CHAR(40), master_cnt INT, master_crc CHAR(40), PRIMARY KEY (db, tbl, chunk))", other))
			h.run(t, h.dsn, Options{}, nil)
			// In the shop's schema, as pt-table-checksum's DSN names it.
			h.session(t, append([]string{"SET SESSION binlog_format = 'STATEMENT'"}, tt.stmts(shop, other, p.Radar)...)...)
			if tt.blind {
				h.wantBlind(t, BlindStatement)
				return
			}
			// Nothing for the checksums; the marker, logged after them, is
			// the next change: the feed read past them and follows on.
			h.marker(t)
			expect(t, h.next(t), optionChange)
		})
	}
}
