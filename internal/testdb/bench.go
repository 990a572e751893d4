package testdb

import (
	"database/sql"
	"os"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// BenchSizes are the shops make bench seeds (bin/wpseed), wp_bench_<size>
// on the test server; make bench-1m seeds "1m" too.
var BenchSizes = []string{"10k", "100k"}

// BenchShop connects to the seeded shop wp_bench_<size>, or skips, saying
// how to seed it; it returns the connection and its DSN.
func BenchShop(b *testing.B, size string) (*sql.DB, string) {
	b.Helper()
	dsn := os.Getenv("CATALOG_TEST_DSN")
	if dsn == "" {
		dsn = DefaultDSN
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		b.Fatalf("CATALOG_TEST_DSN: %v", err)
	}
	cfg.DBName = "wp_bench_" + size
	raw, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { raw.Close() })
	var n int
	if err := raw.QueryRow(`SELECT COUNT(*) FROM wp_posts WHERE post_type = 'product'`).Scan(&n); err != nil {
		b.Skipf("SKIP: no seeded shop %s (make bench, or bin/wpseed -db %s -products N): %v", cfg.DBName, cfg.DBName, err)
	}
	return raw, cfg.FormatDSN()
}
