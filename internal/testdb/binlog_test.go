package testdb

import (
	"os"
	"testing"

	"catalogd/internal/wpfixture"
)

func TestMain(m *testing.M) {
	code := Run(m)
	StopServers()
	os.Exit(code)
}

// The private server writes a row-based binary log, is started once, and
// takes a shop like the shared one.
func TestBinlogServer(t *testing.T) {
	server := BinlogServer(t)
	if again := BinlogServer(t); again != server {
		t.Errorf("a second call started another server: %s, then %s", server, again)
	}
	shop := wpfixture.New("wp_", "https://shop.example")
	shop.Add(wpfixture.Product{Title: "Radar", RegularPrice: "5"})
	_, raw := LoadOn(t, server, shop)
	var logBin bool
	var format, image string
	if err := raw.QueryRow("SELECT @@GLOBAL.log_bin, @@GLOBAL.binlog_format, @@GLOBAL.binlog_row_image").Scan(&logBin, &format, &image); err != nil {
		t.Fatal(err)
	}
	if !logBin || format != "ROW" || image != "FULL" {
		t.Errorf("log_bin %v, binlog_format %s, binlog_row_image %s; want ON, ROW, FULL", logBin, format, image)
	}
	var products int
	if err := raw.QueryRow("SELECT COUNT(*) FROM wp_posts WHERE post_type = 'product'").Scan(&products); err != nil || products != 1 {
		t.Errorf("products loaded: %d, %v", products, err)
	}
}
